// RateLimiter: keys, instance tables and the per-request pick; see rate_limiter.h.
#include "serve/behaviour/rate_limiter.h"

#include <algorithm>
#include <string>

#include "common/rng.h"
#include "common/usage_error.h"

namespace proofload::serve {
namespace {

constexpr uint64_t kSharedTag = 0x0100'0000'0000'0000;  // 0100::/64
constexpr uint64_t kHeaderTag = 0x0100'0000'0000'0001;  // 0100:0:0:1::/64
// Buckets of all instances together, as one TokenBuckets table's default; every instance sees
// every caller (a load balancer sends each one anywhere), so none gets fewer than this floor.
constexpr size_t kAddressesPerRoute = 65'536;
constexpr size_t kMinAddressesPerInstance = 256;

}  // namespace

AddressKey shared_key(const AddressKey& peer, uint64_t allowances) {
  uint64_t hash = mix64(peer.hi ^ mix64(peer.lo));
  return AddressKey{kSharedTag, hash % std::max<uint64_t>(1, allowances)};
}

AddressKey header_key(std::string_view value) {
  // FNV-1a, then mix64 so that values differing in their last byte land far apart.
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : value) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return AddressKey{kHeaderTag, mix64(hash)};
}

RateLimiter::RateLimiter(const RateLimiterOptions& options) : options_(options) {
  if (options.instances < 1 || options.instances > options.burst) {
    throw UsageError("limit: instances must be between 1 and the burst (" +
                     std::to_string(options.burst) + ")");
  }
  auto count = static_cast<size_t>(options.instances);
  size_t addresses = std::max(kMinAddressesPerInstance, kAddressesPerRoute / count);
  for (size_t i = 0; i < count; ++i) {
    instances_.push_back(
        std::make_unique<TokenBuckets>(options.rate_per_s / static_cast<double>(count),
                                       options.burst / options.instances, addresses));
  }
}

RateLimiter::~RateLimiter() = default;

AddressKey RateLimiter::key_of(const AddressKey& peer, std::string_view header_value) const {
  switch (options_.key) {
    case RateLimiterOptions::Key::kAddress:
      return peer;
    case RateLimiterOptions::Key::kShared:
      return shared_key(peer, options_.shared_allowances);
    case RateLimiterOptions::Key::kHeader:
      return header_value.empty() ? peer : header_key(header_value);
  }
  return peer;
}

TokenBuckets::Decision RateLimiter::take(const AddressKey& peer, std::string_view header_value,
                                         int64_t now_ns) {
  AddressKey key = key_of(peer, header_value);
  if (instances_.size() == 1) return instances_[0]->take(key, now_ns);
  // A hash of the request's number: random-looking, yet the same sequence on every run.
  uint64_t pick = mix64(options_.seed + picks_.fetch_add(1, std::memory_order_relaxed));
  return instances_[pick % instances_.size()]->take(key, now_ns);
}

void RateLimiter::clear() {
  for (auto& instance : instances_) instance->clear();
  picks_.store(0, std::memory_order_relaxed);
}

}  // namespace proofload::serve
