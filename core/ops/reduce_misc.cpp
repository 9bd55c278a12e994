// Front-ends of the reductions built on others: dist (norm of a difference), trace (sum of the
// diagonal view), renorm (norms along all dims but one, then a broadcast scale), histc, and
// argmax/argmin (max/min's indices).
#include <cmath>
#include "core/autocast.h"
#include "core/type_name.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {

Tensor dist(const Tensor& a, const Tensor& b, double p) {
  if (autocast::cuda_f32(OpId::dist, a) || autocast::cuda_f32(OpId::dist, b))  // Note [Autocast]
    return dist(autocast::to_f32(a), autocast::to_f32(b), p);
  autograd::Recording rec(OpId::dist, nullptr, {&a, &b});
  Tensor r = norm(binary(OpId::csub, a, b), p);
  if (auto n = rec.finish({&a, &b}, {&r})) {
    n->attrs.d[0] = p;
    n->save(a);
    n->save(r, true);
    n->save(b);
  }
  return r;
}
double dist_value(const Tensor& a, const Tensor& b, double p) {
  return reduce_value(OpId::norm, binary(OpId::csub, a, b), p);
}

static Tensor diagonal_view(const Tensor& a, const char* op) {
  TOCHA_CHECK(a.dim() == 2, op, "expected a matrix (2D tensor), got a ", a.dim(), "D tensor of size ",
              shape_str(a.sizes()));
  int64_t n = a.size(0) < a.size(1) ? a.size(0) : a.size(1);
  return alias_with(a, DimVec{n}, DimVec{a.stride(0) + a.stride(1)}, a.storage_offset());
}
Tensor trace(const Tensor& a) {
  autograd::Recording rec(OpId::trace, nullptr, {&a});
  Tensor r = sum(diagonal_view(a, "trace"));
  rec.finish({&a}, {&r});
  return r;
}
double trace_value(const Tensor& a) { return reduce_value(OpId::sum, diagonal_view(a, "trace")); }

// Torch7's renorm: a slice whose norm exceeds maxnorm is multiplied by maxnorm / (norm + 1e-7).
static Tensor renorm_factors(const Tensor& a, double p, int64_t dim, double maxnorm) {
  TOCHA_CHECK(is_floating(a.dtype()), "renorm", "expected a floating point tensor, got a ",
              tensor_type_name(a));
  TOCHA_CHECK(a.dim() > 0, "renorm", "expected a tensor with at least one dimension, got a 0-dim tensor");
  TOCHA_CHECK(p > 0, "renorm", "norm type p must be positive, got ", p);
  TOCHA_CHECK(maxnorm >= 0, "renorm", "maxnorm must be non-negative, got ", maxnorm);
  int d = wrap_dim(dim, a.dim(), "renorm");
  uint32_t others = all_dims_mask(a) & ~(1u << d);
  Tensor norms = empty(reduced_shape(a.sizes(), others, true), a.dtype(), a.device());
  ReduceIter it = make_reduce_iter(a, {&norms}, others);
  it.params[0] = p;
  kernel_for<ReduceKernel>(OpId::norm, a.device().type, a.dtype())(it);
  Tensor scale = binary(OpId::div, Scalar(maxnorm), binary(OpId::add, norms, Scalar(1e-7)));
  Tensor one = full_like_scalar(1, a.dtype(), a.device());
  return where(binary(OpId::gt, norms, Scalar(maxnorm)), scale, one);
}
// renorm is not differentiable: the Recording keeps its internal ops off the tape.
Tensor renorm(const Tensor& a, double p, int64_t dim, double maxnorm) {
  if (autocast::cuda_f32(OpId::renorm, a)) return renorm(autocast::to_f32(a), p, dim, maxnorm);  // Note [Autocast]
  autograd::Recording rec(OpId::renorm, nullptr, {&a});
  Tensor r = binary(OpId::mul, a, renorm_factors(a, p, dim, maxnorm));
  rec.finish({&a}, {&r});
  return r;
}
void renorm_out(const Tensor& out, const Tensor& a, double p, int64_t dim, double maxnorm) {
  autograd::Recording rec(OpId::renorm, &out, {&a});
  binary_out(OpId::mul, out, a, renorm_factors(a, p, dim, maxnorm));
  rec.finish({&a}, {&out});
}

static Tensor histc_impl(const Tensor* out, const Tensor& a, int64_t nbins, double lo, double hi) {
  TOCHA_CHECK(nbins > 0, "histc", "number of bins must be positive, got ", nbins);
  TOCHA_CHECK(!(lo > hi), "histc", "max ", hi, " must not be smaller than min ", lo);
  Tensor x = to_dtype(a, float_result_dtype(a.dtype()));
  if (lo == hi && a.numel() > 0) {  // Torch7: min == max means the data's range
    lo = reduce_value(OpId::min, x);
    hi = reduce_value(OpId::max, x);
  }
  TOCHA_CHECK(std::isfinite(lo) && std::isfinite(hi), "histc", "range [", lo, ", ", hi, "] is not finite");
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  auto kernel = kernel_for<ReduceKernel>(OpId::histc, a.device().type, x.dtype());
  Tensor target = prepare_out("histc", out, DimVec{nbins}, x.dtype(), a);
  Tensor hist = target.is_contiguous() ? target : empty(DimVec{nbins}, x.dtype(), a.device());
  ReduceIter it = make_reduce_iter(x, {}, all_dims_mask(x));
  it.data[1] = static_cast<char*>(hist.raw_data());  // not an iterated operand (see the kernel)
  it.params[0] = double(nbins);
  it.params[1] = lo;
  it.params[2] = hi;
  kernel(it);
  if (!hist.is_same(target)) copy_(target, hist);
  finish_out(out, target);
  return out ? *out : target;
}
Tensor histc(const Tensor& a, int64_t nbins, double lo, double hi) { return histc_impl(nullptr, a, nbins, lo, hi); }
void histc_out(const Tensor& out, const Tensor& a, int64_t nbins, double lo, double hi) {
  histc_impl(&out, a, nbins, lo, hi);
}

// argmax/argmin are max/min's indices: same kernels (every device and dtype max has), same ties
// (the first) and NaN (counts as the extreme). Grad mode is off so that max records no node
// whose saved values would only be dropped. The checks come first so errors name argmax.
static Tensor arg_extreme(OpId op, const char* name, const Tensor& a, const int64_t* dim, bool keepdim,
                          int64_t index_base) {
  autograd::GradModeGuard no_grad(false);
  auto run = [&](const Tensor& x, int64_t d, bool keep) {
    return (op == OpId::max ? max(x, d, keep, index_base) : min(x, d, keep, index_base)).indices;
  };
  if (!dim) {
    TOCHA_CHECK(a.numel() > 0, name, "cannot take the ", name, " of a tensor with no elements (size ",
                shape_str(a.sizes()), ")");
    return run(reshape(a, DimVec{a.numel()}), 0, false);  // the row-major position
  }
  int d = wrap_dim(*dim, a.dim(), name);
  TOCHA_CHECK(a.dim() == 0 || a.size(d) > 0, name, "cannot take the ", name, " over dimension ", d + 1,
              " of size 0 (input size ", shape_str(a.sizes()), ")");
  return run(a, d, keepdim);
}
Tensor argmax(const Tensor& a, int64_t index_base) {
  return arg_extreme(OpId::max, "argmax", a, nullptr, false, index_base);
}
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base) {
  return arg_extreme(OpId::max, "argmax", a, &dim, keepdim, index_base);
}
Tensor argmin(const Tensor& a, int64_t index_base) {
  return arg_extreme(OpId::min, "argmin", a, nullptr, false, index_base);
}
Tensor argmin(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base) {
  return arg_extreme(OpId::min, "argmin", a, &dim, keepdim, index_base);
}

}  // namespace tocha
