// The `tocha` executable: runs scripts like Torch7's `th` (arg set, torch preloaded), evaluates
// -e statements, loads -l libraries, and opens the REPL (lua/tocha/repl.lua) when there is no
// script or with -i. A thin C++ host: argument handling lives in Lua (lua/tocha/cli.lua); the
// host adds the readline and Ctrl-C modules the REPL needs (host_modules.h).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "repl/host_modules.h"
#include "tocha_lua.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}

namespace {

// Lua modules: TOCHA_LUA_PATH, else next to the executable's install prefix, else the source
// tree this binary was built from.
std::string lua_dir() {
  if (const char* env = std::getenv("TOCHA_LUA_PATH")) return env;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n > 0) {
    buf[n] = 0;
    std::string exe(buf);
    std::string prefix = exe.substr(0, exe.rfind('/'));
    prefix = prefix.substr(0, prefix.rfind('/'));
    std::string installed = prefix + "/share/tocha/lua";
    if (access((installed + "/torch/init.lua").c_str(), R_OK) == 0) return installed;
  }
  return TOCHA_SOURCE_LUA_DIR;
}

int traceback(lua_State* L) {
  // Prefer the Lua-side filter that hides Tocha's own frames (lua/tocha/cli.lua).
  lua_getglobal(L, "__tocha_traceback");
  if (lua_isfunction(L, -1)) {
    lua_pushvalue(L, 1);
    if (lua_pcall(L, 1, 1, 0) == 0) return 1;
  }
  lua_settop(L, 1);
  const char* msg = lua_tostring(L, 1);
  luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
  return 1;
}

void preload(lua_State* L, const char* name, lua_CFunction open) {
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, open);
  lua_setfield(L, -2, name);
  lua_pop(L, 2);
}

}  // namespace

int main(int argc, char** argv) {
  // Shared with the data loader's worker states (Note [Lua allocator], bindings/lua_state.cpp).
  lua_State* L = tocha_lua_new_state();
  if (!L) {
    std::fprintf(stderr, "tocha: cannot create a Lua state\n");
    return 1;
  }
#ifdef TOCHA_HAVE_READLINE
  preload(L, "tocha.readline", tocha_repl::open_readline);
#endif
  preload(L, "tocha.sigint", tocha_repl::open_sigint);
  std::string dir = lua_dir();
  std::string code = "package.path = '" + dir + "/?.lua;" + dir + "/?/init.lua;' .. package.path";
  if (luaL_dostring(L, code.c_str()) != 0) {
    std::fprintf(stderr, "tocha: %s\n", lua_tostring(L, -1));
    return 1;
  }
  lua_pushcfunction(L, traceback);
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
  lua_close(L);
  return rc;
}
