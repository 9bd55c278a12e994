// Vector-Jacobian products of reductions, scans and selections.
// Node layout (set by the front-ends in core/ops/reduce*.cpp, reduce_iter.cpp, scan.cpp):
//   reductions, selections, sort/topk: attrs.i[0] the mask of reduced dims (bit d for dim d; all
//   dims for a reduction over every element), i[2] keepdim, i[3] the index base of saved indices;
//   scans and cross: attrs.i[0] the dim. attrs.d[0] p (norm/dist) or the correction (var/std).
//   saved[0] the input, saved[1] the output, saved[2] the indices or the second input.
#include <cmath>
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/flip.h"
#include "core/ops/index.h"
#include "core/ops/join.h"
#include "core/ops/index_scatter.h"
#include "core/ops/reduce.h"
#include "core/ops/scan.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {

uint32_t mask_of(const Node& n) { return uint32_t(n.attrs.i[0]); }
const DimVec& in_shape(const Node& n) { return n.inputs[0].shape; }
bool keepdim(const Node& n) { return n.attrs.i[2] != 0; }
// The one reduced dim of a selection, sort or topk (0 for a 0-dim input).
int dim_of(const Node& n) {
  for (int d = 0; d < kMaxDims; ++d)
    if (mask_of(n) & (1u << d)) return d;
  return 0;
}
// The scan dim.
int scan_dim(const Node& n) { return int(n.attrs.i[0]); }

// The reduced result y reshaped so it broadcasts against the input (size 1 on reduced dims).
Tensor kept(const Node& n, Tensor y) {
  const DimVec& s = in_shape(n);
  if (keepdim(n)) return y;
  DimVec k = s;
  for (int d = 0; d < s.size(); ++d)
    if (mask_of(n) & (1u << d)) k[d] = 1;
  return reshape(y, k);
}
// g (the gradient of a reduced result) broadcast back over the input's shape.
Tensor expand_back(const Node& n, const Tensor& g) { return expand(kept(n, g), in_shape(n)); }
int64_t reduced_count(const Node& n) {
  int64_t c = 1;
  for (int d = 0; d < in_shape(n).size(); ++d)
    if (mask_of(n) & (1u << d)) c *= in_shape(n)[d];
  return c;
}
bool over_all(const Node& n) {
  for (int d = 0; d < in_shape(n).size(); ++d)
    if (!(mask_of(n) & (1u << d))) return false;
  return true;
}
// Scatters the gradient of selected elements (values + indices along dim) into zeros.
Tensor scatter_back(Node& n, const Tensor& g) {
  if (in_shape(n).empty()) return reshape(g, in_shape(n));
  Tensor idx = n.saved_tensor(2);
  int d = dim_of(n);
  Tensor gg = g, ii = idx;
  if (!keepdim(n) && gg.dim() < int(in_shape(n).size())) {
    gg = unsqueeze(gg, d);
    ii = unsqueeze(ii, d);
  }
  return scatter_add(zeros(in_shape(n), g.dtype(), g.device()), d, ii, gg, n.attrs.i[3]);
}
// Reverses dim d (core/ops/flip.h: index_select with descending indices).
Tensor flip_dim(const Tensor& t, int d) { return flip(t, DimVec{d}); }
// Gradient of the p-norm of x (its value y, broadcastable against x) over the dims in `dims`.
Tensor norm_grad(const Tensor& x, const Tensor& y, double p, const Tensor& g, uint32_t dims) {
  if (p == 0) return zeros_like(x);
  if (p == 1) return mul(g, sign(x));
  if (std::isinf(p)) {
    Tensor hit = mask(OpId::eq, unary(OpId::abs, x), y, x.dtype());
    Tensor count = sum_dims(hit, dims, true);  // ties within a slice share its gradient
    return div(mul(mul(g, sign(x)), hit), count);
  }
  if (p == 2) {
    Tensor safe = where(binary(OpId::eq, y, Scalar(0.0)), zeros_like(y), div(1.0, y));
    return mul(mul(x, g), safe);
  }
  Tensor ax = unary(OpId::abs, x);
  // p < 1: 0^(p - 1) is inf at x = 0, where the gradient is 0 (PyTorch's masked_fill; 0 * inf was NaN)
  Tensor grow = pow(p < 1 ? where(binary(OpId::eq, ax, Scalar(0.0)), full_like_scalar(1.0, ax.dtype(), ax.device()), ax) : ax, p - 1);
  Tensor num = mul(mul(sign(x), grow), g);
  Tensor den = pow(y, p - 1);
  Tensor safe = where(binary(OpId::eq, den, Scalar(0.0)), zeros_like(den), div(1.0, den));
  return mul(num, safe);
}

// The mean over the reduced dims, broadcastable against x.
Tensor centre(const Node& n, const Tensor& x) {
  if (over_all(n)) return reshape(mean(x), DimVec::filled(x.dim(), 1));
  return mean(x, dim_of(n), true);
}

}  // namespace

Grads vjp_sum(Node& n, const Grads& g) { return {expand_back(n, g[0])}; }

Grads vjp_mean(Node& n, const Grads& g) { return {div(expand_back(n, g[0]), double(reduced_count(n)))}; }

// The product of all other elements, as exclusive cumulative products from both sides, so that
// zeros in the input are handled exactly.
Grads vjp_prod(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0);
  int d = dim_of(n);
  Tensor xs = over_all(n) ? reshape(x, {x.numel()}) : x;
  if (over_all(n)) d = 0;
  TOCHA_CHECK(over_all(n) || (mask_of(n) & (mask_of(n) - 1)) == 0, "backward", "prod over several dims");
  if (xs.dim() == 0) return {expand_back(n, g[0])};
  int64_t len = xs.size(d);
  DimVec one = xs.sizes();
  one[d] = 1;
  Tensor ones_slice = ones(one, xs.dtype(), xs.device());
  Tensor left = len > 1 ? cat({ones_slice, narrow(cumprod(xs, d), d, 0, len - 1)}, d) : ones_slice;
  Tensor rx = flip_dim(xs, d);
  Tensor right = len > 1 ? flip_dim(cat({ones_slice, narrow(cumprod(rx, d), d, 0, len - 1)}, d), d) : ones_slice;
  Tensor others = mul(left, right);
  if (over_all(n)) others = reshape(others, in_shape(n));
  return {mul(expand_back(n, g[0]), others)};
}

Grads vjp_var(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0);
  double denom = double(reduced_count(n)) - n.attrs.d[0];
  Tensor c = f::sub(x, centre(n, x));
  return {mul(expand_back(n, g[0]), mul(c, 2.0 / denom))};
}

Grads vjp_std(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0), y = n.saved_tensor(1);
  double denom = double(reduced_count(n)) - n.attrs.d[0];
  Tensor c = f::sub(x, centre(n, x));
  Tensor yk = kept(n, y);
  Tensor safe = where(binary(OpId::eq, yk, Scalar(0.0)), zeros_like(yk), div(1.0 / denom, yk));
  return {mul(expand_back(n, g[0]), mul(c, safe))};
}

Grads vjp_norm(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0), y = n.saved_tensor(1);
  return {norm_grad(x, kept(n, y), n.attrs.d[0], expand_back(n, g[0]), mask_of(n))};
}

Grads vjp_dist(Node& n, const Grads& g) {
  Tensor a = n.saved_tensor(0), b = n.saved_tensor(2), y = n.saved_tensor(1);
  Tensor diff = f::sub(a, b);
  DimVec ones_shape = DimVec::filled(diff.dim(), 1);
  uint32_t all = diff.dim() == 0 ? 0u : uint32_t((uint64_t(1) << diff.dim()) - 1);
  Tensor ga = norm_grad(diff, reshape(y, ones_shape), n.attrs.d[0], expand(reshape(g[0], ones_shape), diff.sizes()), all);
  return {ga, neg(ga)};
}

Grads vjp_logsumexp(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0), y = n.saved_tensor(1);
  return {mul(expand_back(n, g[0]), exp(f::sub(x, kept(n, y))))};
}

// Reductions that select one element: over all elements (no indices saved: max(), min(); or
// marked whole by median() and nanmedian(), which reduce a flattened copy along its dim), ties
// share the gradient equally, and a NaN result shares it among the NaNs (PyTorch 1.13's
// evenly_distribute_backward); along a dim, the gradient goes to the index that was returned,
// a 1-D input reduced along its only dim included (max(x, 1) of {1, 3, 3, 2} gave {0, .5, .5, 0}).
static Grads selection(Node& n, const Grads& g) {
  if (n.saved.size() < 3 || n.attrs.i[1] == kWholeSelection) {
    Tensor x = n.saved_tensor(0), y = n.saved_tensor(1);
    DType dt = g[0].dtype();
    Tensor ye = expand(reshape(y, DimVec::filled(x.dim(), 1)), x.sizes());
    Tensor hit = add(mask(OpId::eq, x, ye, dt), mul(mask(OpId::ne, x, x, dt), mask(OpId::ne, ye, ye, dt)));
    Tensor gx = reshape(expand_back(n, g[0]), x.sizes());
    return {reshape(div(mul(hit, gx), sum(hit)), in_shape(n))};
  }
  return {scatter_back(n, g[0])};
}
Grads vjp_max(Node& n, const Grads& g) { return selection(n, g); }
Grads vjp_min(Node& n, const Grads& g) { return selection(n, g); }
Grads vjp_median(Node& n, const Grads& g) { return selection(n, g); }
Grads vjp_mode(Node& n, const Grads& g) { return selection(n, g); }
Grads vjp_kthvalue(Node& n, const Grads& g) { return selection(n, g); }
Grads vjp_sort(Node& n, const Grads& g) { return {scatter_back(n, g[0])}; }
Grads vjp_topk(Node& n, const Grads& g) { return {scatter_back(n, g[0])}; }

Grads vjp_cumsum(Node& n, const Grads& g) {
  int d = scan_dim(n);
  return {flip_dim(cumsum(flip_dim(g[0], d), d), d)};
}

// sum_{k >= i} g_k y_k / x_i without zeros in x. With one, that divides 0 by 0 (NaN where PyTorch
// 1.13 gives cumprod({2, 0, 3, 4})' = {1, 32, 0, 0}): then the gradient is the exclusive product
// P_i = x_1 ... x_(i-1) times S_i = sum_{k >= i} g_k x_(i+1) ... x_k, S built from the end by
// S_i = g_i + x_(i+1) S_(i+1), one slice per step: no division, and differentiable again.
Grads vjp_cumprod(Node& n, const Grads& g) {
  int d = scan_dim(n);
  Tensor x = n.saved_tensor(0), y = n.saved_tensor(1);
  if (x.dim() == 0 || reduce_value(OpId::any, binary(OpId::eq, x, Scalar(0.0))) == 0) {
    Tensor rev = flip_dim(cumsum(flip_dim(mul(g[0], y), d), d), d);
    return {div(rev, x)};
  }
  const int64_t len = x.size(d);
  DimVec one = x.sizes();
  one[d] = 1;
  Tensor ones_slice = ones(one, y.dtype(), y.device());
  Tensor left = len > 1 ? cat({ones_slice, narrow(y, d, 0, len - 1)}, d) : ones_slice;
  std::vector<Tensor> parts(static_cast<size_t>(len));
  Tensor s = narrow(g[0], d, len - 1, 1);
  parts[size_t(len - 1)] = s;
  for (int64_t i = len - 2; i >= 0; --i) {
    s = add(narrow(g[0], d, i, 1), mul(narrow(x, d, i + 1, 1), s));
    parts[size_t(i)] = s;
  }
  return {mul(left, cat(parts, d))};
}

Grads vjp_cross(Node& n, const Grads& g) {
  Tensor a = n.saved_tensor(0), b = n.saved_tensor(2);
  std::optional<int64_t> d = int64_t(scan_dim(n));
  return {n.needs_input_grad(0) ? cross(b, g[0], d) : Tensor(), n.needs_input_grad(1) ? cross(g[0], a, d) : Tensor()};
}

Grads vjp_trace(Node& n, const Grads& g) {
  const DimVec& s = in_shape(n);
  Tensor e = zeros(s, g[0].dtype(), g[0].device());
  int64_t k = s[0] < s[1] ? s[0] : s[1];
  fill_(as_strided(e, {k}, {s[1] + 1}, 0), 1);
  return {mul(e, g[0])};
}

}  // namespace autograd
}  // namespace tocha
