// The embedding API as a host sees it (this program links libtocha.so like any host): running
// code, calls with numbers, strings and tensors, globals, zero-copy buffers in both directions,
// Lua errors with tracebacks, bad arguments and freed interpreters, several interpreters on
// several threads, and the C++ wrapper.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

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

TEST_CASE("run code, read globals, call functions", "[embed]") {
  Interp in;
  REQUIRE(in.I != nullptr);
  run(in.I, "answer = 6 * 7; name = 'tocha'; flag = true; function add(a, b) return a + b, 'sum' end");
  tocha_value v;
  REQUIRE(tocha_interp_get_global(in.I, "answer", &v) == TOCHA_OK);
  CHECK(v.type == TOCHA_VALUE_NUMBER);
  CHECK(v.number == 42);
  REQUIRE(tocha_interp_get_global(in.I, "name", &v) == TOCHA_OK);
  CHECK(std::string(v.string) == "tocha");
  REQUIRE(tocha_interp_get_global(in.I, "flag", &v) == TOCHA_OK);
  CHECK(v.type == TOCHA_VALUE_BOOLEAN);
  CHECK(v.boolean == 1);
  REQUIRE(tocha_interp_get_global(in.I, "nothing", &v) == TOCHA_OK);
  CHECK(v.type == TOCHA_VALUE_NIL);

  tocha_value args[2] = {tocha_value_number(2), tocha_value_number(3.5)};
  tocha_value res[3];
  REQUIRE(tocha_interp_call(in.I, "add", args, 2, res, 3) == TOCHA_OK);
  CHECK(res[0].number == 5.5);
  CHECK(std::string(res[1].string) == "sum");
  CHECK(res[2].type == TOCHA_VALUE_NIL);
  // Dotted names reach functions inside tables.
  REQUIRE(tocha_interp_call(in.I, "math.max", args, 2, res, 1) == TOCHA_OK);
  CHECK(res[0].number == 3.5);
  tocha_value s = tocha_value_string("hello");
  REQUIRE(tocha_interp_set_global(in.I, "greeting", &s) == TOCHA_OK);
  run(in.I, "assert(greeting == 'hello')");
}

TEST_CASE("tensors cross without copies in both directions", "[embed]") {
  Interp in;
  run(in.I, "function scale(t, k) t:mul(k) return t:sum(), t end\n"
            "function make() made = torch.range(1, 6):view(2, 3) return made end");
  float host[6] = {1, 2, 3, 4, 5, 6};
  int64_t sizes[2] = {2, 3};
  tocha_tensor* t = tocha_tensor_from_blob(host, 2, sizes, nullptr, TOCHA_DTYPE_F32, nullptr, nullptr);
  REQUIRE(t != nullptr);
  tocha_value args[2] = {tocha_value_tensor(t), tocha_value_number(2)};
  tocha_value res[2];
  REQUIRE(tocha_interp_call(in.I, "scale", args, 2, res, 2) == TOCHA_OK);
  CHECK(res[0].number == 42);
  CHECK(host[5] == 12);  // Lua's in-place write landed in the host buffer
  REQUIRE(res[1].type == TOCHA_VALUE_TENSOR);
  CHECK(tocha_tensor_data(res[1].tensor) == host);
  tocha_value_clear(&res[1]);
  tocha_tensor_release(t);

  REQUIRE(tocha_interp_call(in.I, "make", nullptr, 0, res, 1) == TOCHA_OK);
  tocha_tensor* m = res[0].tensor;
  REQUIRE(m->ndim == 2);
  auto* data = static_cast<float*>(tocha_tensor_data(m));
  CHECK(data[4] == 5);
  data[0] = 100;  // the host writes; Lua sees it
  run(in.I, "assert(made[1][1] == 100, tostring(made[1][1]))");
  tocha_value_clear(&res[0]);
  CHECK(res[0].type == TOCHA_VALUE_NIL);

  // A tensor global set by the host, with a deleter that runs when Lua lets go.
  static int deleted = 0;
  auto* owned = new double[3]{1, 2, 3};
  int64_t n = 3;
  tocha_tensor* o = tocha_tensor_from_blob(owned, 1, &n, nullptr, TOCHA_DTYPE_F64,
                                           [](void* p, void*) { delete[] static_cast<double*>(p); ++deleted; }, nullptr);
  tocha_value ov = tocha_value_tensor(o);
  REQUIRE(tocha_interp_set_global(in.I, "owned", &ov) == TOCHA_OK);
  tocha_tensor_release(o);
  run(in.I, "assert(owned:sum() == 6) owned = nil collectgarbage() collectgarbage()");
  CHECK(deleted == 1);
}

TEST_CASE("errors come back as codes with tracebacks", "[embed]") {
  Interp in;
  CHECK(tocha_interp_run_string(in.I, "local x = nil; x.y = 1", "=script") == TOCHA_ELUA);
  std::string err = tocha_interp_error(in.I);
  CHECK(err.find("script:1:") != std::string::npos);
  CHECK(err.find("stack traceback") != std::string::npos);
  CHECK(tocha_interp_run_string(in.I, "torch.zeros(2, 3):mm(torch.zeros(4, 5))", "=script") == TOCHA_ELUA);
  err = tocha_interp_error(in.I);
  CHECK(err.find("[mm]") != std::string::npos);
  CHECK(err.find("embed.lua") == std::string::npos);
  CHECK(tocha_interp_run_string(in.I, "this is not lua", "=bad") == TOCHA_ELUA);
  CHECK(tocha_interp_run_file(in.I, "/nonexistent/file.lua", 0, nullptr) == TOCHA_ELUA);
  CHECK(std::string(tocha_interp_error(in.I)).find("/nonexistent/file.lua") != std::string::npos);

  tocha_value res;
  CHECK(tocha_interp_call(in.I, "no.such.function", nullptr, 0, &res, 1) == TOCHA_EINVAL);
  CHECK(std::string(tocha_last_error()).find("no global function no.such.function") != std::string::npos);
  run(in.I, "t = {1, 2}");
  CHECK(tocha_interp_get_global(in.I, "t", &res) == TOCHA_EINVAL);
  CHECK(std::string(tocha_last_error()).find("is a table") != std::string::npos);
  CHECK(tocha_interp_run_string(nullptr, "x = 1", nullptr) == TOCHA_EINVAL);
  CHECK(tocha_interp_run_string(in.I, nullptr, nullptr) == TOCHA_EINVAL);
  CHECK(tocha_interp_call(in.I, "print", nullptr, 2, nullptr, 0) == TOCHA_EINVAL);
  tocha_value bad = tocha_value_tensor(nullptr);
  CHECK(tocha_interp_set_global(in.I, "x", &bad) == TOCHA_EINVAL);
  bad.type = 99;
  CHECK(tocha_interp_set_global(in.I, "x", &bad) == TOCHA_EINVAL);
  // The interpreter still works after all that.
  run(in.I, "assert(torch.ones(3):sum() == 3)");

  tocha_interp* gone = tocha_interp_new(nullptr);
  tocha_interp_free(gone);
  CHECK(tocha_interp_run_string(gone, "x = 1", nullptr) == TOCHA_EINVAL);
  CHECK(std::string(tocha_last_error()).find("freed") != std::string::npos);
  tocha_interp_free(gone);  // a second free is harmless
  CHECK(tocha_interp_new("/nonexistent") == nullptr);
  CHECK(std::string(tocha_last_error()).find("TOCHA_LUA_PATH") != std::string::npos);
}

TEST_CASE("interpreters on several threads, tensors passed between them", "[embed]") {
  const int n = 4;
  std::vector<tocha_interp*> interps(n);
  for (auto& I : interps) I = tocha_interp_new(nullptr);
  std::vector<double> sums(n, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < n; ++k) {
    threads.emplace_back([&, k] {
      tocha_interp* I = interps[k];
      tocha_interp_run_string(I, "function work(k) local s = 0 for i = 1, 200 do "
                                 "local a = torch.randn(32, 32) s = s + (a * a:t()):trace() * 0 + k end return s end", nullptr);
      tocha_value arg = tocha_value_number(k), res;
      if (tocha_interp_call(I, "work", &arg, 1, &res, 1) == TOCHA_OK) sums[k] = res.number;
    });
  }
  for (auto& t : threads) t.join();
  for (int k = 0; k < n; ++k) CHECK(sums[k] == 200.0 * k);
  // A tensor made by one interpreter, used by another.
  tocha_value res;
  tocha_interp_run_string(interps[0], "function make() return torch.Tensor({1, 2, 3}) end", nullptr);
  REQUIRE(tocha_interp_call(interps[0], "make", nullptr, 0, &res, 1) == TOCHA_OK);
  tocha_interp_free(interps[0]);
  tocha_value arg = res;
  REQUIRE(tocha_interp_set_global(interps[1], "v", &arg) == TOCHA_OK);
  tocha_value_clear(&res);
  run(interps[1], "assert(v:sum() == 6)");
  for (int k = 1; k < n; ++k) tocha_interp_free(interps[k]);
}

TEST_CASE("autograd with Lua-defined nodes in several interpreters", "[embed]") {
  // nn modules are Lua nodes in the autograd graph: each must call back into its own state.
  const char* code =
      "require 'nn'\n"
      "torch.manualSeed(1)\n"
      "m = nn.Sequential():add(nn.Linear(3, 2)):add(nn.Tanh and nn.Tanh() or nn.ReLU()):double()\n"
      "x = torch.DoubleTensor(4, 3):fill(0.5)\n"
      "function forward() loss = m:forward(x):sum() end\n"
      "function backward() m:zeroGradParameters() loss:backward() return m.modules[1].gradWeight:sum() end\n";
  Interp a, b;
  run(a.I, code);
  run(b.I, code);
  run(b.I, "x:fill(1)");  // different inputs, so different weight gradients
  tocha_value ga, gb, ga2;
  REQUIRE(tocha_interp_call(a.I, "forward", nullptr, 0, nullptr, 0) == TOCHA_OK);
  REQUIRE(tocha_interp_call(b.I, "forward", nullptr, 0, nullptr, 0) == TOCHA_OK);
  REQUIRE(tocha_interp_call(a.I, "backward", nullptr, 0, &ga, 1) == TOCHA_OK);
  INFO(tocha_interp_error(b.I));
  REQUIRE(tocha_interp_call(b.I, "backward", nullptr, 0, &gb, 1) == TOCHA_OK);
  // Interleaving must not matter: a alone gives the same gradient.
  Interp c;
  run(c.I, code);
  run(c.I, "forward()");
  REQUIRE(tocha_interp_call(c.I, "backward", nullptr, 0, &ga2, 1) == TOCHA_OK);
  CHECK(ga.number == ga2.number);
  CHECK(ga.number != gb.number);
}

TEST_CASE("the C++ wrapper", "[embed]") {
  tocha::Interpreter lua;
  lua.run("function affine(x, w, b) return torch.addmv(b, w, x) end");
  std::vector<float> x = {1, 2}, w = {1, 0, 0, 1, 1, 1}, b = {0.5f, 0.5f, 0.5f};
  auto y = lua.call("affine", {tocha::Tensor::from_blob(x.data(), {2}), tocha::Tensor::from_blob(w.data(), {3, 2}),
                               tocha::Tensor::from_blob(b.data(), {3})});
  const float* out = y[0].tensor().data<float>();
  CHECK(out[0] == 1.5f);
  CHECK(out[1] == 2.5f);
  CHECK(out[2] == 3.5f);
  lua.set("k", 3.0);
  CHECK(lua.get("k").number() == 3.0);
  CHECK_THROWS_AS(lua.run("error('boom')"), tocha::Error);
  try {
    lua.run("error('boom')", "=wrapped");
  } catch (const tocha::Error& e) {
    CHECK(e.code() == TOCHA_ELUA);
    CHECK(std::string(e.what()).find("wrapped:1: boom") != std::string::npos);
  }
  CHECK_THROWS_AS(lua.get("k").string(), tocha::Error);
}
