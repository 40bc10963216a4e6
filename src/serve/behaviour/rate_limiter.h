// A rate-limited route's allowances: which allowance a request draws from (its key: the peer's
// address, one of a few shared allowances, or a request header's value) and which of the route's
// instances counts it, each instance a TokenBuckets table with its share of rate and burst.
// Built once; take() is thread-safe: the buckets lock their shards, and with several instances
// one relaxed atomic counter picks the instance.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "serve/behaviour/token_bucket.h"

namespace proofload::serve {

struct RateLimiterOptions {
  enum class Key {
    kAddress,  // each peer address has its own allowance
    kShared,   // peer addresses hashed onto `shared_allowances` allowances
    kHeader,   // the value of a request header (the caller passes it); else the peer address
  };
  double rate_per_s = 1;  // the route's whole rate, split over the instances
  int64_t burst = 1;      // the route's whole burst; each instance has burst / instances
  Key key = Key::kAddress;
  uint64_t shared_allowances = 1;  // kShared: >= 1
  int64_t instances = 1;           // 1..burst
  uint64_t seed = 1;               // the sequence of instance picks derives from it
};

class RateLimiter {
 public:
  // Throws UsageError when an instance's share is outside TokenBuckets' range, or instances is
  // not in [1, burst].
  explicit RateLimiter(const RateLimiterOptions& options);
  ~RateLimiter();

  // Takes a token at `now_ns` for a request from `peer` whose key header had `header_value` (""
  // when absent, or when the key is not a header). One instance, picked for this request alone
  // and random-looking (never round robin, which would drain the instances evenly), decides; its
  // bucket's remaining tokens are the answer's.
  TokenBuckets::Decision take(const AddressKey& peer, std::string_view header_value,
                              int64_t now_ns);

  // The bucket key of a request (see take()).
  AddressKey key_of(const AddressKey& peer, std::string_view header_value) const;

  // Every allowance full again, and the instance picks start over.
  void clear();

  int64_t burst() const { return options_.burst; }

 private:
  RateLimiterOptions options_;
  std::vector<std::unique_ptr<TokenBuckets>> instances_;
  std::atomic<uint64_t> picks_{0};  // requests counted so far, with several instances
};

// Synthetic keys live in the IPv6 prefix 0100::/8, reserved and never routed (0100::/64 is the
// discard prefix), so they cannot meet a real peer's address in practice.
//
// The key of allowance number (hash of `peer`) mod `allowances` (>= 1): the peers of a proxy
// that hid their addresses.
AddressKey shared_key(const AddressKey& peer, uint64_t allowances);
// A fixed-size key for a header value: a 64-bit hash of its bytes, tagged apart from shared keys.
AddressKey header_key(std::string_view value);

}  // namespace proofload::serve
