// The LuaJIT C API as libtocha sees it: declared weak, because libtocha does not link LuaJIT
// (the host that runs Lua provides it: the tocha executable, an embedding application, or a
// plain luajit that loads libtocha through the FFI). Only the data loader's worker states and
// tocha_lua_new_state use it; lua_api_available() says whether the process has LuaJIT at all.
#pragma once

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

// Note [Weak Lua symbols]: a weak undefined reference links without LuaJIT and resolves at load
// time to the host's LuaJIT when there is one, so a C host that never runs Lua still links
// libtocha (and bench programs need no LuaJIT), while the tocha executable gets the real API.
#define TOCHA_WEAK_LUA(ret, name, args) extern "C" ret name args __attribute__((weak));
TOCHA_WEAK_LUA(lua_State*, lua_newstate, (lua_Alloc, void*))
TOCHA_WEAK_LUA(lua_State*, luaL_newstate, (void))
TOCHA_WEAK_LUA(void, luaL_openlibs, (lua_State*))
TOCHA_WEAK_LUA(void, lua_close, (lua_State*))
TOCHA_WEAK_LUA(int, lua_gettop, (lua_State*))
TOCHA_WEAK_LUA(void, lua_settop, (lua_State*, int))
TOCHA_WEAK_LUA(void, lua_pushvalue, (lua_State*, int))
TOCHA_WEAK_LUA(void, lua_insert, (lua_State*, int))
TOCHA_WEAK_LUA(void, lua_remove, (lua_State*, int))
TOCHA_WEAK_LUA(int, lua_type, (lua_State*, int))
TOCHA_WEAK_LUA(const char*, lua_tolstring, (lua_State*, int, size_t*))
TOCHA_WEAK_LUA(void, lua_pushlstring, (lua_State*, const char*, size_t))
TOCHA_WEAK_LUA(void, lua_pushstring, (lua_State*, const char*))
TOCHA_WEAK_LUA(void, lua_pushinteger, (lua_State*, lua_Integer))
TOCHA_WEAK_LUA(void, lua_pushcclosure, (lua_State*, lua_CFunction, int))
TOCHA_WEAK_LUA(void, lua_getfield, (lua_State*, int, const char*))
TOCHA_WEAK_LUA(void, lua_setfield, (lua_State*, int, const char*))
TOCHA_WEAK_LUA(int, lua_pcall, (lua_State*, int, int, int))
TOCHA_WEAK_LUA(void, luaL_traceback, (lua_State*, lua_State*, const char*, int))
#undef TOCHA_WEAK_LUA

namespace tocha {
// Whether the process provides the LuaJIT C API.
inline bool lua_api_available() { return luaL_newstate != nullptr && lua_pcall != nullptr; }
}  // namespace tocha
