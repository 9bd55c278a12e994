// Vector-Jacobian products of the statistics ops of core/ops/stats.cpp: amax/amin (the gradient
// split evenly among the elements equal to the result, as PyTorch), cummax/cummin (back to the
// indices where the running extreme was taken) and logcumsumexp.
// Node layout: amax/amin: attrs.i[0] the mask of reduced dims, i[2] keepdim, saved x and y;
// cummax/cummin: run_values_indices' layout (i[0] the dim's mask, i[3] the index base, saved
// x, values, indices); logcumsumexp: attrs.i[0] the dim, saved x and y.
#include <cmath>
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/flip.h"
#include "core/ops/index_scatter.h"
#include "core/ops/reduce.h"
#include "core/ops/stats.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {

// y (a result reduced over mask) with the reduced dims put back as size 1.
Tensor kept_dims(const Node& n, const Tensor& y) {
  if (n.attrs.i[2]) return y;
  return reshape(y, reduced_shape(n.inputs[0].shape, uint32_t(n.attrs.i[0]), true));
}

Grads even_split(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0), y = n.saved_tensor(1);
  const uint32_t dims = uint32_t(n.attrs.i[0]);
  Tensor hit = mask(OpId::eq, x, kept_dims(n, y), g[0].dtype());
  Tensor count = sum_dims(hit, dims, true);
  return {div(mul(hit, kept_dims(n, g[0])), count)};
}

Grads to_indices(Node& n, const Grads& g) {
  const DimVec& s = n.inputs[0].shape;
  if (s.empty()) return {reshape(g[0], s)};
  int d = 0;
  while (d < kMaxDims && !(uint64_t(n.attrs.i[0]) & (uint64_t(1) << d))) ++d;
  return {scatter_add(zeros(s, g[0].dtype(), g[0].device()), d, n.saved_tensor(2), g[0], n.attrs.i[3])};
}

}  // namespace

Grads vjp_amax(Node& n, const Grads& g) { return even_split(n, g); }
Grads vjp_amin(Node& n, const Grads& g) { return even_split(n, g); }
Grads vjp_cummax(Node& n, const Grads& g) { return to_indices(n, g); }
Grads vjp_cummin(Node& n, const Grads& g) { return to_indices(n, g); }

// Note [logcumsumexp gradient]: dx_j = sum_{i >= j} g_i exp(x_j - y_i). Split g into its positive
// and negative parts and sum each in log space with a reversed logcumsumexp, as PyTorch does:
// dx = exp(x + rlcse(log g+ - y)) - exp(x + rlcse(log g- - y)), finite however far x ranges, and
// written with logcumsumexp itself so it can be differentiated again.
Grads vjp_logcumsumexp(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0), y = n.saved_tensor(1);
  const int d = int(n.attrs.i[0]);
  if (x.dim() == 0) return {g[0]};
  // log|g| - y, computed where g != 0 only (log 0 would put 0 * inf into a second derivative)
  Tensor zero = binary(OpId::eq, g[0], Scalar(0.0));
  Tensor one = full_like_scalar(1, g[0].dtype(), g[0].device());
  Tensor lag = sub(log(where(zero, one, unary(OpId::abs, g[0]))), y);
  Tensor ninf = full_like_scalar(-INFINITY, g[0].dtype(), g[0].device());
  // masked entries are exactly -inf (never -inf - y), so a sum of nothing is exp(-inf) = 0
  auto part = [&](OpId cmp) {
    Tensor lg = where(binary(cmp, g[0], Scalar(0.0)), lag, ninf);
    Tensor rev = flip(logcumsumexp(flip(lg, DimVec{d}), d), DimVec{d});
    return exp(add(x, rev));
  };
  return {sub(part(OpId::gt), part(OpId::lt))};
}

}  // namespace autograd
}  // namespace tocha
