// Scripts that change what the embedding API itself relies on (the `torch` global, a strict _G
// whose __index / __newindex raise errors) and hosts that pass NULL or freed values: every case
// must come back as an error code, never end the host (a Lua error raised outside lua_pcall
// ends it through std::terminate). Part of tocha_embed_tests (main in test_embed_api.cpp).
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "tocha_embed.h"

namespace {

struct Interp {
  tocha_interp* I = tocha_interp_new(nullptr);
  ~Interp() { tocha_interp_free(I); }
};

void run(tocha_interp* I, const char* code) {
  int rc = tocha_interp_run_string(I, code, "=test");
  INFO(tocha_interp_error(I));
  REQUIRE(rc == TOCHA_OK);
}

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a script that replaces the torch global", "[embed]") {
  Interp in;
  run(in.I, "t = {} x = torch.ones(2) function f() return {}, x end torch = nil");
  tocha_value v;
  CHECK(tocha_interp_get_global(in.I, "t", &v) == TOCHA_EINVAL);
  CHECK(has(tocha_last_error(), "global t is a table"));
  // Tensors still cross: torch.isTensor was taken when the interpreter was made.
  REQUIRE(tocha_interp_get_global(in.I, "x", &v) == TOCHA_OK);
  REQUIRE(v.type == TOCHA_VALUE_TENSOR);
  CHECK(v.tensor->numel == 2);
  tocha_value_clear(&v);
  tocha_value res[2];
  CHECK(tocha_interp_call(in.I, "f", nullptr, 0, res, 2) == TOCHA_EINVAL);
  CHECK(res[0].type == TOCHA_VALUE_NIL);
  CHECK(res[1].type == TOCHA_VALUE_NIL);
  run(in.I, "torch = 42");
  CHECK(tocha_interp_get_global(in.I, "t", &v) == TOCHA_EINVAL);
}

TEST_CASE("a strict _G that raises on unknown globals", "[embed]") {
  Interp in;
  run(in.I, "setmetatable(_G, {\n"
            "  __index = function(_, k) error('undeclared global ' .. tostring(k), 2) end,\n"
            "  __newindex = function(_, k) error('assignment to undeclared global ' .. tostring(k), 2) end})");
  const char* path = "/tmp/tocha_embed_strict_global.lua";
  FILE* f = std::fopen(path, "w");
  REQUIRE(f != nullptr);
  std::fputs("return 1\n", f);
  std::fclose(f);
  // Setting `arg` hits __newindex: a Lua error, reported.
  CHECK(tocha_interp_run_file(in.I, path, 0, nullptr) == TOCHA_ELUA);
  CHECK(has(tocha_interp_error(in.I), "assignment to undeclared global arg"));
  tocha_value v = tocha_value_number(1);
  CHECK(tocha_interp_set_global(in.I, "y", &v) == TOCHA_ELUA);
  v = tocha_value_number(1);
  CHECK(tocha_interp_get_global(in.I, "nope", &v) == TOCHA_ELUA);
  CHECK(has(tocha_interp_error(in.I), "undeclared global nope"));
  CHECK(v.type == TOCHA_VALUE_NIL);  // safe to tocha_value_clear after a failure
  // Once declared (rawset), the same calls work.
  run(in.I, "rawset(_G, 'arg', false) rawset(_G, 'z', torch.zeros(3))");
  CHECK(tocha_interp_run_file(in.I, path, 0, nullptr) == TOCHA_OK);
  REQUIRE(tocha_interp_get_global(in.I, "z", &v) == TOCHA_OK);
  CHECK(v.type == TOCHA_VALUE_TENSOR);
  tocha_value_clear(&v);
  std::remove(path);
}

TEST_CASE("NULL or freed values from the host and errors that are not strings", "[embed]") {
  Interp in;
  CHECK(std::string(tocha_interp_error(nullptr)).empty());
  CHECK(tocha_interp_lua_state(nullptr) == nullptr);
  tocha_value_clear(nullptr);
  CHECK(tocha_interp_get_global(in.I, "x", nullptr) == TOCHA_EINVAL);
  CHECK(tocha_interp_get_global(in.I, nullptr, nullptr) == TOCHA_EINVAL);
  CHECK(tocha_interp_set_global(in.I, "x", nullptr) == TOCHA_EINVAL);
  CHECK(tocha_interp_run_file(in.I, nullptr, 0, nullptr) == TOCHA_EINVAL);
  CHECK(tocha_interp_run_file(in.I, "/tmp/x.lua", 2, nullptr) == TOCHA_EINVAL);
  CHECK(tocha_interp_call(in.I, "print", nullptr, -1, nullptr, 0) == TOCHA_EINVAL);
  CHECK(tocha_interp_call(in.I, "print", nullptr, 0, nullptr, -1) == TOCHA_EINVAL);
  tocha_value s = tocha_value_string(nullptr);
  CHECK(tocha_interp_set_global(in.I, "x", &s) == TOCHA_EINVAL);
  CHECK(has(tocha_last_error(), "string value is NULL"));
  tocha_value gone = tocha_value_tensor(tocha_freed_tensor());
  CHECK(tocha_interp_set_global(in.I, "x", &gone) == TOCHA_EINVAL);
  CHECK(has(tocha_last_error(), "tensor was freed"));
  // A tensor the script freed (t:free()) comes back as an error, not a dangling pointer.
  run(in.I, "dead = torch.ones(2) dead:free()");
  tocha_value v;
  CHECK(tocha_interp_get_global(in.I, "dead", &v) == TOCHA_ELUA);
  CHECK(has(tocha_interp_error(in.I), "freed"));
  // Errors whose value is not a string keep a readable message.
  CHECK(tocha_interp_run_string(in.I, "error({code = 7})", nullptr) == TOCHA_ELUA);
  CHECK(has(tocha_interp_error(in.I), "table: "));
  CHECK(tocha_interp_run_string(in.I, "error(setmetatable({}, {__tostring = function() return 'custom' end}))",
                                nullptr) == TOCHA_ELUA);
  CHECK(has(tocha_interp_error(in.I), "custom"));
  run(in.I, "assert(torch.ones(2):sum() == 2)");
}

TEST_CASE("a freed interpreter's pointer stays invalid while new ones are made", "[embed]") {
  // malloc used to give a new interpreter the freed one's address (about 1 time in 20), and the
  // stale pointer then ran code in the new interpreter (Note [Freed interpreters]).
  for (int k = 0; k < 40; ++k) {
    tocha_interp* old = tocha_interp_new(nullptr);
    REQUIRE(old != nullptr);
    tocha_interp_free(old);
    tocha_interp* fresh = tocha_interp_new(nullptr);
    REQUIRE(fresh != nullptr);
    CHECK(fresh != old);
    CHECK(tocha_interp_run_string(old, "x = 1", nullptr) == TOCHA_EINVAL);
    tocha_interp_free(fresh);
  }
}
