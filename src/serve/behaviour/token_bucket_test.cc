// TokenBuckets on simulated time: the burst at once, then exactly the rate, one allowance
// per address, Retry-After and tokens remaining, refill, eviction that keeps busy buckets, and
// threads.
#include "serve/behaviour/token_bucket.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::serve {
namespace {

constexpr int64_t kBucketStartNs = 123 * kNsPerS;  // an arbitrary monotonic start
const AddressKey kBucketClientA = AddressKey::ipv4(0x7f000002);
const AddressKey kBucketClientB = AddressKey::ipv4(0x7f000003);

int take_all(TokenBuckets& buckets, const AddressKey& key, int64_t now_ns) {
  int allowed = 0;
  while (buckets.take(key, now_ns).allowed) ++allowed;
  return allowed;
}

// After the burst, one take every millisecond for 10 s: exactly floor(10 * rate) pass.
// (With burst 1 a few would be lost: a token completed between two takes overflows a
// bucket of one, which is the bucket's rule, so these use bursts of 2 or more.)
int allowed_over_ten_seconds(double rate_per_s, int64_t burst) {
  TokenBuckets buckets(rate_per_s, burst);
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs), burst);
  int allowed = 0;
  for (int64_t t_ns = 1'000'000; t_ns <= 10 * kNsPerS; t_ns += 1'000'000) {
    allowed += buckets.take(kBucketClientA, kBucketStartNs + t_ns).allowed ? 1 : 0;
  }
  return allowed;
}

TEST(TokenBucketsTest, BurstPassesAtOnceThenRefuses) {
  TokenBuckets buckets(5, 10);
  for (int i = 0; i < 10; ++i)
    EXPECT_TRUE(buckets.take(kBucketClientA, kBucketStartNs).allowed) << i;
  TokenBuckets::Decision refused = buckets.take(kBucketClientA, kBucketStartNs);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.retry_after_s, 1);
}

// What RateLimit-Remaining reports: whole tokens left after the take, fractions not counted.
TEST(TokenBucketsTest, RemainingIsTheWholeTokensLeftAfterTheTake) {
  TokenBuckets buckets(1, 3);
  EXPECT_EQ(buckets.take(kBucketClientA, kBucketStartNs).remaining, 2);
  EXPECT_EQ(buckets.take(kBucketClientA, kBucketStartNs).remaining, 1);
  EXPECT_EQ(buckets.take(kBucketClientA, kBucketStartNs).remaining, 0);
  TokenBuckets::Decision refused = buckets.take(kBucketClientA, kBucketStartNs);
  EXPECT_FALSE(refused.allowed);
  EXPECT_EQ(refused.remaining, 0);
  TokenBuckets::Decision later =
      buckets.take(kBucketClientA, kBucketStartNs + 2'500'000'000);  // 2.5 tokens
  EXPECT_TRUE(later.allowed);
  EXPECT_EQ(later.remaining, 1) << "1.5 tokens left";
}

TEST(TokenBucketsTest, ExactlyTheRateOverTenSeconds) {
  EXPECT_EQ(allowed_over_ten_seconds(5, 10), 50);
  EXPECT_EQ(allowed_over_ten_seconds(3, 2), 30);  // 333.33 ms per token, no drift
  EXPECT_EQ(allowed_over_ten_seconds(0.5, 2), 5);
  EXPECT_EQ(allowed_over_ten_seconds(1000, 50), 10'000);
  EXPECT_EQ(allowed_over_ten_seconds(2.5, 4), 25);
}

TEST(TokenBucketsTest, SeparateAddressesHaveSeparateAllowances) {
  TokenBuckets buckets(1, 3);
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs), 3);
  EXPECT_EQ(take_all(buckets, kBucketClientB, kBucketStartNs), 3);
  AddressKey v6{0x20010db800000000, 1};
  EXPECT_EQ(take_all(buckets, v6, kBucketStartNs), 3);
  EXPECT_FALSE(buckets.take(kBucketClientA, kBucketStartNs).allowed);
}

TEST(TokenBucketsTest, KeyIgnoresPortAndMapsIpv4IntoIpv6) {
  sockaddr_storage a{};
  auto* in = reinterpret_cast<sockaddr_in*>(&a);
  in->sin_family = AF_INET;
  in->sin_port = htons(40000);
  inet_pton(AF_INET, "127.0.0.2", &in->sin_addr);
  sockaddr_storage b = a;
  reinterpret_cast<sockaddr_in*>(&b)->sin_port = htons(40001);
  sockaddr_storage mapped{};
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&mapped);
  in6->sin6_family = AF_INET6;
  inet_pton(AF_INET6, "::ffff:127.0.0.2", &in6->sin6_addr);
  sockaddr_storage loopback6{};
  reinterpret_cast<sockaddr_in6*>(&loopback6)->sin6_family = AF_INET6;
  inet_pton(AF_INET6, "::1", &reinterpret_cast<sockaddr_in6*>(&loopback6)->sin6_addr);

  EXPECT_EQ(AddressKey::from_sockaddr(a), kBucketClientA);
  EXPECT_EQ(AddressKey::from_sockaddr(b), kBucketClientA);
  EXPECT_EQ(AddressKey::from_sockaddr(mapped), kBucketClientA);
  EXPECT_EQ(AddressKey::from_sockaddr(loopback6), (AddressKey{0, 1}));
}

TEST(TokenBucketsTest, RetryAfterIsTheCeilingOfTheWaitForTheNextToken) {
  TokenBuckets buckets(0.25, 1);  // one token every 4 s
  EXPECT_TRUE(buckets.take(kBucketClientA, kBucketStartNs).allowed);
  EXPECT_EQ(buckets.take(kBucketClientA, kBucketStartNs).retry_after_s, 4);
  EXPECT_EQ(buckets.take(kBucketClientA, kBucketStartNs + 1'500'000'000).retry_after_s,
            3);                                                                            // 2.5 s
  EXPECT_EQ(buckets.take(kBucketClientA, kBucketStartNs + 3 * kNsPerS).retry_after_s, 1);  // 1 s
  EXPECT_EQ(buckets.take(kBucketClientA, kBucketStartNs + 3'900'000'000).retry_after_s,
            1);  // 0.1 s
  EXPECT_EQ(buckets.take(kBucketClientA, kBucketStartNs + 4 * kNsPerS - 1).retry_after_s,
            1);  // 1 ns
  EXPECT_TRUE(buckets.take(kBucketClientA, kBucketStartNs + 4 * kNsPerS).allowed);
}

TEST(TokenBucketsTest, IdleBucketRefillsToTheBurstAndNoFurther) {
  TokenBuckets buckets(2, 6);
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs), 6);
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs + 1 * kNsPerS), 2);
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs + 100 * kNsPerS), 6);
}

TEST(TokenBucketsTest, TimeGoingBackwardsGivesNoTokens) {
  TokenBuckets buckets(1, 1);
  EXPECT_TRUE(buckets.take(kBucketClientA, kBucketStartNs).allowed);
  EXPECT_FALSE(buckets.take(kBucketClientA, kBucketStartNs - 5 * kNsPerS).allowed);
  EXPECT_FALSE(buckets.take(kBucketClientA, kBucketStartNs + kNsPerS - 1).allowed);
  EXPECT_TRUE(buckets.take(kBucketClientA, kBucketStartNs + kNsPerS).allowed);
}

TEST(TokenBucketsTest, NewAddressReplacesAFullBucketBeforeABusyOne) {
  // One shard of one set of 8: the table is full after 8 addresses.
  TokenBuckets buckets(1, 2, 8, 1);
  ASSERT_EQ(buckets.capacity(), 8u);
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs), 2);  // A: empty, oldest use
  AddressKey idle = AddressKey::ipv4(0x0a000001);
  EXPECT_TRUE(buckets.take(idle, kBucketStartNs + 100'000'000).allowed);  // full again at +1.1 s
  for (uint32_t i = 0; i < 6; ++i) {
    EXPECT_EQ(take_all(buckets, AddressKey::ipv4(0x0b000000 + i), kBucketStartNs + 200'000'000), 2);
  }
  // At +1.5 s a ninth address arrives: `idle` is full again and goes, not A (the least
  // recently used, but still owed 0.5 token).
  EXPECT_TRUE(buckets.take(AddressKey::ipv4(0x0c000001), kBucketStartNs + 1'500'000'000).allowed);
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs + 1'500'000'000), 1);
}

TEST(TokenBucketsTest, MemoryStaysBoundedUnderManyAddresses) {
  TokenBuckets buckets(1, 1, 64, 4);
  size_t capacity = buckets.capacity();
  EXPECT_GE(capacity, 64u);
  EXPECT_LE(capacity, 64u + 4 * 8);
  for (uint32_t i = 0; i < 100'000; ++i) {
    ASSERT_TRUE(buckets.take(AddressKey::ipv4(0x0a000000 + i), kBucketStartNs + i).allowed);
  }
  EXPECT_EQ(buckets.capacity(), capacity);
}

TEST(TokenBucketsTest, ClearGivesEveryAddressItsBurstAgain) {
  TokenBuckets buckets(1, 2);
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs), 2);
  buckets.clear();
  EXPECT_EQ(take_all(buckets, kBucketClientA, kBucketStartNs), 2);
}

TEST(TokenBucketsTest, ThreadsSharingOneAddressShareOneAllowance) {
  TokenBuckets buckets(1, 1000);
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        if (buckets.take(kBucketClientA, kBucketStartNs).allowed) allowed.fetch_add(1);
        buckets.take(AddressKey::ipv4(0x0a000000 + i), kBucketStartNs);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(allowed.load(), 1000);
}

TEST(TokenBucketsTest, BadSettingsAreUsageErrors) {
  EXPECT_THROW(TokenBuckets(0, 1), UsageError);
  EXPECT_THROW(TokenBuckets(-1, 1), UsageError);
  EXPECT_THROW(TokenBuckets(1, 0), UsageError);
  EXPECT_THROW(TokenBuckets(1, 2'000'000), UsageError);
}

}  // namespace
}  // namespace proofload::serve
