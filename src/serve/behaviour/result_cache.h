// Which (route, query string) answers are already computed, for `cache` routes: the first
// request for a key is cold (pays the route's cpu), later ones are warm. Only a 64-bit
// fingerprint per key is kept (false warm odds about n^2 / 2^65 for n keys: nil at any size
// this holds). Bounded: fixed memory, least recently used eviction within small sets.
// Thread-safe: sharded, one mutex per shard; no allocation after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace proofload::serve {

class ResultCache {
 public:
  // Holds about `capacity` keys (rounded up to whole sets of 8 in every shard).
  explicit ResultCache(size_t capacity = 65'536, size_t shards = 16);
  ~ResultCache();

  // True when (route, query) was seen and is still held (warm); otherwise records it and
  // returns false (cold). Of several threads asking for a new key at once, exactly one gets
  // false. ~30-80 ns: a hash of the query and a look at 8 slots under the shard's mutex.
  bool seen_or_insert(uint32_t route, std::string_view query);

  // Forgets everything (every key is cold again), e.g. on POST /admin/reset.
  void clear();

  size_t capacity() const;
  size_t size() const;  // keys held now (takes every shard's mutex: not for the hot path)

 private:
  struct Slot;
  struct Shard;
  size_t shard_count_;
  size_t sets_per_shard_;
  std::unique_ptr<Shard[]> shards_;
};

}  // namespace proofload::serve
