#include "common/block_pool.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

namespace proofload {
namespace {

// Before each block: its size class and its usable bytes, padded so the block keeps malloc's
// alignment.
struct alignas(std::max_align_t) Header {
  uint32_t size_class;
  size_t bytes;
};
constexpr uint32_t kHeap = UINT32_MAX;  // larger than the largest class: malloc's own

Header* header_of(void* block) { return static_cast<Header*>(block) - 1; }

uint32_t class_of(size_t size, size_t smallest, size_t classes) {
  size_t bytes = smallest;
  for (uint32_t c = 0; c < classes; ++c, bytes *= 2) {
    if (size <= bytes) return c;
  }
  return kHeap;
}

}  // namespace

BlockPool::~BlockPool() {
  for (std::vector<void*>& blocks : free_) {
    for (void* block : blocks) std::free(header_of(block));
  }
}

void* BlockPool::allocate(size_t size) {
  const uint32_t c = class_of(size, kSmallestBytes, kClasses);
  if (c != kHeap && !free_[c].empty()) {
    void* block = free_[c].back();
    free_[c].pop_back();
    return block;
  }
  const size_t bytes = c == kHeap ? size : kSmallestBytes << c;
  auto* header = static_cast<Header*>(std::malloc(sizeof(Header) + bytes));
  if (header == nullptr) return nullptr;
  header->size_class = c;
  header->bytes = bytes;
  return header + 1;
}

void* BlockPool::allocate_unpooled(size_t size) {
  auto* header = static_cast<Header*>(std::malloc(sizeof(Header) + size));
  if (header == nullptr) return nullptr;
  header->size_class = kHeap;
  header->bytes = size;
  return header + 1;
}

void BlockPool::free_unpooled(void* block) {
  if (block != nullptr) std::free(header_of(block));
}

void* BlockPool::reallocate_unpooled(void* block, size_t size) {
  if (block == nullptr) return allocate_unpooled(size);
  void* moved = allocate_unpooled(size);
  if (moved == nullptr) return nullptr;
  const size_t old_bytes = header_of(block)->bytes;
  std::memcpy(moved, block, old_bytes < size ? old_bytes : size);
  free_unpooled(block);
  return moved;
}

void BlockPool::release(void* block) {
  if (block == nullptr) return;
  const uint32_t c = header_of(block)->size_class;
  if (c == kHeap) {
    std::free(header_of(block));
    return;
  }
  try {
    free_[c].push_back(block);  // grows only past the most blocks ever free at once
  } catch (const std::bad_alloc&) {
    std::free(header_of(block));  // called from C libraries: never throws
  }
}

void* BlockPool::reallocate(void* block, size_t size) {
  if (block == nullptr) return allocate(size);
  const size_t old_bytes = header_of(block)->bytes;
  if (size <= old_bytes && header_of(block)->size_class != kHeap) return block;
  void* moved = allocate(size);
  if (moved == nullptr) return nullptr;
  std::memcpy(moved, block, old_bytes < size ? old_bytes : size);
  release(block);
  return moved;
}

}  // namespace proofload
