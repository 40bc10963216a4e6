// RateLimiter on simulated time: whose allowance a request draws from (address, shared, header)
// and what splitting the allowance over instances does to one client's first 429.
#include "serve/behaviour/rate_limiter.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::serve {
namespace {

constexpr int64_t kLimiterStartNs = 77 * kNsPerS;  // an arbitrary monotonic start
const AddressKey kLimiterClientA = AddressKey::ipv4(0x7f000002);
const AddressKey kLimiterClientB = AddressKey::ipv4(0x7f000003);

RateLimiterOptions options(double rate_per_s, int64_t burst,
                           RateLimiterOptions::Key key = RateLimiterOptions::Key::kAddress) {
  RateLimiterOptions o;
  o.rate_per_s = rate_per_s;
  o.burst = burst;
  o.key = key;
  return o;
}

RateLimiterOptions shared(uint64_t allowances, int64_t burst) {
  RateLimiterOptions o = options(0.01, burst, RateLimiterOptions::Key::kShared);
  o.shared_allowances = allowances;
  return o;
}

// Requests from A and B in turn until both are refused: how many of each passed.
std::pair<int, int> alternate(RateLimiter& limiter, std::string_view header_a = {},
                              std::string_view header_b = {}) {
  int a = 0;
  int b = 0;
  bool a_open = true;
  bool b_open = true;
  while (a_open || b_open) {
    if (a_open) a_open = limiter.take(kLimiterClientA, header_a, kLimiterStartNs).allowed;
    if (a_open) ++a;
    if (b_open) b_open = limiter.take(kLimiterClientB, header_b, kLimiterStartNs).allowed;
    if (b_open) ++b;
  }
  return {a, b};
}

TEST(RateLimiterTest, ByAddressEachClientHasItsOwnBurst) {
  RateLimiter limiter(options(0.01, 5));
  EXPECT_EQ(alternate(limiter), std::make_pair(5, 5));
}

// The ingress bug: it hid the callers' addresses, so every client drew from one allowance.
TEST(RateLimiterTest, SharedOneMakesTwoClientsShareOneBurst) {
  RateLimiter limiter(shared(1, 5));
  auto [a, b] = alternate(limiter);
  EXPECT_EQ(a + b, 5);
  EXPECT_GE(b, 2) << "both drew from it, in turn";
  EXPECT_FALSE(limiter.take(AddressKey::ipv4(0x0a000001), {}, kLimiterStartNs).allowed)
      << "a third client finds it spent too";
}

TEST(RateLimiterTest, SharedNHashesAddressesOntoNAllowances) {
  RateLimiter limiter(shared(3, 2));
  std::set<std::pair<uint64_t, uint64_t>> keys;
  int allowed = 0;
  for (uint32_t i = 0; i < 200; ++i) {
    AddressKey peer = AddressKey::ipv4(0x0a000000 + i);
    AddressKey key = limiter.key_of(peer, {});
    keys.insert({key.hi, key.lo});
    EXPECT_EQ(key, shared_key(peer, 3)) << "stable";
    while (limiter.take(peer, {}, kLimiterStartNs).allowed) ++allowed;
  }
  EXPECT_EQ(keys.size(), 3u);
  EXPECT_EQ(allowed, 3 * 2) << "200 clients, three allowances of 2";
  EXPECT_NE(limiter.key_of(kLimiterClientA, {}), kLimiterClientA)
      << "a synthetic key, not the address";
}

// The other bug: the key was a client-set header, so a client got a fresh allowance at will.
TEST(RateLimiterTest, HeaderKeyGivesEachValueItsOwnAllowanceAndFallsBackToTheAddress) {
  RateLimiter limiter(options(0.01, 1, RateLimiterOptions::Key::kHeader));
  EXPECT_TRUE(limiter.take(kLimiterClientA, "203.0.113.1", kLimiterStartNs).allowed);
  EXPECT_TRUE(limiter.take(kLimiterClientA, "203.0.113.2", kLimiterStartNs).allowed)
      << "a fresh allowance";
  EXPECT_FALSE(limiter.take(kLimiterClientA, "203.0.113.1", kLimiterStartNs).allowed)
      << "the same value";
  EXPECT_FALSE(limiter.take(kLimiterClientB, "203.0.113.2", kLimiterStartNs).allowed)
      << "the allowance follows the header, not the address";
  EXPECT_TRUE(limiter.take(kLimiterClientA, "", kLimiterStartNs).allowed)
      << "no header: A's address";
  EXPECT_FALSE(limiter.take(kLimiterClientA, "", kLimiterStartNs).allowed);
  EXPECT_TRUE(limiter.take(kLimiterClientB, "", kLimiterStartNs).allowed) << "B's own address";
  EXPECT_NE(header_key("::ffff:127.0.0.2"), kLimiterClientA)
      << "a value is not the address it names";
}

TEST(RateLimiterTest, RemainingCountsDownToZeroAndARefusalSaysWhenToRetry) {
  RateLimiter limiter(options(0.5, 3));
  for (int64_t expected : {2, 1, 0}) {
    TokenBuckets::Decision d = limiter.take(kLimiterClientA, {}, kLimiterStartNs);
    EXPECT_TRUE(d.allowed);
    EXPECT_EQ(d.remaining, expected);
  }
  TokenBuckets::Decision refused = limiter.take(kLimiterClientA, {}, kLimiterStartNs);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.remaining, 0);
  EXPECT_EQ(refused.retry_after_s, 2);
}

// The split allowance: 20 instances of 30 tokens each, one picked per request. The first 429
// comes as soon as one instance is drawn a 31st time, long before 600; over time the whole
// route still passes at most burst + rate x time.
TEST(RateLimiterTest, InstancesRefuseAClientBeforeItHasSpentTheWholeBurst) {
  RateLimiterOptions o = options(100, 600);
  o.instances = 20;
  RateLimiter limiter(o);
  int before_first_429 = 0;
  int64_t highest_remaining = 0;
  while (true) {
    TokenBuckets::Decision d = limiter.take(kLimiterClientA, {}, kLimiterStartNs);
    if (!d.allowed) break;
    ++before_first_429;
    highest_remaining = std::max(highest_remaining, d.remaining);
  }
  EXPECT_LT(before_first_429, 600);
  EXPECT_GT(before_first_429, 30) << "at least one instance's share passed";
  EXPECT_EQ(highest_remaining, 29) << "each instance holds 600 / 20 tokens";

  // Ten seconds, a request every 100 us: at most the burst left plus 100/s x 10 s.
  int allowed = 0;
  for (int64_t t_ns = 100'000; t_ns <= 10 * kNsPerS; t_ns += 100'000) {
    allowed += limiter.take(kLimiterClientA, {}, kLimiterStartNs + t_ns).allowed ? 1 : 0;
  }
  EXPECT_LE(before_first_429 + allowed, 600 + 100 * 10);
  EXPECT_GE(allowed, 100 * 10 * 9 / 10) << "the instances together still refill at the rate";
}

TEST(RateLimiterTest, ASingleInstanceIsTheWholeBurst) {
  RateLimiterOptions o = options(100, 600);
  RateLimiter limiter(o);
  int allowed = 0;
  while (limiter.take(kLimiterClientA, {}, kLimiterStartNs).allowed) ++allowed;
  EXPECT_EQ(allowed, 600);
}

TEST(RateLimiterTest, ClearGivesEveryAllowanceBackAndRepeatsThePicks) {
  RateLimiterOptions o = options(0.01, 40);
  o.instances = 4;
  RateLimiter limiter(o);
  auto until_refused = [&] {
    int n = 0;
    while (limiter.take(kLimiterClientA, {}, kLimiterStartNs).allowed) ++n;
    return n;
  };
  int first = until_refused();
  limiter.clear();
  EXPECT_EQ(until_refused(), first);
}

TEST(RateLimiterTest, MoreInstancesThanTheBurstIsAUsageError) {
  RateLimiterOptions o = options(10, 4);
  o.instances = 5;
  EXPECT_THROW(RateLimiter{o}, UsageError);
  o.instances = 0;
  EXPECT_THROW(RateLimiter{o}, UsageError);
}

}  // namespace
}  // namespace proofload::serve
