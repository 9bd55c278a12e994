// The embedding API (tocha_embed.h): interpreters a C/C++ host creates, runs Lua in, and
// exchanges numbers, strings and tensors with. Every entry point is noexcept and reports errors
// as codes (DESIGN.md decision 8); Lua errors are caught by lua_pcall and kept per interpreter.
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <string>
#include <unordered_set>
#include <vector>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "bindings/capi.h"
#include "bindings/embed_state.h"
#include "tocha_embed.h"

struct tocha_interp {
  lua_State* L = nullptr;
  int helpers = LUA_NOREF;          // registry reference to lua/tocha/embed.lua's table
  int owner = 0;                    // autograd callback owner (Note [Callback owners])
  int is_tensor = LUA_NOREF;        // registry reference to torch.isTensor (Note [Unprotected calls])
  std::string error;                // message and traceback of the last Lua error
  std::deque<std::string> strings;  // strings returned by the last call (stable addresses)
};

namespace {

using tocha::capi::set_error;

// Note [Freed interpreters]: hosts keep raw pointers; a call with a pointer that was freed must
// give an error code, not a crash, so live interpreters are tracked in a set. The memory of a
// freed interpreter is never given back (its members are destroyed, its ~150 bytes kept in
// `retired`): malloc handed the same address to the next tocha_interp_new about one time in 20,
// and a stale pointer then passed the check and ran code in an unrelated interpreter.
std::mutex live_mutex;
std::unordered_set<const tocha_interp*>& live() {
  static std::unordered_set<const tocha_interp*> set;
  return set;
}
std::vector<void*>& retired() {
  // Never destroyed: the blocks stay reachable from a global at exit, so leak checkers (LSan in
  // TOCHA_SANITIZE builds) do not report them.
  static auto* blocks = new std::vector<void*>;
  return *blocks;
}

tocha_interp* allocate_interp() { return new (::operator new(sizeof(tocha_interp))) tocha_interp; }

// Destroys I but keeps its address out of malloc's hands (Note [Freed interpreters]).
void retire_interp(tocha_interp* I) {
  I->~tocha_interp();
  std::lock_guard<std::mutex> lock(live_mutex);
  try {
    retired().push_back(I);
  } catch (...) {
    // Out of memory: the block is lost rather than reused.
  }
}

bool check_interp(const tocha_interp* I, const char* op) {
  std::lock_guard<std::mutex> lock(live_mutex);
  if (I && live().count(I)) {
    tocha_autograd_set_current_owner(I->owner);
    return true;
  }
  set_error(TOCHA_EINVAL, std::string("[") + op + "] " + (I ? "interpreter was freed" : "interpreter is NULL"));
  return false;
}

int invalid(const char* op, const std::string& msg) {
  set_error(TOCHA_EINVAL, std::string("[") + op + "] " + msg);
  return TOCHA_EINVAL;
}

// After a failed lua_pcall: keep the message (with traceback) and report TOCHA_ELUA.
int lua_failure(tocha_interp* I) {
  const char* msg = lua_tostring(I->L, -1);
  I->error = msg ? msg : "(error object is not a string)";
  set_error(TOCHA_ELUA, I->error);
  lua_settop(I->L, 0);
  return TOCHA_ELUA;
}

// Calls helpers[name](args on the stack) protected; leaves nresults on the stack.
int call_helper(tocha_interp* I, const char* name, int nargs, int nresults) {
  lua_State* L = I->L;
  int base = lua_gettop(L) - nargs;
  lua_pushcfunction(L, tocha::embed::traceback);
  lua_rawgeti(L, LUA_REGISTRYINDEX, I->helpers);
  lua_getfield(L, -1, name);
  lua_remove(L, -2);
  lua_insert(L, base + 1);  // function below its arguments
  lua_insert(L, base + 1);  // handler below the function
  int status = lua_pcall(L, nargs, nresults, base + 1);
  lua_remove(L, base + 1);  // the handler
  return status;
}

int push_value(tocha_interp* I, const tocha_value* v, const char* op) {
  lua_State* L = I->L;
  if (!v) return invalid(op, "value pointer is NULL");
  switch (v->type) {
    case TOCHA_VALUE_NIL: lua_pushnil(L); return TOCHA_OK;
    case TOCHA_VALUE_BOOLEAN: lua_pushboolean(L, v->boolean != 0); return TOCHA_OK;
    case TOCHA_VALUE_NUMBER: lua_pushnumber(L, tocha::capi::lua_number(v->number)); return TOCHA_OK;
    case TOCHA_VALUE_STRING:
      if (!v->string) return invalid(op, "string value is NULL");
      lua_pushstring(L, v->string);
      return TOCHA_OK;
    case TOCHA_VALUE_TENSOR:
      if (!v->tensor) return invalid(op, "tensor value is NULL");
      if (v->tensor == reinterpret_cast<tocha_tensor*>(tocha::capi::freed_sentinel()))
        return invalid(op, "tensor was freed");
      lua_pushnumber(L, double(reinterpret_cast<uintptr_t>(v->tensor)));
      if (call_helper(I, "tensor", 1, 1) != 0) return lua_failure(I);
      return TOCHA_OK;
    default: return invalid(op, "unknown value type " + std::to_string(v->type));
  }
}

// Converts the Lua value at idx (absolute) into *out; tensors get a reference for the host.
int to_value(tocha_interp* I, int idx, tocha_value* out, const char* op, const std::string& what) {
  lua_State* L = I->L;
  *out = tocha_value_nil();
  switch (lua_type(L, idx)) {
    case LUA_TNIL: return TOCHA_OK;
    case LUA_TBOOLEAN:
      out->type = TOCHA_VALUE_BOOLEAN;
      out->boolean = lua_toboolean(L, idx);
      return TOCHA_OK;
    case LUA_TNUMBER:
      out->type = TOCHA_VALUE_NUMBER;
      out->number = lua_tonumber(L, idx);
      return TOCHA_OK;
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L, idx, &n);
      I->strings.emplace_back(s, n);
      out->type = TOCHA_VALUE_STRING;
      out->string = I->strings.back().c_str();
      return TOCHA_OK;
    }
    default: break;
  }
  // Anything else must be a tensor: ask Lua for its address (torch.isTensor is checked there).
  lua_rawgeti(L, LUA_REGISTRYINDEX, I->is_tensor);
  lua_pushvalue(L, idx);
  bool is_tensor = lua_pcall(L, 1, 1, 0) == 0 && lua_toboolean(L, -1);
  lua_pop(L, 1);
  if (!is_tensor) return invalid(op, what + " is a " + luaL_typename(L, idx) + ", not a tensor, number, string or boolean");
  lua_pushvalue(L, idx);
  if (call_helper(I, "address", 1, 1) != 0) return lua_failure(I);
  auto* t = reinterpret_cast<tocha_tensor*>(uintptr_t(lua_tonumber(L, -1)));
  lua_pop(L, 1);
  tocha_tensor_retain(t);
  out->type = TOCHA_VALUE_TENSOR;
  out->tensor = t;
  return TOCHA_OK;
}

// Note [Unprotected calls]: a Lua error raised outside lua_pcall ends the host (LuaJIT unwinds
// into these noexcept functions: std::terminate). Anything that can run Lua code or metamethods
// (reading or writing globals: a script may replace `torch` or give _G a strict __index or
// __newindex) is done inside lua_pcall; torch.isTensor is fetched once, when the state is new.
int fetch_is_tensor(lua_State* L) {
  lua_getglobal(L, "torch");
  lua_getfield(L, -1, "isTensor");
  if (!lua_isfunction(L, -1)) luaL_error(L, "torch.isTensor is missing");
  return 1;
}

// arg = the table at 1 (tocha_interp_run_file), protected (Note [Unprotected calls]).
int set_arg_global(lua_State* L) {
  lua_settop(L, 1);
  lua_setglobal(L, "arg");
  return 0;
}

// Results reset to nil once the arguments are on the Lua stack: they may alias them
// (Note [Results may alias arguments]).
void nil_results(tocha_value* results, int nresults) {
  for (int i = 0; i < nresults; ++i) results[i] = tocha_value_nil();
}

// Note [Returned strings]: strings returned by the previous call stay valid until this call
// returns, not only until it starts: hosts pass them straight back (a name, code, an argument
// read from get_global). The caller keeps the result of begin_call until it returns.
std::deque<std::string> begin_call(tocha_interp* I) {
  lua_settop(I->L, 0);
  std::deque<std::string> previous;
  previous.swap(I->strings);
  return previous;
}

}  // namespace

extern "C" {

tocha_value tocha_value_nil(void) noexcept {
  tocha_value v;
  std::memset(&v, 0, sizeof v);
  v.type = TOCHA_VALUE_NIL;
  return v;
}
tocha_value tocha_value_number(double x) noexcept {
  tocha_value v = tocha_value_nil();
  v.type = TOCHA_VALUE_NUMBER;
  v.number = x;
  return v;
}
tocha_value tocha_value_string(const char* s) noexcept {
  tocha_value v = tocha_value_nil();
  v.type = TOCHA_VALUE_STRING;
  v.string = s;
  return v;
}
tocha_value tocha_value_tensor(tocha_tensor* t) noexcept {
  tocha_value v = tocha_value_nil();
  v.type = TOCHA_VALUE_TENSOR;
  v.tensor = t;
  return v;
}
void tocha_value_clear(tocha_value* v) noexcept {
  if (!v) return;
  if (v->type == TOCHA_VALUE_TENSOR && v->tensor) tocha_tensor_release(v->tensor);
  *v = tocha_value_nil();
}

tocha_interp* tocha_interp_new(const char* lua_dir) noexcept {
  try {
    std::string error;
    lua_State* L = tocha::embed::open_state(lua_dir ? lua_dir : "", &error);
    if (!L) {
      set_error(TOCHA_ELUA, "[tocha_interp_new] " + error);
      return nullptr;
    }
    lua_pushcfunction(L, tocha::embed::traceback);
    lua_getglobal(L, "require");
    lua_pushstring(L, "tocha.embed");
    if (lua_pcall(L, 1, 1, 1) != 0) {
      set_error(TOCHA_ELUA, std::string("[tocha_interp_new] ") + lua_tostring(L, -1));
      tocha::embed::close_state(L);
      return nullptr;
    }
    auto* I = allocate_interp();
    I->L = L;
    lua_getfield(L, -1, "owner");
    I->owner = int(lua_tointeger(L, -1));
    lua_pop(L, 1);
    I->helpers = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushcfunction(L, fetch_is_tensor);
    if (lua_pcall(L, 0, 1, 1) != 0) {
      set_error(TOCHA_ELUA, std::string("[tocha_interp_new] ") + lua_tostring(L, -1));
      tocha_autograd_clear_callbacks(I->owner);
      tocha::embed::close_state(L);
      retire_interp(I);
      return nullptr;
    }
    I->is_tensor = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_settop(L, 0);
    std::lock_guard<std::mutex> lock(live_mutex);
    live().insert(I);
    return I;
  } catch (...) {
    set_error(TOCHA_EOOM, "[tocha_interp_new] out of memory");
    return nullptr;
  }
}

void tocha_interp_free(tocha_interp* I) noexcept {
  if (!I) return;
  {
    std::lock_guard<std::mutex> lock(live_mutex);
    if (!live().erase(I)) return;  // already freed: nothing to do
  }
  tocha_autograd_clear_callbacks(I->owner);
  tocha::embed::close_state(I->L);
  tocha_autograd_clear_callbacks(I->owner);  // keys released while the state closed
  retire_interp(I);
}

int tocha_interp_run_string(tocha_interp* I, const char* code, const char* chunkname) noexcept {
  if (!check_interp(I, "tocha_interp_run_string")) return TOCHA_EINVAL;
  if (!code) return invalid("tocha_interp_run_string", "code is NULL");
  auto previous_strings = begin_call(I);  // Note [Returned strings]
  lua_State* L = I->L;
  lua_pushcfunction(L, tocha::embed::traceback);
  if (luaL_loadbuffer(L, code, std::strlen(code), chunkname ? chunkname : "=(embedded)") != 0 ||
      lua_pcall(L, 0, 0, 1) != 0)
    return lua_failure(I);
  lua_settop(L, 0);
  return TOCHA_OK;
}

int tocha_interp_run_file(tocha_interp* I, const char* path, int argc, const char* const* argv) noexcept {
  if (!check_interp(I, "tocha_interp_run_file")) return TOCHA_EINVAL;
  if (!path) return invalid("tocha_interp_run_file", "path is NULL");
  if (argc < 0 || (argc > 0 && !argv)) return invalid("tocha_interp_run_file", "bad argc/argv");
  auto previous_strings = begin_call(I);  // Note [Returned strings]
  lua_State* L = I->L;
  // The script gets its arguments both in `arg` and as the chunk's `...`, as under `tocha script.lua`.
  if (argc > 1000000 || !lua_checkstack(L, argc + 8)) return invalid("tocha_interp_run_file", "too many arguments");
  lua_pushcfunction(L, tocha::embed::traceback);  // index 1
  lua_pushcfunction(L, set_arg_global);
  lua_createtable(L, argc, 1);
  lua_pushstring(L, path);
  lua_rawseti(L, -2, 0);
  for (int i = 0; i < argc; ++i) {
    lua_pushstring(L, argv[i] ? argv[i] : "");
    lua_rawseti(L, -2, i + 1);
  }
  if (lua_pcall(L, 1, 0, 1) != 0) return lua_failure(I);
  if (luaL_loadfile(L, path) != 0) return lua_failure(I);
  for (int i = 0; i < argc; ++i) lua_pushstring(L, argv[i] ? argv[i] : "");
  if (lua_pcall(L, argc, 0, 1) != 0) return lua_failure(I);
  lua_settop(L, 0);
  return TOCHA_OK;
}

int tocha_interp_call(tocha_interp* I, const char* name, const tocha_value* args, int nargs, tocha_value* results,
                      int nresults) noexcept {
  const char* op = "tocha_interp_call";
  if (!check_interp(I, op)) return TOCHA_EINVAL;
  if (!name) return invalid(op, "function name is NULL");
  if (nargs < 0 || (nargs > 0 && !args)) return invalid(op, "bad nargs/args");
  if (nresults < 0 || (nresults > 0 && !results)) return invalid(op, "bad nresults/results");
  // Note [Results may alias arguments]: a host may pass one array as both (x = f(x)), so results
  // are reset to nil only after the arguments are on the Lua stack (and on every failure).
  auto fail = [&](int rc) {
    lua_settop(I->L, 0);
    nil_results(results, nresults);
    return rc;
  };
  auto previous_strings = begin_call(I);  // Note [Returned strings]
  lua_State* L = I->L;
  if (nargs > 1000000 || nresults > 1000000 || !lua_checkstack(L, nargs + nresults + 8))
    return fail(invalid(op, "too many arguments"));
  lua_pushcfunction(L, tocha::embed::traceback);  // index 1
  lua_pushstring(L, name);
  if (call_helper(I, "resolve", 1, 2) != 0) return fail(lua_failure(I));
  if (lua_isnil(L, -2)) {
    std::string missing = lua_isstring(L, -1) ? lua_tostring(L, -1) : name;
    return fail(invalid(op, std::string("no global function ") + name + " (" + missing + " is nil)"));
  }
  // A value that cannot be called failed later as "attempt to call a string value", without the
  // name; a table or userdata with __call is callable.
  if (!lua_isfunction(L, -2)) {
    if (luaL_getmetafield(L, -2, "__call")) {
      lua_pop(L, 1);
    } else {
      std::string type = luaL_typename(L, -2);
      return fail(invalid(op, std::string(name) + " is a " + type + ", not a function"));
    }
  }
  lua_pop(L, 1);
  for (int i = 0; i < nargs; ++i) {
    int rc = push_value(I, &args[i], op);
    if (rc != TOCHA_OK) return fail(rc);
  }
  nil_results(results, nresults);
  if (lua_pcall(L, nargs, nresults, 1) != 0) return lua_failure(I);
  for (int i = 0; i < nresults; ++i) {
    int rc = to_value(I, 2 + i, &results[i], op, "result " + std::to_string(i + 1) + " of " + name);
    if (rc != TOCHA_OK) {
      for (int k = 0; k < i; ++k) tocha_value_clear(&results[k]);
      lua_settop(L, 0);
      return rc;
    }
  }
  lua_settop(L, 0);
  return TOCHA_OK;
}

int tocha_interp_set_global(tocha_interp* I, const char* name, const tocha_value* value) noexcept {
  const char* op = "tocha_interp_set_global";
  if (!check_interp(I, op)) return TOCHA_EINVAL;
  if (!name) return invalid(op, "name is NULL");
  auto previous_strings = begin_call(I);  // Note [Returned strings]
  lua_State* L = I->L;
  lua_pushstring(L, name);
  int rc = push_value(I, value, op);
  if (rc != TOCHA_OK) {
    lua_settop(L, 0);
    return rc;
  }
  if (call_helper(I, "assign", 2, 0) != 0) return lua_failure(I);
  lua_settop(L, 0);
  return TOCHA_OK;
}

int tocha_interp_get_global(tocha_interp* I, const char* name, tocha_value* value) noexcept {
  const char* op = "tocha_interp_get_global";
  if (!check_interp(I, op)) return TOCHA_EINVAL;
  if (!name) return invalid(op, "name is NULL");
  if (!value) return invalid(op, "value pointer is NULL");
  *value = tocha_value_nil();  // on every failure too: a host may tocha_value_clear it
  auto previous_strings = begin_call(I);  // Note [Returned strings]
  lua_State* L = I->L;
  lua_pushstring(L, name);
  if (call_helper(I, "resolve", 1, 1) != 0) return lua_failure(I);
  int rc = to_value(I, 1, value, op, std::string("global ") + name);
  lua_settop(L, 0);
  return rc;
}

const char* tocha_interp_error(const tocha_interp* I) noexcept {
  if (!check_interp(I, "tocha_interp_error")) return "";
  return I->error.c_str();
}

lua_State* tocha_interp_lua_state(tocha_interp* I) noexcept {
  return check_interp(I, "tocha_interp_lua_state") ? I->L : nullptr;
}

}  // extern "C"
