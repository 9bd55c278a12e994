// Creating the Lua states Tocha runs in (the tocha executable, embedding hosts, data-loader
// workers): allocator, standard libraries, package.path pointing at the Lua modules, `torch`
// loaded, and the traceback handler that hides Tocha's own frames.
#include "bindings/embed_state.h"

#include <dlfcn.h>
#include <malloc.h>
#include <unistd.h>
#include <cstdlib>
#include <string>

extern "C" {
#include <lauxlib.h>
#include <lualib.h>
}

#include "bindings/lua_alloc.h"
#include "tocha_embed.h"

namespace tocha {
namespace embed {

namespace {

bool readable(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

std::string parent(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

std::string library_path() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&tocha_interp_new), &info) && info.dli_fname) return info.dli_fname;
  return "";
}

std::string default_lua_dir() {
  // Set but empty counts as unset (`TOCHA_LUA_PATH= tocha`, or a CI matrix's blank entry).
  const char* env = std::getenv("TOCHA_LUA_PATH");
  if (env && *env) return env;
  std::string lib = library_path();
  if (!lib.empty()) {
    // <prefix>/lib/libtocha.so or <prefix>/lib/<multiarch>/libtocha.so
    std::string dir = parent(lib);
    for (const char* rel : {"/../share/tocha/lua", "/../../share/tocha/lua"}) {
      std::string candidate = dir + rel;
      if (readable(candidate + "/torch/init.lua")) return candidate;
    }
  }
  return TOCHA_SOURCE_LUA_DIR;
}

lua_State* new_state() {
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  auto* allocator = new LuaAllocator;  // Note [Lua allocator] (lua_alloc.cpp)
  lua_State* L = lua_newstate(LuaAllocator::alloc, allocator);
  if (L) return L;
  delete allocator;  // this LuaJIT build refuses custom allocators (64-bit without GC64)
  return luaL_newstate();
}

void close_state(lua_State* L) {
  void* ud = nullptr;
  lua_Alloc f = lua_getallocf(L, &ud);
  lua_close(L);
  if (f == LuaAllocator::alloc) delete static_cast<LuaAllocator*>(ud);
}

int traceback(lua_State* L) {
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

// Lua source run in every new state: module path, the library's own path for torch.lib, the
// traceback filter, torch itself.
static std::string setup_code(const std::string& dir, const std::string& lib) {
  std::string code;
  code += "package.path = [==[" + dir + "/?.lua;" + dir + "/?/init.lua;]==] .. package.path\n";
  if (!lib.empty()) code += "__tocha_library_path = [==[" + lib + "]==]\n";
  code += "__tocha_traceback = require('tocha.traceback').traceback\n";
  code += "require 'torch'\n";
  return code;
}

lua_State* open_state(const std::string& lua_dir, std::string* error) {
  lua_State* L = new_state();
  if (!L) {
    *error = "cannot create a Lua state (out of memory)";
    return nullptr;
  }
  luaL_openlibs(L);
  std::string dir = lua_dir.empty() ? default_lua_dir() : lua_dir;
  if (!readable(dir + "/torch/init.lua")) {
    *error = "Tocha's Lua modules are not in " + dir + " (no torch/init.lua there); set TOCHA_LUA_PATH";
    close_state(L);
    return nullptr;
  }
  std::string code = setup_code(dir, library_path());
  lua_pushcfunction(L, traceback);
  int handler = lua_gettop(L);
  if (luaL_loadbuffer(L, code.data(), code.size(), "=(tocha setup)") != 0 || lua_pcall(L, 0, 0, handler) != 0) {
    const char* msg = lua_tostring(L, -1);
    *error = msg ? msg : "(error object is not a string)";
    close_state(L);
    return nullptr;
  }
  lua_settop(L, 0);
  return L;
}

}  // namespace embed
}  // namespace tocha
