// Layer normalization kernels against naive f64 references: forward over the last 1-3 dims with
// and without weight and bias, rows split over threads, large means, the backward against an
// explicit Jacobian with parameter gradients summed over many row blocks, and errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include "core/ops/norm.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

using namespace tocha;

namespace {

Tensor make(const DimVec& sizes, DType dt, uint32_t seed, double offset = 0) {
  Tensor t = empty(sizes, DType::f64);
  uint32_t s = seed * 2654435761u + 3u;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<double>()[i] = double(s >> 8) / double(1u << 22) - 2 + offset;
  }
  return to_dtype(t, dt);
}
std::vector<double> vals(const Tensor& t) {
  std::vector<double> v(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = item_at(t, i);
  return v;
}
void check_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(tol).epsilon(tol));
}

// Two-pass f64 layer norm of rows of k values.
std::vector<double> ref_forward(const Tensor& x, int64_t k, const Tensor& w, const Tensor& b, double eps,
                                std::vector<double>* mean, std::vector<double>* invstd) {
  std::vector<double> xv = vals(x), y(xv.size());
  std::vector<double> wv = w.defined() ? vals(w) : std::vector<double>(size_t(k), 1.0);
  std::vector<double> bv = b.defined() ? vals(b) : std::vector<double>(size_t(k), 0.0);
  for (size_t r = 0; r * size_t(k) < xv.size(); ++r) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < k; ++i) m += xv[r * size_t(k) + size_t(i)];
    m /= double(k);
    for (int64_t i = 0; i < k; ++i) v += std::pow(xv[r * size_t(k) + size_t(i)] - m, 2);
    double is = 1 / std::sqrt(v / double(k) + eps);
    for (int64_t i = 0; i < k; ++i) {
      size_t j = r * size_t(k) + size_t(i);
      y[j] = (xv[j] - m) * is * wv[size_t(i)] + bv[size_t(i)];
    }
    if (mean) mean->push_back(m);
    if (invstd) invstd->push_back(is);
  }
  return y;
}

}  // namespace

TEST_CASE("layer norm forward matches the f64 reference", "[norm]") {
  const DimVec shapes[] = {{5, 7}, {3, 4, 6}, {2, 3, 2, 5}, {9}};
  for (DType dt : {DType::f32, DType::f64}) {
    const double tol = dt == DType::f32 ? 2e-5 : 1e-12;
    for (const DimVec& s : shapes) {
      for (int nd = 1; nd <= std::min(3, s.size()); ++nd) {
        for (int affine = 0; affine < 2; ++affine) {
          INFO("shape " << shape_str(s) << " ndims " << nd << " dtype " << dtype_name(dt) << " affine " << affine);
          DimVec ns(s.data() + (s.size() - nd), nd);
          Tensor x = make(s, dt, 1, 3), w = affine ? make(ns, dt, 2) : Tensor(), b = affine ? make(ns, dt, 3) : Tensor();
          std::vector<double> mean, invstd;
          std::vector<double> want = ref_forward(x, shape_numel(ns), w, b, 1e-4, &mean, &invstd);
          LayerNormResult r = layer_norm_stats(x, nd, w, b, 1e-4);
          check_close(vals(r.output), want, tol);
          check_close(vals(r.save_mean), mean, tol);
          check_close(vals(r.save_invstd), invstd, tol);
          // Strided input and output.
          Tensor xt = transpose(clone(transpose(x, 0, x.dim() - 1)), 0, x.dim() - 1);
          Tensor out = transpose(empty(transpose(x, 0, x.dim() - 1).sizes(), dt), 0, x.dim() - 1);
          Tensor sm = empty({0}, dt), si = empty({0}, dt);
          layer_norm_out(out, sm, si, xt, nd, w, b, 1e-4);
          check_close(vals(out), want, tol);
        }
      }
    }
  }
}

TEST_CASE("layer norm splits rows over threads and keeps large means accurate", "[norm]") {
  Tensor x = make({3000, 64}, DType::f32, 5, 1000);
  Tensor w = make({64}, DType::f32, 6);
  std::vector<double> want = ref_forward(x, 64, w, Tensor(), 1e-5, nullptr, nullptr);
  check_close(vals(layer_norm(x, 1, w, Tensor(), 1e-5)), want, 2e-3);
}

TEST_CASE("layer norm backward matches the explicit Jacobian and accumulates with scale", "[norm]") {
  for (DType dt : {DType::f32, DType::f64}) {
    const double tol = dt == DType::f32 ? 1e-4 : 1e-10;
    // 300 rows: the parameter gradients are summed over several row blocks.
    for (DimVec s : {DimVec{4, 5}, DimVec{2, 3, 4}, DimVec{300, 6}}) {
      INFO("shape " << shape_str(s) << " dtype " << dtype_name(dt));
      const int nd = s.size() == 3 ? 2 : 1;
      DimVec ns(s.data() + (s.size() - nd), nd);
      const int64_t k = shape_numel(ns), m = shape_numel(s) / k;
      Tensor x = make(s, dt, 11), g = make(s, dt, 12), w = make(ns, dt, 13);
      LayerNormResult f = layer_norm_stats(x, nd, w, Tensor(), 1e-3);
      std::vector<double> xv = vals(x), gv = vals(g), wv = vals(w), mu = vals(f.save_mean), is = vals(f.save_invstd);
      std::vector<double> gi(xv.size(), 0), gw(size_t(k), 0), gb(size_t(k), 0);
      for (int64_t r = 0; r < m; ++r) {
        for (int64_t i = 0; i < k; ++i) {
          size_t a = size_t(r * k + i);
          double xa = (xv[a] - mu[size_t(r)]) * is[size_t(r)];
          gw[size_t(i)] += gv[a] * xa;
          gb[size_t(i)] += gv[a];
          for (int64_t j = 0; j < k; ++j) {  // dy_j / dx_i
            size_t c = size_t(r * k + j);
            double xc = (xv[c] - mu[size_t(r)]) * is[size_t(r)];
            double d = (i == j ? 1.0 : 0.0) - 1.0 / double(k) - xa * xc / double(k);
            gi[a] += gv[c] * wv[size_t(j)] * is[size_t(r)] * d;
          }
        }
      }
      NormGrads r = layer_norm_backward(g, x, nd, w, f.save_mean, f.save_invstd, true, true, true);
      check_close(vals(r.grad_input), gi, tol);
      check_close(vals(r.grad_weight), gw, tol * 10);
      check_close(vals(r.grad_bias), gb, tol * 10);
      Tensor acc_w = full(ns, 2.0, dt);
      layer_norm_backward_out(Tensor(), acc_w, Tensor(), g, x, nd, w, f.save_mean, f.save_invstd, -0.5);
      for (double& v : gw) v = 2 - 0.5 * v;
      check_close(vals(acc_w), gw, tol * 10);
      Tensor gin = clone(g);  // gradInput written over gradOutput
      layer_norm_backward_out(gin, Tensor(), Tensor(), gin, x, nd, w, f.save_mean, f.save_invstd, 1);
      check_close(vals(gin), gi, tol);
    }
  }
}

TEST_CASE("layer norm front-ends reject bad input with clear messages", "[norm]") {
  Tensor x = zeros({4, 3}, DType::f32);
  CHECK_THROWS_WITH(layer_norm(x, 3, Tensor(), Tensor(), 1e-5),
                    "[layerNorm] cannot normalize over the last 3 dims of a tensor of size 4x3");
  CHECK_THROWS_WITH(layer_norm(x, 1, zeros({4}, DType::f32), Tensor(), 1e-5),
                    "[layerNorm] weight and bias must have size 3, got 4");
  CHECK_THROWS_WITH(layer_norm(x, 1, Tensor(), zeros({3}, DType::f64), 1e-5),
                    "[layerNorm] bias is a torch.DoubleTensor but the input is a torch.FloatTensor");
  CHECK_THROWS_WITH(layer_norm(zeros({4, 3}, DType::i32), 1, Tensor(), Tensor(), 1e-5),
                    "[layerNorm] expected a floating-point tensor, got a torch.IntTensor");
  CHECK_THROWS_WITH(layer_norm(x, 1, Tensor(), Tensor(), NAN), "[layerNorm] eps must be finite and >= 0, got nan");
  Tensor s = empty({4}, DType::f32);
  CHECK_THROWS_WITH(layer_norm_out(empty({4, 3}, DType::f32), s, s, x, 1, Tensor(), Tensor(), 1e-5),
                    "[layerNorm] save_mean and save_invstd must not share memory");
  CHECK_THROWS_WITH(layer_norm_backward(x, x, 1, Tensor(), zeros({3}, DType::f32), s, true, true, true),
                    "[layerNormBackward] save_mean must be a vector of 4 elements (one per normalized row), got size 3");
  CHECK_THROWS_WITH(layer_norm_backward(zeros({3, 4}, DType::f32), x, 1, Tensor(), s, s, true, true, true),
                    "[layerNormBackward] gradOutput must have the input's size 4x3, got size 3x4");
}
