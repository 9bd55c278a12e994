// Front-ends of sort, topk, kthvalue, median and mode: dim and k checks, then the kernel through
// run_values_indices (core/ops/reduce_iter.h). See sort.h.
#include "core/ops/sort.h"
#include "core/ops/pointwise.h"
#include "core/autograd/meta.h"
#include "core/autograd/node.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {

namespace {

int64_t dim_size(const Tensor& a, int d) { return a.dim() == 0 ? 1 : a.size(d); }

// kthvalue, median and mode: one value per slice, which must not be empty.
ValuesIndices select_impl(OpId op, const Tensor& a, int64_t dim, bool keepdim, int64_t index_base, int64_t k,
                          const Tensor* values, const Tensor* indices) {
  const char* name = op_name(op);
  int d = wrap_dim(dim, a.dim(), name);
  int64_t n = dim_size(a, d);
  TOCHA_CHECK(n > 0, name, "cannot reduce over dimension ", d + 1, " of size 0 (input size ", shape_str(a.sizes()),
              ")");
  if (op == OpId::kthvalue)
    TOCHA_CHECK(k >= 1 && k <= n, name, "k = ", k, " is out of range for dimension ", d + 1, " of size ", n,
                " (k counts from 1)");
  double params[4] = {double(k), 0, 0, 0};
  return run_values_indices(op, a, d, 1, keepdim, index_base, params, values, indices);
}

ValuesIndices sort_impl(const Tensor& a, int64_t dim, bool descending, int64_t index_base, const Tensor* values,
                        const Tensor* indices) {
  int d = wrap_dim(dim, a.dim(), "sort");
  double params[4] = {descending ? 1.0 : 0.0, 0, 0, 0};
  return run_values_indices(OpId::sort, a, d, dim_size(a, d), true, index_base, params, values, indices);
}

ValuesIndices topk_impl(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted, int64_t index_base,
                        const Tensor* values, const Tensor* indices) {
  int d = wrap_dim(dim, a.dim(), "topk");
  int64_t n = dim_size(a, d);
  TOCHA_CHECK(k >= 0 && k <= n, "topk", "k = ", k, " is out of range for dimension ", d + 1, " of size ", n);
  // a 0-dim result always holds one element, which k = 0 would leave unwritten
  TOCHA_CHECK(k > 0 || a.dim() > 0, "topk", "k = 0 of a 0-dim tensor: it has no dimension to return no elements along");
  double params[4] = {double(k), largest ? 1.0 : 0.0, sorted ? 1.0 : 0.0, 0};
  return run_values_indices(OpId::topk, a, d, k, true, index_base, params, values, indices);
}

}  // namespace

ValuesIndices sort(const Tensor& a, int64_t dim, bool descending, int64_t index_base) {
  return sort_impl(a, dim, descending, index_base, nullptr, nullptr);
}
void sort_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool descending,
              int64_t index_base) {
  sort_impl(a, dim, descending, index_base, &values, &indices);
}

ValuesIndices topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted, int64_t index_base) {
  return topk_impl(a, k, dim, largest, sorted, index_base, nullptr, nullptr);
}
void topk_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, int64_t dim, bool largest,
              bool sorted, int64_t index_base) {
  topk_impl(a, k, dim, largest, sorted, index_base, &values, &indices);
}

ValuesIndices kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim, int64_t index_base) {
  return select_impl(OpId::kthvalue, a, dim, keepdim, index_base, k, nullptr, nullptr);
}
void kthvalue_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, int64_t dim,
                  bool keepdim, int64_t index_base) {
  select_impl(OpId::kthvalue, a, dim, keepdim, index_base, k, &values, &indices);
}

ValuesIndices median(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base) {
  return select_impl(OpId::median, a, dim, keepdim, index_base, 0, nullptr, nullptr);
}
void median_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool keepdim,
                int64_t index_base) {
  select_impl(OpId::median, a, dim, keepdim, index_base, 0, &values, &indices);
}
Tensor median(const Tensor& a) {
  TOCHA_CHECK(a.numel() > 0, "median", "cannot take the median of a tensor with no elements (size ",
              shape_str(a.sizes()), ")");
  Tensor flat = reshape(a, DimVec{a.numel()});  // recorded, so the gradient reaches a
  Tensor v = select_impl(OpId::median, flat, 0, false, 0, 0, nullptr, nullptr).values;
  if (AutogradMeta* m = autograd::meta_if(v); m && m->grad_fn) m->grad_fn->attrs.i[1] = kWholeSelection;  // ties share
  return v;
}

ValuesIndices mode(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base) {
  return select_impl(OpId::mode, a, dim, keepdim, index_base, 0, nullptr, nullptr);
}
void mode_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool keepdim,
              int64_t index_base) {
  select_impl(OpId::mode, a, dim, keepdim, index_base, 0, &values, &indices);
}

}  // namespace tocha
