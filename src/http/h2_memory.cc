#include "http/h2_memory.h"

#include <cstdint>
#include <cstring>

namespace proofload::http {
namespace {

BlockPool& pool_of(void* self) { return *static_cast<BlockPool*>(self); }

}  // namespace

H2Memory::H2Memory() {
  mem_.mem_user_data = &pool_;
  mem_.malloc = [](size_t size, void* self) { return pool_of(self).allocate(size); };
  mem_.free = [](void* block, void* self) { pool_of(self).release(block); };
  mem_.calloc = [](size_t count, size_t size, void* self) -> void* {
    if (size != 0 && count > SIZE_MAX / size) return nullptr;
    void* block = pool_of(self).allocate(count * size);
    if (block != nullptr) std::memset(block, 0, count * size);
    return block;
  };
  mem_.realloc = [](void* block, size_t size, void* self) {
    return pool_of(self).reallocate(block, size);
  };
}

}  // namespace proofload::http
