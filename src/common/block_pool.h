// Size-class free lists over malloc, for libraries that allocate and free the same small blocks
// for every request (nghttp2 per stream, OpenSSL per TLS record): freed blocks are kept by size
// (powers of two, 32 bytes to 8 KiB; larger ones go straight back to the heap) and handed out
// again, so the steady state allocates nothing. The cached blocks are bounded by the most ever
// free at once. Written here because the hot path needs it and no Debian package has an
// allocator made for this (a general-purpose one would replace malloc for the whole process).
// Not thread-safe: one per thread (or per single-threaded owner).
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace proofload {

class BlockPool {
 public:
  BlockPool() = default;
  ~BlockPool();
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  void* allocate(size_t size);  // nullptr when the heap is out of memory
  // A block of any pool (or of none: see free_unpooled) goes to this pool's lists.
  void release(void* block);
  void* reallocate(void* block, size_t size);

  // Without a pool (a thread's pool after the thread's end): blocks any pool can release later.
  static void* allocate_unpooled(size_t size);
  static void free_unpooled(void* block);
  static void* reallocate_unpooled(void* block, size_t size);

 private:
  static constexpr size_t kSmallestBytes = 32;
  static constexpr size_t kClasses = 9;  // 32, 64, ..., 8192
  std::array<std::vector<void*>, kClasses> free_;
};

}  // namespace proofload
