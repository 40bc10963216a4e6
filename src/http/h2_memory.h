// The memory of a worker's HTTP/2 sessions: nghttp2 allocates for every stream (the stream, its
// header list, HPACK entries, frames queued to send) and frees it when the stream closes, about
// fourteen malloc/free pairs a request on the C heap. Behind nghttp2_mem this hands it the blocks
// of a BlockPool (common/block_pool.h), so a stream reuses the blocks of the one before it.
// Not thread-safe: one per worker, outliving every session that uses it.
#pragma once

#include <nghttp2/nghttp2.h>

#include "common/block_pool.h"

namespace proofload::http {

class H2Memory {
 public:
  H2Memory();
  H2Memory(const H2Memory&) = delete;
  H2Memory& operator=(const H2Memory&) = delete;

  // What nghttp2_session_client_new3 takes; valid while this object lives.
  nghttp2_mem* nghttp2() { return &mem_; }

 private:
  BlockPool pool_;
  nghttp2_mem mem_{};
};

}  // namespace proofload::http
