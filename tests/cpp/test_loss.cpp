// The fused class-loss kernels (core/ops/loss.h) against naive f64 references: f32 and f64,
// weights, ignored targets, sum and mean, a vector input, a transposed (non-contiguous) input,
// batches large enough to split over threads, and the errors for bad targets and weights.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include "core/error.h"
#include "core/ops/loss.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

using namespace tocha;

namespace {

Tensor scores(int64_t n, int64_t c, DType dt, uint32_t seed) {
  Tensor t = empty(DimVec{n, c}, DType::f64);
  double* p = t.data<double>();
  for (int64_t i = 0; i < n * c; ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = double(seed >> 8) / double(1u << 24) * 8 - 4;
  }
  return to_dtype(t, dt);
}

Tensor targets(int64_t n, int64_t c, int64_t base) {
  Tensor t = empty(DimVec{n}, DType::i64);
  for (int64_t i = 0; i < n; ++i) t.data<int64_t>()[i] = (i * 7 + 3) % c + base;
  return t;
}

double at(const Tensor& t, int64_t i, int64_t j) { return item_at(t, i * t.size(1) + j); }

// loss and gradient (times g) by the definitions, in f64.
void reference(bool ce, const Tensor& x, const Tensor& t, const ClassLossOptions& o, double g, double* loss,
               std::vector<double>* grad) {
  const int64_t n = x.size(0), c = x.size(1);
  double sum = 0, total = 0;
  std::vector<double> coef(size_t(n), 0);
  grad->assign(size_t(n * c), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t ti = t.data<int64_t>()[i];
    if (ti == o.ignore_index) continue;
    ti -= o.index_base;
    double w = o.weight.defined() ? item_at(o.weight, ti) : 1.0, lse = 0, m = -INFINITY;
    for (int64_t j = 0; j < c; ++j) m = std::max(m, at(x, i, j));
    for (int64_t j = 0; j < c; ++j) lse += std::exp(at(x, i, j) - m);
    lse = m + std::log(lse);
    sum += w * ((ce ? lse : 0) - at(x, i, ti));
    total += w;
    coef[size_t(i)] = w;
    for (int64_t j = 0; j < c; ++j)
      (*grad)[size_t(i * c + j)] = (ce ? std::exp(at(x, i, j) - lse) : 0) - (j == ti ? 1 : 0);
  }
  double norm = o.size_average && total != 0 ? total : 1;
  *loss = sum / norm;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < c; ++j) (*grad)[size_t(i * c + j)] *= coef[size_t(i)] * g / norm;
}

void check_case(bool ce, const Tensor& x, const Tensor& t, const ClassLossOptions& o, double tol) {
  double loss;
  std::vector<double> grad;
  reference(ce, to_dtype(contiguous(x), DType::f64), t, o, 0.75, &loss, &grad);
  Tensor l = ce ? cross_entropy(x, t, o) : nll_loss(x, t, o);
  CHECK(l.dim() == 0);
  CHECK(item_at(l, 0) == Approx(loss).epsilon(tol).margin(tol));
  Tensor gi = ce ? cross_entropy_backward(0.75, x, t, o) : nll_loss_backward(0.75, x, t, o);
  REQUIRE(gi.sizes() == x.sizes());
  Tensor gc = contiguous(gi);
  for (int64_t k = 0; k < x.numel(); ++k) CHECK(item_at(gc, k) == Approx(grad[size_t(k)]).margin(tol));
}

}  // namespace

TEST_CASE("class losses match the definitions", "[loss]") {
  for (DType dt : {DType::f64, DType::f32}) {
    const double tol = dt == DType::f64 ? 1e-12 : 1e-5;
    for (bool ce : {true, false}) {
      Tensor x = scores(6, 5, dt, 3);
      Tensor t = targets(6, 5, 1);
      ClassLossOptions o;
      o.index_base = 1;
      check_case(ce, x, t, o, tol);
      o.size_average = false;
      check_case(ce, x, t, o, tol);
      o.size_average = true;
      o.weight = to_dtype(scores(1, 5, DType::f64, 9), dt);
      o.weight = view(binary(OpId::add, unary(OpId::abs, o.weight), Scalar(0.1)), DimVec{5});
      check_case(ce, x, t, o, tol);
      o.ignore_index = item_at(t, 2);  // every row with that class is skipped
      check_case(ce, x, t, o, tol);
      // a transposed view of the scores
      Tensor xt = transpose(contiguous(transpose(x, 0, 1)), 0, 1);
      REQUIRE(!xt.is_contiguous());
      check_case(ce, xt, t, o, tol);
    }
  }
}

TEST_CASE("class losses split large batches over threads", "[loss]") {
  Tensor x = scores(3000, 37, DType::f64, 5);
  Tensor t = targets(3000, 37, 0);
  ClassLossOptions o;
  check_case(true, x, t, o, 1e-10);
}

TEST_CASE("class losses take a vector as one sample", "[loss]") {
  Tensor x = view(scores(1, 4, DType::f64, 7), DimVec{4});
  Tensor t = full(DimVec{1}, 3, DType::i64);
  ClassLossOptions o;
  o.index_base = 1;
  Tensor l = cross_entropy(x, t, o);
  double m = 0;
  for (int64_t j = 0; j < 4; ++j) m += std::exp(item_at(x, j));
  CHECK(item_at(l, 0) == Approx(std::log(m) - item_at(x, 2)).epsilon(1e-12));
  CHECK(cross_entropy_backward(1, x, t, o).sizes() == x.sizes());
}

TEST_CASE("class losses reject bad targets and weights", "[loss]") {
  Tensor x = scores(3, 4, DType::f32, 1);
  ClassLossOptions o;
  o.index_base = 1;
  Tensor bad = targets(3, 4, 1);
  bad.data<int64_t>()[1] = 5;
  CHECK_THROWS_WITH(cross_entropy(x, bad, o), Catch::Contains("[crossEntropy] target 5 (sample 2) is out of range: classes are 1..4"));
  bad.data<int64_t>()[1] = 0;
  CHECK_THROWS_WITH(nll_loss(x, bad, o), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(nll_loss(x, targets(2, 4, 1), o), Catch::Contains("2 targets for a batch of 3 (target size 2, input size 3x4)"));
  CHECK_THROWS_WITH(nll_loss(x, to_dtype(targets(3, 4, 1), DType::f32), o), Catch::Contains("integer class numbers"));
  CHECK_THROWS_WITH(nll_loss(to_dtype(x, DType::i64), targets(3, 4, 1), o), Catch::Contains("floating-point"));
  o.weight = full(DimVec{3}, 1, DType::f32);
  CHECK_THROWS_WITH(nll_loss(x, targets(3, 4, 1), o), Catch::Contains("weights must be a vector of 4"));
  o.weight = full(DimVec{4}, 1, DType::f64);
  CHECK_THROWS_WITH(nll_loss(x, targets(3, 4, 1), o), Catch::Contains("weights are a torch.DoubleTensor"));
  CHECK_THROWS_WITH(nll_loss(scores(2, 2, DType::f32, 1), targets(2, 2, 1), ClassLossOptions{}),
                    Catch::Contains("out of range: classes are 0..1"));
}
