// The allocator Tocha's Lua states use (Note [Lua allocator] in lua_alloc.cpp).
#pragma once
#include <cstddef>
#include <vector>

namespace tocha {
namespace embed {

// Small objects (up to 256 bytes: tensor handles, short strings, small tables) come from
// per-size free lists carved out of 64 KiB chunks; larger blocks from glibc. One per Lua state,
// used by that state's thread only, so it needs no locking.
class LuaAllocator {
 public:
  LuaAllocator() = default;
  LuaAllocator(const LuaAllocator&) = delete;
  LuaAllocator& operator=(const LuaAllocator&) = delete;
  ~LuaAllocator();
  // The lua_Alloc function; ud is the LuaAllocator.
  static void* alloc(void* ud, void* ptr, size_t osize, size_t nsize);

 private:
  static constexpr size_t kGranule = 16, kMaxSmall = 256, kClasses = kMaxSmall / kGranule;
  static constexpr size_t kChunk = 64 * 1024;
  static size_t class_of(size_t n) { return (n + kGranule - 1) / kGranule - 1; }
  void* take(size_t cls);
  void give(void* p, size_t cls);

  void* free_[kClasses] = {};
  std::vector<void*> chunks_;
  char* cursor_ = nullptr;
  size_t left_ = 0;
};

}  // namespace embed
}  // namespace tocha
