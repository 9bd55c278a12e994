// Creating the Lua states Tocha runs in: shared by the embedding API (capi_embed.cpp), the tocha
// executable (repl/main.cpp) and anything else that needs a fresh interpreter.
#pragma once
#include <string>

extern "C" {
#include <lua.h>
}

namespace tocha {
namespace embed {

// Path of the loaded libtocha.so ("" if unknown).
std::string library_path();
// Where the Lua modules are: $TOCHA_LUA_PATH, else <prefix>/share/tocha/lua next to the
// installed library, else the source tree the library was built from.
std::string default_lua_dir();
// A bare Lua state with Tocha's allocator (Note [Lua allocator]).
lua_State* new_state();
// Closes a state made by new_state/open_state and frees its allocator.
void close_state(lua_State* L);
// A message handler for lua_pcall: the message with a traceback, Tocha's frames hidden.
int traceback(lua_State* L);
// A ready state: standard libraries, package.path at lua_dir ("" = default_lua_dir()), the
// traceback filter and `torch` loaded. NULL with *error set on failure.
lua_State* open_state(const std::string& lua_dir, std::string* error);

}  // namespace embed
}  // namespace tocha
