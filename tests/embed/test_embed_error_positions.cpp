// Where a Lua error raised by a tensor op points when the host calls the Lua function directly:
// the position of the host's function, never a line of Tocha's own lua/torch/lib.lua. Part of
// tocha_embed_tests (main in test_embed_api.cpp).
#include <catch2/catch.hpp>

#include <string>

#include "tocha_embed.h"

namespace {

std::string call_error(const char* code, const char* fn) {
  tocha_interp* I = tocha_interp_new(nullptr);
  REQUIRE(I != nullptr);
  REQUIRE(tocha_interp_run_string(I, code, "=model.lua") == TOCHA_OK);
  tocha_value r;
  int rc = tocha_interp_call(I, fn, nullptr, 0, &r, 1);
  std::string err = tocha_interp_error(I);
  tocha_interp_free(I);
  CHECK(rc == TOCHA_ELUA);
  return err;
}

}  // namespace

TEST_CASE("a tensor op error in a host-called function names the function's line", "[embed]") {
  std::string err = call_error("function f()\n  local y = torch.zeros(2, 3):mm(torch.zeros(5, 5))\n  return y\nend", "f");
  INFO(err);
  CHECK(err.find("model.lua:2: [mm] a is 2x3 but b is 5x5") == 0);
}

// When the op is the host-called function's tail call (`return x:mm(y)`), no Lua frame outside
// the library is left on the stack; lib.user_level() returned 1 and error() pointed at
// lua/torch/lib.lua's own raise() ("/.../lua/torch/lib.lua:80: [mm] ..."). It now gives no position.
TEST_CASE("a tensor op error in a tail call does not point into lib.lua", "[embed]") {
  std::string err = call_error("function f() return torch.zeros(2, 3):mm(torch.zeros(5, 5)) end", "f");
  INFO(err);
  CHECK(err.find("[mm] a is 2x3 but b is 5x5") != std::string::npos);
  CHECK(err.find("torch/lib.lua") == std::string::npos);
}
