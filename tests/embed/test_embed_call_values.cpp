// Values crossing tocha_interp_call and tocha_interp_run_file the way hosts pass them: one array
// as both arguments and results (x = f(x)), a script's arguments as its `...`, and the C++
// wrapper's conversions (bool stays a boolean, int64_t and size_t are numbers). Part of
// tocha_embed_tests (its main is in test_embed_api.cpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

#include "tocha.hpp"
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

}  // namespace

TEST_CASE("results may alias the arguments", "[embed]") {
  Interp in;
  run(in.I, "function double(x) return x * 2 end\n"
            "function swap(a, b) return b, a end\n"
            "function scaled(t) return t * 3 end");
  tocha_value v = tocha_value_number(21);
  REQUIRE(tocha_interp_call(in.I, "double", &v, 1, &v, 1) == TOCHA_OK);
  CHECK(v.type == TOCHA_VALUE_NUMBER);
  CHECK(v.number == 42);

  tocha_value pair[2] = {tocha_value_number(1), tocha_value_string("two")};
  REQUIRE(tocha_interp_call(in.I, "swap", pair, 2, pair, 2) == TOCHA_OK);
  REQUIRE(pair[0].type == TOCHA_VALUE_STRING);
  CHECK(std::string(pair[0].string) == "two");
  CHECK(pair[1].number == 1);

  // A tensor argument replaced by a tensor result: the host keeps its own reference to the input.
  double host[2] = {1, 2};
  int64_t n = 2;
  tocha_tensor* t = tocha_tensor_from_blob(host, 1, &n, nullptr, TOCHA_DTYPE_F64, nullptr, nullptr);
  tocha_value tv = tocha_value_tensor(t);
  REQUIRE(tocha_interp_call(in.I, "scaled", &tv, 1, &tv, 1) == TOCHA_OK);
  REQUIRE(tv.type == TOCHA_VALUE_TENSOR);
  CHECK(tv.tensor != t);
  CHECK(static_cast<double*>(tocha_tensor_data(tv.tensor))[1] == 6);
  tocha_value_clear(&tv);
  tocha_tensor_release(t);

  // On failure the results are nil, aliased or not.
  tocha_value w = tocha_value_number(5);
  CHECK(tocha_interp_call(in.I, "no_such_function", &w, 1, &w, 1) == TOCHA_EINVAL);
  CHECK(w.type == TOCHA_VALUE_NIL);
  w = tocha_value_number(5);
  run(in.I, "function fails(x) error('failed with ' .. x) end");
  CHECK(tocha_interp_call(in.I, "fails", &w, 1, &w, 1) == TOCHA_ELUA);
  CHECK(std::string(tocha_interp_error(in.I)).find("failed with 5") != std::string::npos);
  CHECK(w.type == TOCHA_VALUE_NIL);
}

TEST_CASE("run_file passes the arguments as the chunk's ... too", "[embed]") {
  const char* path = "/tmp/tocha_embed_run_file_varargs.lua";
  FILE* f = std::fopen(path, "w");
  REQUIRE(f != nullptr);
  std::fputs("local a, b = ...\nnargs = select('#', ...)\n"
             "got = tostring(a) .. ',' .. tostring(b) .. ',' .. arg[0] .. ',' .. tostring(arg[2])\n", f);
  std::fclose(f);
  Interp in;
  const char* argv[] = {"x", "y"};
  int rc = tocha_interp_run_file(in.I, path, 2, argv);
  INFO(tocha_interp_error(in.I));
  REQUIRE(rc == TOCHA_OK);
  tocha_value v;
  REQUIRE(tocha_interp_get_global(in.I, "got", &v) == TOCHA_OK);
  CHECK(std::string(v.string) == std::string("x,y,") + path + ",y");
  REQUIRE(tocha_interp_get_global(in.I, "nargs", &v) == TOCHA_OK);
  CHECK(v.number == 2);
  REQUIRE(tocha_interp_run_file(in.I, path, 0, nullptr) == TOCHA_OK);
  REQUIRE(tocha_interp_get_global(in.I, "nargs", &v) == TOCHA_OK);
  CHECK(v.number == 0);
  std::remove(path);
}

TEST_CASE("the C++ wrapper keeps booleans and takes any integer type", "[embed]") {
  tocha::Interpreter lua;
  lua.set("flag", true);
  lua.run("assert(flag == true, 'flag is ' .. tostring(flag) .. ' (' .. type(flag) .. ')')");
  lua.set("off", false);
  lua.run("assert(off == false, 'off is ' .. tostring(off))");
  CHECK(lua.get("flag").boolean());
  lua.run("function is_bool(x) return type(x) == 'boolean' end");
  CHECK(lua.call("is_bool", {true})[0].boolean());
  CHECK_FALSE(lua.call("is_bool", {1})[0].boolean());

  int64_t big = int64_t(1) << 40;
  size_t count = 7;
  lua.set("big", big);
  lua.set("count", count);
  lua.set("half", 0.5f);
  lua.run("assert(big == 2^40 and count == 7 and half == 0.5)");
  CHECK_THROWS_AS(tocha::Value(static_cast<const char*>(nullptr)), tocha::Error);
  // An empty Tensor throws instead of dereferencing NULL; size() checks its dim.
  tocha::Tensor empty;
  CHECK_THROWS_AS(empty.dim(), tocha::Error);
  CHECK_THROWS_AS(empty.data<float>(), tocha::Error);
  float xs[6] = {0};
  auto t = tocha::Tensor::from_blob(xs, {2, 3});
  CHECK(t.size(1) == 3);
  CHECK_THROWS_AS(t.size(2), tocha::Error);
  CHECK_THROWS_AS(t.size(-1), tocha::Error);
}

TEST_CASE("strings returned by one call can be passed to the next", "[embed]") {
  // Returned strings live until the interpreter's next call; that call may take them as its input
  // (they used to be freed before it read them).
  Interp in;
  std::string long_text(300, 'q');
  long_text += "-end";
  tocha_value s = tocha_value_string(long_text.c_str());
  REQUIRE(tocha_interp_set_global(in.I, "text", &s) == TOCHA_OK);
  run(in.I, "function echo(x) return x end\n"
            "code = 'copied = ' .. string.format('%q', text)\n"
            "fname = 'echo'");
  tocha_value v;
  REQUIRE(tocha_interp_get_global(in.I, "text", &v) == TOCHA_OK);
  REQUIRE(tocha_interp_set_global(in.I, "again", &v) == TOCHA_OK);
  run(in.I, "assert(again == text, 'again: ' .. tostring(again):sub(1, 20))");
  REQUIRE(tocha_interp_get_global(in.I, "text", &v) == TOCHA_OK);
  tocha_value r;
  REQUIRE(tocha_interp_call(in.I, "echo", &v, 1, &r, 1) == TOCHA_OK);
  REQUIRE(r.type == TOCHA_VALUE_STRING);
  CHECK(std::string(r.string) == long_text);
  // As a function name and as code.
  REQUIRE(tocha_interp_get_global(in.I, "fname", &v) == TOCHA_OK);
  REQUIRE(tocha_interp_call(in.I, v.string, &s, 1, &r, 1) == TOCHA_OK);
  CHECK(std::string(r.string) == long_text);
  REQUIRE(tocha_interp_get_global(in.I, "code", &v) == TOCHA_OK);
  run(in.I, v.string);
  run(in.I, "assert(copied == text)");
}
