// Fused optimizer updates (core/ops/optim.h): f32/f64 results against naive loops on inputs
// large enough to split across threads, strided and f16 operands through staging (same bits as
// contiguous float), the C ABI, and the checks on operands and options.
#include <catch2/catch.hpp>
#include <cmath>
#include "core/ops/optim.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "tocha.h"

using namespace tocha;

namespace {

// Deterministic values in [-1, 1) (multiples of 1/1024, exact in f16).
Tensor values(int64_t n, uint32_t seed, DType dt = DType::f64, double offset = 0) {
  Tensor t = empty({n}, DType::f64);
  uint32_t s = seed * 2654435761u + 7u;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<double>()[i] = std::floor(double(s >> 8) / double(1u << 24) * 2048) / 1024 - 1 + offset;
  }
  return to_dtype(t, dt);
}

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = contiguous(to_dtype(a, DType::f64)), y = contiguous(to_dtype(b, DType::f64));
  if (x.numel() != y.numel()) return false;
  for (int64_t i = 0; i < x.numel(); ++i)
    if (x.data<double>()[i] != y.data<double>()[i]) return false;
  return true;
}

template <class T> void sgd_matches_naive(DType dt) {
  const int64_t n = 100003;  // several grains: parallel chunks with ragged ends
  Tensor p = values(n, 1, dt), g = values(n, 2, dt), buf = zeros({n}, dt);
  std::vector<T> rp(p.data<T>(), p.data<T>() + n), rb(n);
  SgdOptions o;
  o.lr = 0.1, o.momentum = 0.9, o.dampening = 0, o.weight_decay = 0.01, o.nesterov = true;
  for (int step = 0; step < 3; ++step) {
    o.first_step = step == 0;
    sgd_step(p, g, &buf, nullptr, nullptr, o);
    for (int64_t i = 0; i < n; ++i) {
      T d = g.data<T>()[i] + T(0.01) * rp[i];
      T b = step == 0 ? d : rb[i] * T(0.9) + T(1) * d;
      rb[i] = b;
      d = d + T(0.9) * b;
      rp[i] = rp[i] - T(0.1) * d;
    }
  }
  double tol = dt == DType::f32 ? 1e-6 : 1e-14;
  for (int64_t i = 0; i < n; i += 997) {
    REQUIRE(p.data<T>()[i] == Approx(rp[i]).epsilon(tol).margin(tol));
    REQUIRE(buf.data<T>()[i] == Approx(rb[i]).epsilon(tol).margin(tol));
  }
}

}  // namespace

TEST_CASE("sgd step matches a naive loop in f32 and f64", "[optim]") {
  sgd_matches_naive<float>(DType::f32);
  sgd_matches_naive<double>(DType::f64);
}

TEST_CASE("adam step follows Torch7's and PyTorch's epsilon placements", "[optim]") {
  for (int mode = 0; mode < 2; ++mode) {
    Tensor p = values(1000, 3), g = values(1000, 4), m = zeros({1000}, DType::f64), v = zeros({1000}, DType::f64);
    Tensor vmax = zeros({1000}, DType::f64);
    std::vector<double> rp(p.data<double>(), p.data<double>() + 1000), rm(1000, 0), rv(1000, 0), rvm(1000, 0);
    AdamOptions o;
    o.lr = 0.01, o.beta1 = 0.8, o.beta2 = 0.9, o.eps = 1e-3, o.weight_decay = 0.1, o.decoupled = true, o.eps_mode = mode;
    for (int k = 1; k <= 4; ++k) {
      o.step = k;
      adam_step(p, g, m, v, &vmax, o);
      double bc1 = 1 - std::pow(0.8, k), bc2 = 1 - std::pow(0.9, k);
      for (int i = 0; i < 1000; ++i) {
        double gi = g.data<double>()[i];
        rp[i] *= 1 - 0.01 * 0.1;
        rm[i] = 0.8 * rm[i] + 0.2 * gi;
        rv[i] = 0.9 * rv[i] + 0.1 * gi * gi;
        rvm[i] = std::max(rvm[i], rv[i]);
        double denom = mode == 0 ? std::sqrt(rvm[i]) + 1e-3 : std::sqrt(rvm[i] / bc2) + 1e-3;
        double step = mode == 0 ? 0.01 * std::sqrt(bc2) / bc1 : 0.01 / bc1;
        rp[i] -= step * rm[i] / denom;
      }
    }
    for (int i = 0; i < 1000; ++i) REQUIRE(p.data<double>()[i] == Approx(rp[i]).epsilon(1e-13));
  }
}

TEST_CASE("strided and f16 operands give the bits of contiguous float", "[optim]") {
  // Reference: contiguous f32 operands.
  Tensor p0 = values(42, 5, DType::f32), g0 = values(42, 6, DType::f32);
  Tensor m0 = zeros({42}, DType::f32), v0 = zeros({42}, DType::f32);
  AdamOptions o;
  o.lr = 0.05;
  for (int k = 1; k <= 3; ++k) {
    o.step = k;
    adam_step(p0, g0, m0, v0, nullptr, o);
  }
  // The parameter and first moment as transposed views, the gradient in f64.
  Tensor pt = transpose(zeros({7, 6}, DType::f32), 0, 1), mt = transpose(zeros({7, 6}, DType::f32), 0, 1);
  REQUIRE(!pt.is_contiguous());
  copy_(pt, view(values(42, 5, DType::f32), {6, 7}));
  Tensor g64 = view(values(42, 6, DType::f64), {6, 7}), v = zeros({6, 7}, DType::f32);
  for (int k = 1; k <= 3; ++k) {
    o.step = k;
    adam_step(pt, g64, mt, v, nullptr, o);
  }
  REQUIRE(same_bits(reshape(pt, {42}), p0));
  REQUIRE(same_bits(reshape(mt, {42}), m0));
  // f16 parameter and gradient: computed in float, stored back rounded.
  Tensor ph = values(42, 5, DType::f16), gh = values(42, 6, DType::f16);
  Tensor mh = zeros({42}, DType::f32), vh = zeros({42}, DType::f32);
  Tensor pf = to_dtype(ph, DType::f32), mf = zeros({42}, DType::f32), vf = zeros({42}, DType::f32);
  o.step = 1;
  adam_step(ph, gh, mh, vh, nullptr, o);
  adam_step(pf, to_dtype(gh, DType::f32), mf, vf, nullptr, o);
  REQUIRE(ph.dtype() == DType::f16);
  REQUIRE(same_bits(ph, to_dtype(pf, DType::f16)));
  REQUIRE(same_bits(mh, mf));
}

TEST_CASE("fused updates through the C ABI", "[optim]") {
  tocha_tensor* p = values(5, 7).release();
  tocha_tensor* g = values(5, 8).release();
  tocha_tensor* sum = zeros({5}, DType::f64).release();
  Tensor before = clone(Tensor::share(p));
  REQUIRE(tocha_optim_adagrad_step(p, g, sum, 0.1, 1e-10, 0) == 0);
  Tensor after = Tensor::share(p), gt = Tensor::share(g);
  for (int i = 0; i < 5; ++i) {
    double gi = gt.data<double>()[i];
    double want = before.data<double>()[i] - 0.1 * gi / (std::fabs(gi) + 1e-10);
    REQUIRE(after.data<double>()[i] == Approx(want).epsilon(1e-14));
  }
  REQUIRE(tocha_optim_sgd_step(p, g, nullptr, -1, 0, 0, 0, 0, 0, nullptr, nullptr) == -1);
  REQUIRE(std::string(tocha_last_error()) == "[sgdStep] invalid learning rate: -1");
  REQUIRE(tocha_optim_sgd_step(p, nullptr, nullptr, 0.1, 0, 0, 0, 0, 0, nullptr, nullptr) == -1);
  REQUIRE(tocha_optim_rprop_step(p, g, sum, sum, 1.2, 0.5, 1e-6, 50) == -1);
  REQUIRE(std::string(tocha_last_error()).find("share memory") != std::string::npos);
  tocha_tensor_release(p);
  tocha_tensor_release(g);
  tocha_tensor_release(sum);
}

TEST_CASE("fused updates check their operands and options", "[optim]") {
  Tensor p = values(4, 1), g = values(4, 2), buf = zeros({4}, DType::f64);
  SgdOptions o;
  o.lr = 0.1;
  auto fails = [&](auto&& f, const char* what) {
    try {
      f();
      FAIL("no error, expected: " << what);
    } catch (const Error& e) {
      INFO(e.what());
      REQUIRE(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  fails([&] { sgd_step(p, values(5, 2), nullptr, nullptr, nullptr, o); }, "grad has 5 elements but param has 4");
  fails([&] { sgd_step(to_dtype(p, DType::i64), g, nullptr, nullptr, nullptr, o); }, "floating-point tensor");
  fails([&] { sgd_step(expand(values(1, 1), {4}), g, nullptr, nullptr, nullptr, o); }, "overlap");
  Tensor before = clone(p);
  sgd_step(p, narrow(p, 0, 0, 4), nullptr, nullptr, nullptr, o);  // the gradient aliasing the parameter exactly
  REQUIRE(p.data<double>()[1] == Approx(before.data<double>()[1] * 0.9).epsilon(1e-15));
  SgdOptions m = o;
  m.momentum = 0.9;
  fails([&] { sgd_step(p, g, nullptr, nullptr, nullptr, m); }, "needs a momentum buffer");
  fails([&] { sgd_step(p, g, &p, nullptr, nullptr, m); }, "share memory");
  Tensor wide = values(8, 3);
  fails([&] { sgd_step(narrow(wide, 0, 0, 4), narrow(wide, 0, 2, 4), nullptr, nullptr, nullptr, o); }, "overlap partially");
  m.nesterov = true;
  m.dampening = 0.5;
  fails([&] { sgd_step(p, g, &buf, nullptr, nullptr, m); }, "Nesterov");
  AdamOptions a;
  a.beta2 = 1;
  Tensor s1 = zeros({4}, DType::f64), s2 = zeros({4}, DType::f64);
  fails([&] { adam_step(p, g, s1, s2, nullptr, a); }, "invalid beta2: 1");
  a.beta2 = 0.999;
  a.step = 0;
  fails([&] { adam_step(p, g, s1, s2, nullptr, a); }, "step count must be at least 1");
  // a value with autograd history is not a parameter
  tocha_tensor* leaf = values(4, 9).release();
  REQUIRE(tocha_tensor_set_requires_grad(leaf, 1) == 0);
  tocha_tensor* y = tocha_mul_scalar(leaf, 2.0);
  REQUIRE(y);
  fails([&] { sgd_step(Tensor::share(y), g, nullptr, nullptr, nullptr, o); }, "has autograd history");
  sgd_step(Tensor::share(leaf), g, nullptr, nullptr, nullptr, o);  // a leaf that requires grad: fine
  tocha_tensor_release(y);
  tocha_tensor_release(leaf);
}
