// The memory of a worker's HTTP/2 sessions: nghttp2 allocates for every stream (the stream, its
// header list, HPACK entries, frames queued to send) and frees it when the stream closes, so with
// the C heap a request costs about fourteen malloc/free pairs. This pool keeps the freed blocks in
// free lists by size (powers of two, 32 bytes to 8 KiB; larger ones go to the heap), so in the
// steady state a stream reuses the blocks of the one before it and nothing is allocated. Written
// here because nghttp2 takes an allocator (nghttp2_mem) but ships none, and no Debian package has
// one made for this; the cached blocks are bounded by the most ever in use at once.
// Not thread-safe: one per worker, outliving every session that uses it.
#pragma once

#include <nghttp2/nghttp2.h>

#include <array>
#include <cstddef>
#include <vector>

namespace proofload::http {

class H2Memory {
 public:
  H2Memory();
  ~H2Memory();
  H2Memory(const H2Memory&) = delete;
  H2Memory& operator=(const H2Memory&) = delete;

  void* allocate(size_t size);
  void release(void* block);
  void* reallocate(void* block, size_t size);

  // What nghttp2_session_client_new3 takes; valid while this pool lives.
  nghttp2_mem* nghttp2() { return &mem_; }

 private:
  static constexpr size_t kSmallestBytes = 32;
  static constexpr size_t kClasses = 9;  // 32, 64, ..., 8192
  std::array<std::vector<void*>, kClasses> free_;
  nghttp2_mem mem_{};
};

}  // namespace proofload::http
