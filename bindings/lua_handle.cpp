// The tensor handle's finalizer as a Lua C function (Note [Handle finalizer]).
//
// Note [Handle finalizer]: every tensor handle gets a finalizer through ffi.gc. When that
// finalizer is a cdata function pointer (ffi.cast of tocha_handle_release), each call goes through
// LuaJIT's generic FFI call path from the collector (~600 instructions per dead tensor, measured
// with callgrind); a Lua C function is called directly. torch/lib.lua fetches this one with
// package.loadlib and keeps the FFI pointer as the fallback. lua_topointer returns a cdata's
// payload address in the LuaJIT versions that have lj_obj_ptr (2.1 since 2020); lib.lua checks that
// with tocha_lua_handle_address on a probe handle before it uses the C function.
extern "C" {
#include <lua.h>
}

#include "tocha.h"

extern "C" __attribute__((visibility("default"))) int tocha_lua_release_handle(lua_State* L) {
  auto* h = static_cast<tocha_handle*>(const_cast<void*>(lua_topointer(L, 1)));
  tocha_handle_release(h);
  return 0;
}

// The address lua_topointer gives for the argument (the probe of lib.lua).
extern "C" __attribute__((visibility("default"))) int tocha_lua_handle_address(lua_State* L) {
  lua_pushlightuserdata(L, const_cast<void*>(lua_topointer(L, 1)));
  return 1;
}
