#include "net/tls_memory.h"

#include <openssl/crypto.h>

#include "common/block_pool.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PL_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PL_SANITIZED 1
#endif

namespace proofload::net {
#ifndef PL_SANITIZED
namespace {

// Each thread's pool, made on its first OpenSSL allocation. OpenSSL frees some blocks after the
// thread's C++ objects are gone (its thread-exit and atexit cleanups): `t_pool_gone` is trivially
// destructible, so it stays readable then, and those go back to the heap.
thread_local bool t_pool_gone = false;

struct ThreadPool {
  BlockPool pool;
  ~ThreadPool() { t_pool_gone = true; }
};

BlockPool* thread_pool() {
  if (t_pool_gone) return nullptr;
  thread_local ThreadPool pool;
  return &pool.pool;
}

void* pooled_malloc(size_t size, const char*, int) {
  BlockPool* pool = thread_pool();
  return pool != nullptr ? pool->allocate(size) : BlockPool::allocate_unpooled(size);
}

void* pooled_realloc(void* block, size_t size, const char*, int) {
  BlockPool* pool = thread_pool();
  return pool != nullptr ? pool->reallocate(block, size)
                         : BlockPool::reallocate_unpooled(block, size);
}

void pooled_free(void* block, const char*, int) {
  BlockPool* pool = thread_pool();
  if (pool != nullptr) {
    pool->release(block);
  } else {
    BlockPool::free_unpooled(block);
  }
}

}  // namespace

bool pool_tls_memory() {
  return CRYPTO_set_mem_functions(pooled_malloc, pooled_realloc, pooled_free) == 1;
}
#else
bool pool_tls_memory() { return false; }
#endif

}  // namespace proofload::net
