// TokenBuckets: exact integer token arithmetic (1 token = 1e12 units, so dt_ns * rate in
// tokens per 1000 s is units gained, with no rounding), in a set-associative table of
// fixed size. Each shard's slots are guarded by that shard's mutex.
#include "serve/behaviour/token_bucket.h"

#include <netinet/in.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "common/clock.h"
#include "common/rng.h"
#include "common/usage_error.h"

namespace proofload::serve {
namespace {

constexpr int64_t kUnitsPerToken = 1'000'000'000'000;
constexpr size_t kBucketWays = 8;
constexpr int64_t kEmpty = std::numeric_limits<int64_t>::min();

uint64_t load_big_endian(const uint8_t* bytes) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | bytes[i];
  return value;
}

}  // namespace

AddressKey AddressKey::from_sockaddr(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) {
    sockaddr_in in;
    std::memcpy(&in, &address, sizeof in);
    return ipv4(ntohl(in.sin_addr.s_addr));
  }
  if (address.ss_family == AF_INET6) {
    sockaddr_in6 in6;
    std::memcpy(&in6, &address, sizeof in6);
    return AddressKey{load_big_endian(in6.sin6_addr.s6_addr),
                      load_big_endian(in6.sin6_addr.s6_addr + 8)};
  }
  return AddressKey{};
}

AddressKey AddressKey::ipv4(uint32_t address) {
  return AddressKey{0, (uint64_t{0xffff} << 32) | address};
}

struct TokenBuckets::Slot {
  AddressKey key;
  int64_t units = 0;         // tokens at last_ns, in units
  int64_t last_ns = kEmpty;  // last take(); kEmpty for a free slot
};

struct alignas(64) TokenBuckets::Shard {
  std::mutex mutex;
  std::vector<Slot> slots;  // sets_per_shard_ * kBucketWays, allocated once
};

TokenBuckets::TokenBuckets(double rate_per_s, int64_t burst, size_t max_addresses, size_t shards) {
  if (!(rate_per_s >= 0.001 && rate_per_s <= 1e9)) {
    throw UsageError("limit: rate must be between 0.001 and 1e9 per second");
  }
  if (burst < 1 || burst > 1'000'000) {
    throw UsageError("limit: burst must be between 1 and 1000000");
  }
  rate_milli_per_s_ = std::llround(rate_per_s * 1000);
  full_units_ = burst * kUnitsPerToken;
  shard_count_ = std::max<size_t>(1, shards);
  size_t per_shard = (std::max<size_t>(1, max_addresses) + shard_count_ - 1) / shard_count_;
  sets_per_shard_ = (per_shard + kBucketWays - 1) / kBucketWays;
  shards_ = std::make_unique<Shard[]>(shard_count_);
  for (size_t i = 0; i < shard_count_; ++i) shards_[i].slots.resize(sets_per_shard_ * kBucketWays);
}

TokenBuckets::~TokenBuckets() = default;

size_t TokenBuckets::capacity() const { return shard_count_ * sets_per_shard_ * kBucketWays; }

void TokenBuckets::clear() {
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mutex);
    std::fill(shards_[i].slots.begin(), shards_[i].slots.end(), Slot{});
  }
}

int64_t TokenBuckets::refilled_units(const Slot& slot, int64_t now_ns) const {
  int64_t elapsed_ns = now_ns - slot.last_ns;
  if (elapsed_ns <= 0) return slot.units;
  // Past the time to fill from the current level, the bucket is full; checking first keeps
  // the product below full_units_ + rate, far from overflow.
  int64_t missing_units = full_units_ - slot.units;
  if (elapsed_ns >= missing_units / rate_milli_per_s_ + 1) return full_units_;
  return std::min(full_units_, slot.units + elapsed_ns * rate_milli_per_s_);
}

TokenBuckets::Decision TokenBuckets::take(const Key& key, int64_t now_ns) {
  uint64_t hash = mix64(key.hi ^ mix64(key.lo));
  Shard& shard = shards_[hash % shard_count_];
  Slot* set = shard.slots.data() + ((hash >> 32) % sets_per_shard_) * kBucketWays;

  std::lock_guard lock(shard.mutex);
  Slot* slot = nullptr;
  for (size_t way = 0; way < kBucketWays; ++way) {
    if (set[way].last_ns != kEmpty && set[way].key == key) {
      slot = &set[way];
      break;
    }
  }
  if (slot != nullptr) {
    slot->units = refilled_units(*slot, now_ns);
    slot->last_ns = std::max(slot->last_ns, now_ns);
  } else {
    // A free slot, else one whose bucket is full again (forgetting it changes nothing), else
    // the least recently used.
    Slot* victim = &set[0];
    for (size_t way = 0; way < kBucketWays; ++way) {
      Slot& candidate = set[way];
      if (candidate.last_ns == kEmpty || refilled_units(candidate, now_ns) == full_units_) {
        victim = &candidate;
        break;
      }
      if (candidate.last_ns < victim->last_ns) victim = &candidate;
    }
    slot = victim;
    slot->key = key;
    slot->units = full_units_;
    slot->last_ns = now_ns;
  }

  if (slot->units >= kUnitsPerToken) {
    slot->units -= kUnitsPerToken;
    return Decision{true, 0, slot->units / kUnitsPerToken};
  }
  int64_t missing_units = kUnitsPerToken - slot->units;
  int64_t wait_ns = (missing_units + rate_milli_per_s_ - 1) / rate_milli_per_s_;
  return Decision{false, (wait_ns + kNsPerS - 1) / kNsPerS, 0};
}

}  // namespace proofload::serve
