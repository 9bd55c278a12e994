// Front-ends of the reductions over all elements or one dim: dtype rules, empty-input checks,
// output allocation and kernel dispatch. See reduce.h and Note [Reduction results].
#include "core/ops/reduce.h"
#include "core/ops/reduce_values.h"
#include "core/autocast.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/sort.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

// Ops that compute in a float dtype: integer inputs are converted first.
bool computes_in_float(OpId op) {
  return op == OpId::mean || op == OpId::var || op == OpId::std || op == OpId::norm || op == OpId::logsumexp;
}

// Result dtype for a kernel input of dtype t (see Note [Reduction results]).
DType result_dtype(OpId op, DType t) {
  if (op == OpId::sum || op == OpId::prod) return is_floating(t) ? t : DType::i64;
  if (op == OpId::all || op == OpId::any) return t == DType::u8 ? DType::u8 : DType::b8;
  return t;
}

void check_not_empty(OpId op, const Tensor& a, uint32_t mask) {
  if (mask == all_dims_mask(a)) {
    TOCHA_CHECK(a.numel() > 0, op_name(op), "cannot reduce a tensor with no elements (size ", shape_str(a.sizes()),
                ")");
    return;
  }
  for (int d = 0; d < a.dim(); ++d)
    TOCHA_CHECK(!(mask & (1u << d)) || a.size(d) > 0, op_name(op), "cannot reduce over dimension ", d + 1,
                " of size 0 (input size ", shape_str(a.sizes()), ")");
}

// The one path of every plain reduction: over the dims in `mask`, into *out when given.
Tensor reduce_compute(OpId op, const Tensor& a, uint32_t mask, bool keepdim, double param, const Tensor* out) {
  const char* name = op_name(op);
  if (op == OpId::max || op == OpId::min) check_not_empty(op, a, mask);
  Tensor x = computes_in_float(op) ? to_dtype(a, float_result_dtype(a.dtype())) : a;
  auto kernel = kernel_for<ReduceKernel>(op, a.device().type, x.dtype());
  DimVec shape = reduced_shape(a.sizes(), mask, keepdim);
  Tensor target = prepare_out(name, out, shape, result_dtype(op, x.dtype()), a);
  Tensor kd = keepdim ? target : unsqueeze_reduced(target, a.sizes(), mask);
  ReduceIter it = make_reduce_iter(x, {&kd}, mask);
  it.params[0] = param;
  kernel(it);
  finish_out(out, target);
  return out ? *out : target;
}

// What the formula of a reduction reads besides shapes (Note [Recording an op]).
bool saves_values(OpId op) { return op != OpId::sum && op != OpId::mean; }

Tensor reduce_impl(OpId op, const Tensor& a, uint32_t mask, bool keepdim, double param, const Tensor* out) {
  // Note [Autocast]: sum, prod, logsumexp and norm in f32 on CUDA (a new result only)
  if (!out && autocast::cuda_f32(op, a)) return reduce_impl(op, autocast::to_f32(a), mask, keepdim, param, out);
  autograd::Recording rec(op, out, {&a});
  Tensor r = reduce_compute(op, a, mask, keepdim, param, out);
  if (auto n = rec.finish({&a}, {&r})) {
    n->attrs.i[0] = mask;
    n->attrs.i[2] = keepdim;
    n->attrs.d[0] = param;
    if (saves_values(op)) {
      n->save(a);
      n->save(r, true);
    }
  }
  return r;
}

double correction(bool unbiased) { return unbiased ? 1.0 : 0.0; }

}  // namespace

Tensor reduce_values(OpId op, const Tensor& a, uint32_t mask, bool keepdim) {
  return reduce_compute(op, a, mask, keepdim, 0, nullptr);
}

#define TOCHA_REDUCTION_FRONTENDS(name)                                                               \
  Tensor name(const Tensor& a) { return reduce_impl(OpId::name, a, all_dims_mask(a), false, 0, nullptr); } \
  Tensor name(const Tensor& a, int64_t dim, bool keepdim) {                                            \
    return reduce_impl(OpId::name, a, dim_mask(a, dim, #name), keepdim, 0, nullptr);                   \
  }                                                                                                    \
  void name##_out(const Tensor& out, const Tensor& a, int64_t dim, bool keepdim) {                     \
    reduce_impl(OpId::name, a, dim_mask(a, dim, #name), keepdim, 0, &out);                             \
  }
TOCHA_REDUCTION_FRONTENDS(sum)
TOCHA_REDUCTION_FRONTENDS(prod)
TOCHA_REDUCTION_FRONTENDS(mean)
TOCHA_REDUCTION_FRONTENDS(logsumexp)
TOCHA_REDUCTION_FRONTENDS(all)
TOCHA_REDUCTION_FRONTENDS(any)
#undef TOCHA_REDUCTION_FRONTENDS

Tensor sum_dims(const Tensor& a, uint32_t mask, bool keepdim) {
  return reduce_impl(OpId::sum, a, mask, keepdim, 0, nullptr);
}

Tensor var(const Tensor& a, bool unbiased) {
  return reduce_impl(OpId::var, a, all_dims_mask(a), false, correction(unbiased), nullptr);
}
Tensor var(const Tensor& a, int64_t dim, bool unbiased, bool keepdim) {
  return reduce_impl(OpId::var, a, dim_mask(a, dim, "var"), keepdim, correction(unbiased), nullptr);
}
void var_out(const Tensor& out, const Tensor& a, int64_t dim, bool unbiased, bool keepdim) {
  reduce_impl(OpId::var, a, dim_mask(a, dim, "var"), keepdim, correction(unbiased), &out);
}
Tensor std(const Tensor& a, bool unbiased) {
  return reduce_impl(OpId::std, a, all_dims_mask(a), false, correction(unbiased), nullptr);
}
Tensor std(const Tensor& a, int64_t dim, bool unbiased, bool keepdim) {
  return reduce_impl(OpId::std, a, dim_mask(a, dim, "std"), keepdim, correction(unbiased), nullptr);
}
void std_out(const Tensor& out, const Tensor& a, int64_t dim, bool unbiased, bool keepdim) {
  reduce_impl(OpId::std, a, dim_mask(a, dim, "std"), keepdim, correction(unbiased), &out);
}

Tensor norm(const Tensor& a, double p) { return reduce_impl(OpId::norm, a, all_dims_mask(a), false, p, nullptr); }
Tensor norm(const Tensor& a, double p, int64_t dim, bool keepdim) {
  return reduce_impl(OpId::norm, a, dim_mask(a, dim, "norm"), keepdim, p, nullptr);
}
void norm_out(const Tensor& out, const Tensor& a, double p, int64_t dim, bool keepdim) {
  reduce_impl(OpId::norm, a, dim_mask(a, dim, "norm"), keepdim, p, &out);
}

static ValuesIndices minmax_impl(OpId op, const Tensor& a, int64_t dim, bool keepdim, int64_t index_base,
                                 const Tensor* values, const Tensor* indices) {
  int d = wrap_dim(dim, a.dim(), op_name(op));
  check_not_empty(op, a, a.dim() == 0 ? 0u : 1u << d);
  return run_values_indices(op, a, d, 1, keepdim, index_base, nullptr, values, indices);
}

Tensor max(const Tensor& a) { return reduce_impl(OpId::max, a, all_dims_mask(a), false, 0, nullptr); }
ValuesIndices max(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base) {
  return minmax_impl(OpId::max, a, dim, keepdim, index_base, nullptr, nullptr);
}
void max_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool keepdim,
             int64_t index_base) {
  minmax_impl(OpId::max, a, dim, keepdim, index_base, &values, &indices);
}
Tensor min(const Tensor& a) { return reduce_impl(OpId::min, a, all_dims_mask(a), false, 0, nullptr); }
ValuesIndices min(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base) {
  return minmax_impl(OpId::min, a, dim, keepdim, index_base, nullptr, nullptr);
}
void min_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool keepdim,
             int64_t index_base) {
  minmax_impl(OpId::min, a, dim, keepdim, index_base, &values, &indices);
}

double reduce_value(OpId op, const Tensor& a, double param) {
  switch (op) {
    case OpId::median: return item_at(median(a), 0);
    case OpId::trace: return trace_value(a);
    case OpId::sum: case OpId::prod: case OpId::mean: case OpId::var: case OpId::std: case OpId::norm:
    case OpId::logsumexp: case OpId::max: case OpId::min: case OpId::all: case OpId::any: break;
    default: fail(op_name(op), "is not a reduction over all elements");
  }
  uint32_t mask = all_dims_mask(a);
  if (op == OpId::max || op == OpId::min) check_not_empty(op, a, mask);
  // The result is a double anyway, so integer inputs of the float ops convert to f64.
  Tensor x = computes_in_float(op) && !is_floating(a.dtype()) ? to_dtype(a, DType::f64) : a;
  auto kernel = kernel_for<ReduceKernel>(op, a.device().type, x.dtype());
  Tensor out = empty(DimVec{}, DType::f64, a.device());
  Tensor kd = unsqueeze_reduced(out, a.sizes(), mask);
  ReduceIter it = make_reduce_iter(x, {&kd}, mask);
  it.params[0] = op == OpId::var || op == OpId::std ? correction(param != 0) : param;
  it.value_f64 = true;
  kernel(it);
  return item_at(out, 0);
}

}  // namespace tocha
