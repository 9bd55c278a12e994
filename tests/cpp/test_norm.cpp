// Batch normalization kernels against naive f64 references: training and evaluation, running
// statistics, the N x C (row) and N x C x L (channel) paths, inputs split over threads, large
// means, strided and aliasing operands, the backward against an explicit Jacobian, and errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include "core/ops/norm.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

using namespace tocha;

namespace {

// Deterministic values in [-2, 2) + offset, as an f64 tensor converted to dt.
Tensor make(const DimVec& sizes, DType dt, uint32_t seed, double offset = 0) {
  Tensor t = empty(sizes, DType::f64);
  uint32_t s = seed * 2654435761u + 7u;
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
int64_t inner(const Tensor& x) {
  int64_t l = 1;
  for (int d = 2; d < x.dim(); ++d) l *= x.size(d);
  return l;
}

struct BnRef {
  std::vector<double> y, mean, invstd, rm, rv;
};
// Two-pass f64 batch norm; rm and rv are the running statistics before the call.
BnRef ref_forward(const Tensor& x, const Tensor& w, const Tensor& b, std::vector<double> rm, std::vector<double> rv,
                bool training, double momentum, double eps) {
  const int64_t N = x.size(0), C = x.size(1), L = inner(x), M = N * L;
  std::vector<double> xv = vals(x);
  BnRef r;
  r.y.resize(xv.size());
  for (int64_t c = 0; c < C; ++c) {
    double mu = 0, var = 0;
    if (training) {
      for (int64_t n = 0; n < N; ++n)
        for (int64_t l = 0; l < L; ++l) mu += xv[size_t((n * C + c) * L + l)];
      mu /= double(M);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t l = 0; l < L; ++l) var += std::pow(xv[size_t((n * C + c) * L + l)] - mu, 2);
      if (!rm.empty()) {
        rm[size_t(c)] = (1 - momentum) * rm[size_t(c)] + momentum * mu;
        rv[size_t(c)] = (1 - momentum) * rv[size_t(c)] + momentum * var / double(M - 1);
      }
      var /= double(M);
    } else {
      mu = rm[size_t(c)];
      var = rv[size_t(c)];
    }
    double is = 1 / std::sqrt(var + eps);
    double wc = w.defined() ? item_at(w, c) : 1, bc = b.defined() ? item_at(b, c) : 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t l = 0; l < L; ++l) {
        size_t i = size_t((n * C + c) * L + l);
        r.y[i] = (xv[i] - mu) * is * wc + bc;
      }
    r.mean.push_back(mu);
    r.invstd.push_back(is);
  }
  r.rm = rm;
  r.rv = rv;
  return r;
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) REQUIRE(got[i] == Approx(want[i]).margin(tol).epsilon(tol));
}

}  // namespace

TEST_CASE("batch norm forward matches the f64 reference", "[norm]") {
  const DimVec shapes[] = {{5, 3}, {4, 3, 7}, {2, 3, 2, 3}, {3, 2, 1, 2, 2}};
  for (DType dt : {DType::f32, DType::f64}) {
    const double tol = dt == DType::f32 ? 2e-5 : 1e-12;
    for (const DimVec& s : shapes) {
      for (int affine = 0; affine < 2; ++affine) {
        for (int training = 0; training < 2; ++training) {
          INFO("shape " << shape_str(s) << " dtype " << dtype_name(dt) << " affine " << affine << " training "
                        << training);
          Tensor x = make(s, dt, 1);
          int64_t C = s[1];
          Tensor w = affine ? make({C}, dt, 2) : Tensor(), b = affine ? make({C}, dt, 3) : Tensor();
          Tensor rm = make({C}, dt, 4), rv = binary(OpId::add, make({C}, dt, 5, 2), Scalar(0.5));
          BnRef ref = ref_forward(x, w, b, vals(rm), vals(rv), training, 0.3, 1e-3);
          BatchNormResult r = batch_norm(x, w, b, rm, rv, training, 0.3, 1e-3);
          check_close(vals(r.output), ref.y, tol);
          check_close(vals(r.save_mean), ref.mean, tol);
          check_close(vals(r.save_invstd), ref.invstd, tol);
          check_close(vals(rm), ref.rm, tol);
          check_close(vals(rv), ref.rv, tol);
        }
      }
    }
  }
}

TEST_CASE("batch norm without running statistics uses the batch and leaves nothing behind", "[norm]") {
  Tensor x = make({6, 4, 5}, DType::f64, 9);
  BatchNormResult r = batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
  BnRef ref = ref_forward(x, Tensor(), Tensor(), {}, {}, true, 0.1, 1e-5);
  check_close(vals(r.output), ref.y, 1e-12);
}

TEST_CASE("batch norm splits channels over threads and keeps large means accurate", "[norm]") {
  // The channel path (L > 1) and the row path (L == 1), each big enough for several tasks.
  for (DimVec s : {DimVec{8, 64, 33, 33}, DimVec{4096, 40}}) {
    Tensor x = make(s, DType::f32, 11, 1000);  // mean ~1000, spread ~1: sum(x^2) would cancel in f32
    Tensor rm = zeros({s[1]}, DType::f32), rv = ones({s[1]}, DType::f32);
    BatchNormResult r = batch_norm(x, Tensor(), Tensor(), rm, rv, true, 0.5, 1e-5);
    BnRef ref = ref_forward(x, Tensor(), Tensor(), vals(zeros({s[1]}, DType::f64)), vals(ones({s[1]}, DType::f64)),
                          true, 0.5, 1e-5);
    check_close(vals(r.output), ref.y, 2e-3);
    check_close(vals(rv), ref.rv, 1e-4);
    check_close(vals(r.save_invstd), ref.invstd, 1e-4);
  }
}

TEST_CASE("batch norm reads strided inputs and writes strided or aliasing outputs", "[norm]") {
  Tensor base = make({3, 5, 4}, DType::f64, 21);
  Tensor x = transpose(clone(transpose(base, 0, 2)), 0, 2);  // same values, non-contiguous
  REQUIRE_FALSE(x.is_contiguous());
  Tensor rm_wide = zeros({8}, DType::f64), rv_wide = ones({8}, DType::f64);
  Tensor rm = narrow(rm_wide, 0, 1, 5), rv = as_strided(zeros({10}, DType::f64), {5}, {2}, 0);
  fill_(rv, 1.0);
  BnRef ref = ref_forward(base, Tensor(), Tensor(), vals(rm), vals(rv), true, 0.2, 1e-5);
  BatchNormResult r = batch_norm(x, Tensor(), Tensor(), rm, rv, true, 0.2, 1e-5);
  check_close(vals(r.output), ref.y, 1e-12);
  check_close(vals(rm), ref.rm, 1e-12);
  check_close(vals(rv), ref.rv, 1e-12);
  REQUIRE(item_at(rm_wide, 0) == 0);  // nothing written outside the view
  // In place (out is x) and into a transposed output.
  Tensor y = clone(base);
  Tensor sm = empty({0}, DType::f64), si = empty({0}, DType::f64);
  batch_norm_out(y, sm, si, y, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
  BnRef plain = ref_forward(base, Tensor(), Tensor(), {}, {}, true, 0.1, 1e-5);
  check_close(vals(y), plain.y, 1e-12);
  REQUIRE(sm.numel() == 5);
  Tensor yt = transpose(empty({4, 5, 3}, DType::f64), 0, 2);
  batch_norm_out(yt, sm, si, base, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
  check_close(vals(yt), plain.y, 1e-12);
}

namespace {
// gi = J^T g from the explicit Jacobian dy_j/dx_i of one channel (an independent route to the
// closed form the kernel uses); gw = sum(g * xhat), gb = sum(g).
void ref_backward(const Tensor& x, const Tensor& g, const Tensor& w, const BnRef& fwd, bool training,
                  std::vector<double>* gi, std::vector<double>* gw, std::vector<double>* gb) {
  const int64_t N = x.size(0), C = x.size(1), L = inner(x), M = N * L;
  std::vector<double> xv = vals(x), gv = vals(g);
  gi->assign(xv.size(), 0);
  gw->assign(size_t(C), 0);
  gb->assign(size_t(C), 0);
  for (int64_t c = 0; c < C; ++c) {
    std::vector<size_t> idx;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t l = 0; l < L; ++l) idx.push_back(size_t((n * C + c) * L + l));
    double is = fwd.invstd[size_t(c)], mu = fwd.mean[size_t(c)], wc = w.defined() ? item_at(w, c) : 1;
    for (size_t j : idx) {
      double xh = (xv[j] - mu) * is;
      (*gw)[size_t(c)] += gv[j] * xh;
      (*gb)[size_t(c)] += gv[j];
    }
    for (size_t i : idx) {
      double s = 0, xi = (xv[i] - mu) * is;
      for (size_t j : idx) {
        double xj = (xv[j] - mu) * is;
        double d = training ? (i == j ? 1.0 : 0.0) - 1.0 / double(M) - xi * xj / double(M) : (i == j ? 1.0 : 0.0);
        s += gv[j] * wc * is * d;
      }
      (*gi)[i] = s;
    }
  }
}
}  // namespace

TEST_CASE("batch norm backward matches the explicit Jacobian and accumulates with scale", "[norm]") {
  for (DType dt : {DType::f32, DType::f64}) {
    const double tol = dt == DType::f32 ? 5e-5 : 1e-11;
    for (DimVec s : {DimVec{6, 3}, DimVec{3, 2, 5}, DimVec{2, 4, 3, 2}}) {
      for (int training = 0; training < 2; ++training) {
        for (int affine = 0; affine < 2; ++affine) {
          INFO("shape " << shape_str(s) << " dtype " << dtype_name(dt) << " training " << training << " affine "
                        << affine);
          Tensor x = make(s, dt, 31), g = make(s, dt, 32);
          Tensor w = affine ? make({s[1]}, dt, 33) : Tensor();
          Tensor rm = make({s[1]}, dt, 34), rv = binary(OpId::add, make({s[1]}, dt, 35, 2), Scalar(0.5));
          BatchNormResult f = batch_norm(x, w, Tensor(), rm, rv, training, 0.1, 1e-3);
          BnRef fwd;
          fwd.mean = vals(f.save_mean);
          fwd.invstd = vals(f.save_invstd);
          std::vector<double> gi, gw, gb;
          ref_backward(x, g, w, fwd, training, &gi, &gw, &gb);
          NormGrads r = batch_norm_backward(g, x, w, f.save_mean, f.save_invstd, training, true, true, true);
          check_close(vals(r.grad_input), gi, tol);
          check_close(vals(r.grad_weight), gw, tol);
          check_close(vals(r.grad_bias), gb, tol);
          // Torch7's form: only some results, accumulated with a scale.
          Tensor acc_w = full({s[1]}, 1.0, dt), acc_b = full({s[1]}, -1.0, dt);
          batch_norm_backward_out(Tensor(), acc_w, acc_b, g, x, w, f.save_mean, f.save_invstd, training, 0.5);
          for (double& v : gw) v = 1 + 0.5 * v;
          for (double& v : gb) v = -1 + 0.5 * v;
          check_close(vals(acc_w), gw, tol);
          check_close(vals(acc_b), gb, tol);
          Tensor gin = empty({0}, dt);
          batch_norm_backward_out(gin, Tensor(), Tensor(), g, x, w, f.save_mean, f.save_invstd, training, 1);
          check_close(vals(gin), gi, tol);
        }
      }
    }
  }
}

TEST_CASE("batch norm backward in place and with the weight as gradWeight", "[norm]") {
  Tensor x = make({5, 3, 2}, DType::f64, 41), g = make({5, 3, 2}, DType::f64, 42), w = make({3}, DType::f64, 43);
  BatchNormResult f = batch_norm(x, w, Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5);
  NormGrads want = batch_norm_backward(g, x, w, f.save_mean, f.save_invstd, true, true, true, false);
  Tensor gi = clone(g);  // gradInput written over gradOutput
  batch_norm_backward_out(gi, Tensor(), Tensor(), gi, x, w, f.save_mean, f.save_invstd, true, 1);
  check_close(vals(gi), vals(want.grad_input), 1e-12);
  // accUpdateGradParameters: weight -= lr * gradWeight, written through the weight itself.
  Tensor w2 = clone(w);
  batch_norm_backward_out(empty({0}, DType::f64), w2, Tensor(), g, x, w2, f.save_mean, f.save_invstd, true, -0.1);
  check_close(vals(w2), vals(binary(OpId::add, w, want.grad_weight, -0.1)), 1e-12);
}

TEST_CASE("batch norm front-ends reject bad input with clear messages", "[norm]") {
  Tensor x = zeros({4, 3}, DType::f32), v3 = zeros({3}, DType::f32), v4 = zeros({4}, DType::f32);
  CHECK_THROWS_WITH(batch_norm(zeros({3}, DType::f32), Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
                    "[batchNorm] expected input of N x C or N x C x ... (at least 2 dims), got size 3");
  CHECK_THROWS_WITH(batch_norm(zeros({4, 3}, DType::i64), Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
                    "[batchNorm] expected a floating-point input, got a torch.LongTensor");
  CHECK_THROWS_WITH(batch_norm(x, v4, Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
                    "[batchNorm] weight must be a vector of 3 elements (one per channel of an input of size 4x3), "
                    "got size 4");
  CHECK_THROWS_WITH(batch_norm(x, zeros({3}, DType::f64), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
                    "[batchNorm] weight is a torch.DoubleTensor but the input is a torch.FloatTensor");
  CHECK_THROWS_WITH(batch_norm(x, Tensor(), Tensor(), v3, Tensor(), true, 0.1, 1e-5),
                    "[batchNorm] running_mean and running_var must be given together");
  CHECK_THROWS_WITH(batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), false, 0.1, 1e-5),
                    Catch::StartsWith("[batchNorm] evaluation mode needs running_mean and running_var"));
  CHECK_THROWS_WITH(batch_norm(zeros({1, 3}, DType::f32), Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
                    "[batchNorm] expected more than 1 value per channel when training, got an input of size 1x3");
  CHECK_THROWS_WITH(batch_norm(x, Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, -1),
                    "[batchNorm] eps must be finite and >= 0, got -1");
  CHECK_THROWS_WITH(batch_norm(zeros({4, 3}, DType::f16), Tensor(), Tensor(), Tensor(), Tensor(), true, 0.1, 1e-5),
                    "[batchNorm] no kernel for cpu/f16");
  CHECK_THROWS_WITH(batch_norm(x, Tensor(), Tensor(), expand(zeros({1}, DType::f32), {3}), ones({3}, DType::f32),
                               true, 0.1, 1e-5),
                    Catch::Contains("overlap"));
  Tensor sm = empty({3}, DType::f32);
  CHECK_THROWS_WITH(batch_norm_out(empty({4, 3}, DType::f32), sm, sm, x, Tensor(), Tensor(), Tensor(), Tensor(), true,
                                   0.1, 1e-5),
                    "[batchNorm] save_mean and save_invstd must not share memory");
  CHECK_THROWS_WITH(batch_norm_backward(zeros({4, 2}, DType::f32), x, Tensor(), v3, v3, true, true, true, true),
                    "[batchNormBackward] gradOutput must have the input's size 4x3, got size 4x2");
  CHECK_THROWS_WITH(batch_norm_backward(x, x, Tensor(), Tensor(), Tensor(), true, true, true, true),
                    Catch::StartsWith("[batchNormBackward] needs the mean and invstd saved by the forward pass"));
}
