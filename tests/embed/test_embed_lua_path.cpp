// Where tocha_interp_new finds the Lua modules: an empty TOCHA_LUA_PATH counts as unset (the
// install prefix or the source tree), a wrong one is an error that names it. Part of
// tocha_embed_tests (main in test_embed_api.cpp).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "tocha_embed.h"

namespace {

// Sets TOCHA_LUA_PATH for one scope and restores what was there.
struct EnvVar {
  std::string old;
  bool had;
  explicit EnvVar(const char* value) {
    const char* prev = std::getenv("TOCHA_LUA_PATH");
    had = prev != nullptr;
    if (had) old = prev;
    setenv("TOCHA_LUA_PATH", value, 1);
  }
  ~EnvVar() {
    if (had) setenv("TOCHA_LUA_PATH", old.c_str(), 1);
    else unsetenv("TOCHA_LUA_PATH");
  }
};

}  // namespace

TEST_CASE("an empty TOCHA_LUA_PATH is the default lua directory", "[embed]") {
  {
    EnvVar env("");
    tocha_interp* I = tocha_interp_new(nullptr);
    INFO(tocha_last_error());
    REQUIRE(I != nullptr);
    CHECK(tocha_interp_run_string(I, "assert(torch.ones(2):sum() == 2)", nullptr) == TOCHA_OK);
    tocha_interp_free(I);
  }
  {
    EnvVar env("/nonexistent/tocha/lua");
    CHECK(tocha_interp_new(nullptr) == nullptr);
    CHECK(std::string(tocha_last_error()).find("/nonexistent/tocha/lua") != std::string::npos);
  }
}
