// ResultCache: a set-associative table of fingerprints; each set evicts its least recently
// used slot, which approximates a global LRU without a list to maintain. Each shard's slots
// and use counter are guarded by that shard's mutex.
#include "serve/behaviour/result_cache.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <vector>

#include "common/rng.h"

namespace proofload::serve {
namespace {

constexpr size_t kCacheWays = 8;

}  // namespace

struct ResultCache::Slot {
  uint64_t fingerprint = 0;  // 0: free
  uint64_t last_use = 0;     // the shard's use counter at the last hit or insert
};

struct alignas(64) ResultCache::Shard {
  std::mutex mutex;
  uint64_t uses = 0;
  std::vector<Slot> slots;
};

ResultCache::ResultCache(size_t capacity, size_t shards)
    : shard_count_(std::max<size_t>(1, shards)) {
  size_t per_shard = (std::max<size_t>(1, capacity) + shard_count_ - 1) / shard_count_;
  sets_per_shard_ = (per_shard + kCacheWays - 1) / kCacheWays;
  shards_ = std::make_unique<Shard[]>(shard_count_);
  for (size_t i = 0; i < shard_count_; ++i) shards_[i].slots.resize(sets_per_shard_ * kCacheWays);
}

ResultCache::~ResultCache() = default;

size_t ResultCache::capacity() const { return shard_count_ * sets_per_shard_ * kCacheWays; }

size_t ResultCache::size() const {
  size_t held = 0;
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mutex);
    for (const Slot& slot : shards_[i].slots) held += slot.fingerprint != 0 ? 1 : 0;
  }
  return held;
}

void ResultCache::clear() {
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard lock(shards_[i].mutex);
    std::fill(shards_[i].slots.begin(), shards_[i].slots.end(), Slot{});
  }
}

bool ResultCache::seen_or_insert(uint32_t route, std::string_view query) {
  uint64_t fingerprint = mix64(std::hash<std::string_view>{}(query) ^ mix64(route));
  if (fingerprint == 0) fingerprint = 1;  // 0 marks a free slot
  Shard& shard = shards_[fingerprint % shard_count_];
  Slot* set = shard.slots.data() + ((fingerprint >> 32) % sets_per_shard_) * kCacheWays;

  std::lock_guard lock(shard.mutex);
  uint64_t use = ++shard.uses;
  Slot* victim = &set[0];
  for (size_t way = 0; way < kCacheWays; ++way) {
    Slot& slot = set[way];
    if (slot.fingerprint == fingerprint) {
      slot.last_use = use;
      return true;
    }
    // Free slots have last_use 0, so they are taken before any used one.
    if (slot.last_use < victim->last_use) victim = &slot;
  }
  victim->fingerprint = fingerprint;
  victim->last_use = use;
  return false;
}

}  // namespace proofload::serve
