// Front-ends of core/ops/stats.h: amax/amin (own node: ties share the gradient), composites of
// sum/where/sort/gather for the NaN-skipping and moment functions, and the stats_scan kernels for
// logcumsumexp, cummax and cummin.
#include "core/ops/stats.h"
#include "core/type_name.h"
#include "core/ops/reduce_values.h"
#include <cmath>
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/index_scatter.h"
#include "core/ops/pointwise.h"
#include "core/ops/predicates.h"
#include "core/ops/reduce.h"
#include "core/ops/reduce_iter.h"
#include "core/ops/sort.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

// Note [Stats reductions]
//  - dims: a list (empty = every dim); the reduced dims are removed unless keepdim, PyTorch's
//    default for these PyTorch functions (as for argmax, Note [argmax and keepdim]); the Lua
//    layer returns full reductions as numbers (Note [Full reductions under autograd]).
//  - amax/amin are one recorded node (OpId::amax/amin) whose gradient is split evenly among
//    the elements equal to the result (PyTorch's rule; max along a dim gives all of it to one
//    index). The values come from max/min along each dim in turn.
//  - Reducing a dim of size 0 is an error for amax/amin/aminmax (no identity), as in PyTorch.

namespace stats {

uint32_t dims_mask(const char* op, const Tensor& x, const DimVec& dims) {
  if (dims.empty()) return all_dims_mask(x);
  uint32_t mask = 0;
  for (int i = 0; i < dims.size(); ++i) {
    const int d = wrap_dim(dims[i], x.dim(), op);
    if (x.dim() == 0) continue;
    TOCHA_CHECK(!(mask & (1u << d)), op, "dim ", d + 1, " appears more than once in ", list_str(dims, true));
    mask |= 1u << d;
  }
  return mask;
}

void check_floating(const char* op, const Tensor& x) {
  TOCHA_CHECK(is_floating(x.dtype()), op, "expected a floating-point tensor (Float, Double, Half or BFloat16), got a ",
              tensor_type_name(x));
}

Tensor as_float(const Tensor& x) { return is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype()); }

}  // namespace stats

namespace {

// Note [amax as one max pass]
// amax/amin is max/min's values-only reduction over every dim in the mask at once, the kernel of
// x:max() with a mask (no indices): a max along each dim in turn computed indices it threw away
// and wrote a result per dim, 7-11x PyTorch's time on 256x256.
Tensor extreme_kept(const Tensor& x, uint32_t mask, bool is_max) {
  if (mask == 0) return clone(x);
  return reduce_values(is_max ? OpId::max : OpId::min, x, mask, true);
}

Tensor drop_dims(const Tensor& r, const DimVec& in_sizes, uint32_t mask, bool keepdim) {
  return keepdim ? r : reshape(r, reduced_shape(in_sizes, mask, false));
}

Tensor amax_impl(OpId op, const Tensor& x, const DimVec& dims, bool keepdim) {
  const char* name = op_name(op);
  const uint32_t mask = stats::dims_mask(name, x, dims);
  for (int d = 0; d < x.dim(); ++d)
    TOCHA_CHECK(!(mask & (1u << d)) || x.size(d) > 0, name, "cannot reduce dim ", d + 1,
                " of size 0 (tensor of size ", shape_str(x.sizes()), "): the result has no identity");
  autograd::Recording rec(op, nullptr, {&x});
  Tensor r = drop_dims(extreme_kept(x, mask, op == OpId::amax), x.sizes(), mask, keepdim);
  if (auto n = rec.finish({&x}, {&r})) {
    n->attrs.i[0] = mask;
    n->attrs.i[2] = keepdim;
    n->save(x);
    n->save(r, true);
  }
  return r;
}

// Elements of x whose bit in mask is set, counted (the n of a moment over dims).
int64_t reduced_numel(const Tensor& x, uint32_t mask) {
  int64_t c = 1;
  for (int d = 0; d < x.dim(); ++d)
    if (mask & (1u << d)) c *= x.size(d);
  return c;
}

}  // namespace

Tensor amax(const Tensor& x, const DimVec& dims, bool keepdim) { return amax_impl(OpId::amax, x, dims, keepdim); }
Tensor amin(const Tensor& x, const DimVec& dims, bool keepdim) { return amax_impl(OpId::amin, x, dims, keepdim); }

Tensor nansum(const Tensor& x, const DimVec& dims, bool keepdim) {
  const uint32_t mask = stats::dims_mask("nansum", x, dims);
  // A NaN element makes its sum NaN, so sums without NaN are the answer (one pass, no copies);
  // otherwise the NaNs are zeroed and summed again. Not on a device: the check would wait for it.
  if (is_floating(x.dtype()) && x.device().is_cpu()) {
    Tensor s = sum_dims(x, mask, keepdim);
    if (!any_true(isnan(s))) return s;
  }
  Tensor clean = is_floating(x.dtype()) ? where(isnan(x), zeros({}, x.dtype(), x.device()), x) : x;
  return sum_dims(clean, mask, keepdim);
}

Tensor nanmean(const Tensor& x, const DimVec& dims, bool keepdim) {
  const uint32_t mask = stats::dims_mask("nanmean", x, dims);
  Tensor xf = stats::as_float(x);
  Tensor keep = to_dtype(logical_not(isnan(xf)), xf.dtype());
  Tensor total = sum_dims(where(isnan(xf), zeros({}, xf.dtype(), xf.device()), xf), mask, keepdim);
  return binary(OpId::div, total, sum_dims(keep, mask, keepdim));
}

Tensor count_nonzero(const Tensor& x, const DimVec& dims) {
  const uint32_t mask = stats::dims_mask("countNonzero", x, dims);
  return sum_dims(binary(OpId::ne, x, Scalar(0.0)), mask, false);
}

VarMean var_mean(const Tensor& x, const DimVec& dims, double correction, bool keepdim) {
  const char* op = "varMean";
  TOCHA_CHECK(std::isfinite(correction), op, "correction must be a finite number, got ", correction);
  const uint32_t mask = stats::dims_mask(op, x, dims);
  Tensor xf = stats::as_float(x);
  const int64_t n = reduced_numel(xf, mask);
  Tensor m = binary(OpId::div, sum_dims(xf, mask, true), Scalar(double(n)));
  Tensor dev = binary(OpId::csub, xf, m);
  const double denom = std::max(0.0, double(n) - correction);  // PyTorch: max(0, n - correction)
  Tensor v = binary(OpId::div, sum_dims(binary(OpId::mul, dev, dev), mask, keepdim), Scalar(denom));
  return {v, drop_dims(m, xf.sizes(), mask, keepdim)};
}

// std as sqrt(var), with sqrt's gradient 1 / (2 std) taken as 0 where std is 0 (a constant slice:
// PyTorch's, and vjp_std's; 0 * inf was NaN): sqrt reads 1 there and the result is 0.
VarMean std_mean(const Tensor& x, const DimVec& dims, double correction, bool keepdim) {
  VarMean r = var_mean(x, dims, correction, keepdim);
  Tensor zero = binary(OpId::eq, r.var, Scalar(0.0));
  Tensor safe = where(zero, full_like_scalar(1.0, r.var.dtype(), r.var.device()), r.var);
  return {where(zero, full_like_scalar(0.0, r.var.dtype(), r.var.device()), unary(OpId::sqrt, safe)), r.mean};
}

// Note [nanmedian as sort]: NaN sorts after every number, so with k non-NaN elements in a slice
// the lower median of the numbers is sorted element (k - 1) / 2 (element 0, a NaN, when k = 0).
// The value is gathered from sort's values, so the gradient flows back through sort's indices.
ValuesIndices nanmedian(const Tensor& x, int64_t dim, bool keepdim, int64_t index_base) {
  const char* op = "nanmedian";
  const int d = wrap_dim(dim, x.dim(), op);
  if (x.dim() == 0) {
    Tensor v = clone(x);
    return {v, full({}, double(index_base), DType::i64, x.device())};
  }
  TOCHA_CHECK(x.size(d) > 0, op, "cannot take the median of dim ", d + 1, " of size 0 (tensor of size ",
              shape_str(x.sizes()), ")");
  ValuesIndices s = sort(x, d, false, 0);
  Tensor k = sum_dims(logical_not(isnan(x)), 1u << d, true);  // i64 counts, dim kept
  // (k - 1) / 2 rounded down, and 0 for k = 0
  Tensor at = binary(OpId::floorDivide, clamp(binary(OpId::csub, k, Scalar(1.0)), 0.0, std::nullopt), Scalar(2.0));
  at = to_dtype(at, DType::i64);
  Tensor v = gather(s.values, d, at, 0);
  Tensor i = binary(OpId::add, gather(s.indices, d, at, 0), Scalar(double(index_base)));
  if (!keepdim) {
    v = squeeze(v, d);
    i = squeeze(i, d);
  }
  return {v, i};
}

Tensor nanmedian(const Tensor& x) {
  TOCHA_CHECK(x.numel() > 0, "nanmedian", "cannot take the median of an empty tensor (size ", shape_str(x.sizes()),
              ")");
  // Recorded as a whole selection (the median node's formula): ties share the gradient, and the
  // NaNs share it when every element is NaN, as PyTorch's; through sort and gather it went to one
  // sorted position.
  autograd::Recording rec(OpId::median, nullptr, {&x});
  Tensor v = nanmedian(reshape(x, DimVec{x.numel()}), 0, false, 0).values;
  if (auto n = rec.finish({&x}, {&v})) {
    n->attrs.i[0] = all_dims_mask(x);
    n->attrs.i[1] = kWholeSelection;
    n->save(x);
    n->save(v, true);
  }
  return v;
}

Tensor logcumsumexp(const Tensor& x, int64_t dim) {
  const char* op = "logcumsumexp";
  stats::check_floating(op, x);
  const uint32_t mask = dim_mask(x, dim, op);
  autograd::Recording rec(OpId::logcumsumexp, nullptr, {&x});
  auto kernel = kernel_for<ReduceKernel>(OpId::logcumsumexp, x.device().type, x.dtype());
  Tensor r = empty(x.sizes(), x.dtype(), x.device());
  if (x.numel() > 0) {
    ReduceIter it = make_reduce_iter(x, {&r}, mask);
    kernel(it);
  }
  if (auto n = rec.finish({&x}, {&r})) {
    n->attrs.i[0] = x.dim() == 0 ? 0 : wrap_dim(dim, x.dim(), op);
    n->save(x);
    n->save(r, true);
  }
  return r;
}

ValuesIndices cummax(const Tensor& x, int64_t dim, int64_t index_base) {
  const int d = wrap_dim(dim, x.dim(), "cummax");
  return run_values_indices(OpId::cummax, x, d, x.dim() == 0 ? 1 : x.size(d), true, index_base, nullptr, nullptr,
                            nullptr);
}
ValuesIndices cummin(const Tensor& x, int64_t dim, int64_t index_base) {
  const int d = wrap_dim(dim, x.dim(), "cummin");
  return run_values_indices(OpId::cummin, x, d, x.dim() == 0 ? 1 : x.size(d), true, index_base, nullptr, nullptr,
                            nullptr);
}

}  // namespace tocha
