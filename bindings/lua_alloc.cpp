// Note [Lua allocator]: every tensor op in Lua allocates a handle (a small cdata) and the
// collector frees thousands of them at once. LuaJIT's own allocator returned freed arenas to the
// OS eagerly, so each batch page-faulted fresh memory back in (most of the time of a tiny op);
// glibc's malloc kept the memory but spent ~15% of a tiny op consolidating chunks after each
// batch of frees. Lua tells the allocator the size of every block it frees, so small blocks can
// live in exact-size free lists with no header and no consolidation: allocation and free are a
// pointer pop and push. Chunks are kept until the state closes (the free lists reuse them).
#include "bindings/lua_alloc.h"

#include <cstdlib>
#include <cstring>

namespace tocha {
namespace embed {

LuaAllocator::~LuaAllocator() {
  for (void* c : chunks_) std::free(c);
}

void* LuaAllocator::take(size_t cls) {
  if (void* p = free_[cls]) {
    free_[cls] = *static_cast<void**>(p);
    return p;
  }
  size_t bytes = (cls + 1) * kGranule;
  if (left_ < bytes) {
    void* chunk = std::malloc(kChunk);  // malloc's 16-byte alignment is what Lua needs
    if (!chunk) return nullptr;
    chunks_.push_back(chunk);
    // The tail of the previous chunk is too small for this class; file it under its own class.
    if (left_ >= kGranule) give(cursor_, class_of(left_ - left_ % kGranule));
    cursor_ = static_cast<char*>(chunk);
    left_ = kChunk;
  }
  void* p = cursor_;
  cursor_ += bytes;
  left_ -= bytes;
  return p;
}

void LuaAllocator::give(void* p, size_t cls) {
  *static_cast<void**>(p) = free_[cls];
  free_[cls] = p;
}

void* LuaAllocator::alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* self = static_cast<LuaAllocator*>(ud);
  bool old_small = ptr && osize <= kMaxSmall;
  if (nsize == 0) {
    if (old_small) self->give(ptr, class_of(osize));
    else std::free(ptr);
    return nullptr;
  }
  if (!ptr) return nsize <= kMaxSmall ? self->take(class_of(nsize)) : std::malloc(nsize);
  if (!old_small && nsize > kMaxSmall) return std::realloc(ptr, nsize);
  if (old_small && nsize <= kMaxSmall && class_of(osize) == class_of(nsize)) return ptr;
  void* fresh = nsize <= kMaxSmall ? self->take(class_of(nsize)) : std::malloc(nsize);
  if (!fresh) return nullptr;  // Lua keeps the old block on failure
  std::memcpy(fresh, ptr, osize < nsize ? osize : nsize);
  if (old_small) self->give(ptr, class_of(osize));
  else std::free(ptr);
  return fresh;
}

}  // namespace embed
}  // namespace tocha
