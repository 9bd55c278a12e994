// The `tocha` executable: runs scripts like Torch7's `th` (arg set, torch preloaded), evaluates
// -e statements, loads -l libraries, and opens the REPL (lua/tocha/repl.lua) when there is no
// script or with -i. A thin C++ host: argument handling lives in Lua (lua/tocha/cli.lua); the
// host adds the readline and Ctrl-C modules the REPL needs (host_modules.h).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tocha_embed.h"
#include "repl/host_modules.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace {

void preload(lua_State* L, const char* name, lua_CFunction open) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, open);
  lua_setfield(L, -2, name);
  lua_pop(L, 2);
}

}  // namespace

int main(int argc, char** argv) {
  // The same interpreter an embedding host gets (bindings/embed_state.cpp): allocator, package.path,
  // traceback filter, torch loaded.
  tocha_interp* interp = tocha_interp_new(nullptr);
  if (!interp) {
    std::fprintf(stderr, "tocha: %s\n", tocha_last_error());
    return 1;
  }
  lua_State* L = tocha_interp_lua_state(interp);
#ifdef TOCHA_HAVE_READLINE
  preload(L, "tocha.readline", tocha_repl::open_readline);
#endif
  preload(L, "tocha.sigint", tocha_repl::open_sigint);
  lua_getglobal(L, "__tocha_traceback");  // set up by the interpreter (lua/tocha/traceback.lua)
  int handler = lua_gettop(L);
  lua_getglobal(L, "require");
  lua_pushstring(L, "tocha.cli");
  int status = lua_pcall(L, 1, 1, handler);
  if (status == 0) {
    lua_newtable(L);
    for (int i = 0; i < argc; ++i) {
      lua_pushstring(L, argv[i]);
      lua_rawseti(L, -2, i);
    }
    status = lua_pcall(L, 1, 1, handler);
  }
  int rc = 0;
  if (status != 0) {
    const char* msg = lua_tostring(L, -1);
    std::fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
    rc = 1;
  } else if (lua_isnumber(L, -1)) {
    rc = int(lua_tointeger(L, -1));
  }
  std::fflush(stdout);
  tocha_interp_free(interp);
  return rc;
}
