/* tocha_lua.h -- for hosts that run LuaJIT (the tocha executable, the data loader's worker
 * threads, embedding applications): a Lua state set up the way Tocha runs Lua. Not included by
 * tocha.h, whose FFI cdef knows no lua_State. */
#ifndef TOCHA_LUA_H
#define TOCHA_LUA_H

#include "tocha.h"

struct lua_State;

/* A new Lua state with the standard libraries open, using glibc's allocator tuned to keep freed
   memory (Note [Lua allocator], bindings/lua_state.cpp); NULL when the process has no LuaJIT or
   the state cannot be created. */
TOCHA_API struct lua_State *tocha_lua_new_state(void) TOCHA_NOEXCEPT;

#endif
