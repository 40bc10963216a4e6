// Per-source-address token buckets for rate-limited routes: `rate_per_s` tokens a second, at
// most `burst` saved up; a request takes one token or is refused with a Retry-After.
// Thread-safe: the table is split into shards, each under its own mutex, so server threads
// rarely wait on each other. Memory is fixed at construction (no allocation in take()).
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>

namespace proofload::serve {

// A source address without its port: the 16 bytes of an IPv6 address, with IPv4 stored as
// the IPv4-mapped IPv6 address (::ffff:a.b.c.d), so a client is one key whether it came in
// on an IPv4 or a dual-stack socket. Other families (e.g. AF_UNIX) all map to the zero key.
struct AddressKey {
  uint64_t hi = 0;  // first 8 address bytes, big-endian
  uint64_t lo = 0;  // last 8 address bytes, big-endian

  static AddressKey from_sockaddr(const sockaddr_storage& address);
  // An IPv4 address given in host byte order (0x7f000001 is 127.0.0.1).
  static AddressKey ipv4(uint32_t address);

  bool operator==(const AddressKey&) const = default;
};

class TokenBuckets {
 public:
  using Key = AddressKey;

  struct Decision {
    bool allowed;
    int64_t retry_after_s;  // when refused: whole seconds until the next token (>= 1); else 0
    int64_t remaining;      // whole tokens left in the bucket after this take (0 when refused)
  };

  // rate_per_s in [0.001, 1e9] (a resolution of 0.001/s), burst in [1, 1e6]; outside these,
  // UsageError. At most about `max_addresses` buckets are kept (rounded up to fill the
  // shards); see take() for what happens past that.
  TokenBuckets(double rate_per_s, int64_t burst, size_t max_addresses = 65'536, size_t shards = 16);
  ~TokenBuckets();

  // Takes a token for `key` at `now_ns` (any monotonic clock; simulated in tests). A bucket
  // first seen starts full. Buckets live in small sets (8 per hash); a new address replaces a
  // bucket that is full again (the same as none), else the least recently used one, which
  // then starts full: only with more busy addresses than the table holds can one get a second
  // burst. A `now_ns` earlier than the bucket's last use counts as no time passed. ~50 ns.
  Decision take(const Key& key, int64_t now_ns);

  // Forgets every bucket (all addresses get their burst again).
  void clear();

  size_t capacity() const;

 private:
  struct Slot;
  struct Shard;
  int64_t refilled_units(const Slot& slot, int64_t now_ns) const;

  int64_t rate_milli_per_s_;  // tokens per 1000 s: one unit of token per ns is 1e-12 token
  int64_t full_units_;        // burst in units (1 token = kUnitsPerToken)
  size_t shard_count_;
  size_t sets_per_shard_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace proofload::serve
