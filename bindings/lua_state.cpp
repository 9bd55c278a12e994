// Lua states set up the way Tocha runs Lua (tocha_lua.h): the tocha executable's main state and
// the data loader's worker states are made here, so they share one allocator policy.
#include "tocha_lua.h"
#include <cstdlib>
#include <malloc.h>
#include "lua_api.h"

// Note [Lua allocator]: LuaJIT's own allocator returns freed arenas to the OS eagerly; tensor
// handles die in large batches, so every batch page-faulted fresh memory in again (most of the
// time of a tiny op). States get glibc's allocator instead, tuned (like libtocha's allocations,
// core/memory.cpp) to keep freed memory. Falls back to LuaJIT's own allocator if this LuaJIT
// build refuses custom allocators (non-GC64 x86-64 builds do).
static void* lua_alloc(void*, void* ptr, size_t, size_t nsize) {
  if (nsize == 0) {
    std::free(ptr);
    return nullptr;
  }
  return std::realloc(ptr, nsize);
}

lua_State* tocha_lua_new_state(void) noexcept {
  if (!tocha::lua_api_available()) return nullptr;
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  lua_State* L = lua_newstate ? lua_newstate(lua_alloc, nullptr) : nullptr;
  if (!L) L = luaL_newstate();
  if (L) luaL_openlibs(L);
  return L;
}
