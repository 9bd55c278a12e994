// gather / scatter / scatterAdd front-ends: shape and index checks, then one IndexIter kernel
// call over the index's shape (Note [Index iteration]). See index_scatter.h.
#include "core/ops/index_scatter.h"
#include "core/type_name.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

void run_kernel(OpId op, const Tensor& self, const Tensor* other, double fill, const Tensor& index, int dim,
                int64_t base) {
  if (index.numel() == 0) return;
  auto kernel = kernel_for<IndexKernel>(op, self.device().type, self.dtype());
  IndexIter it;
  build_index_iter(&it, index.sizes(), dim, self, other, fill, index, false, base);
  it.op = int(op);
  kernel(it);
}

// index as a contiguous int64 tensor with self's number of dims.
Tensor checked_index(const char* op, const Tensor& self, const Tensor& index, const char* self_name) {
  check_same_device(op, self, index);
  Tensor idx = index_as_long(op, index, kMaxDims);
  TOCHA_CHECK(idx.dim() == self.dim(), op, "index has ", idx.dim(), " dimensions (size ", shape_str(idx.sizes()),
              ") but ", self_name, " has ", self.dim(), " (size ", shape_str(self.sizes()), ")");
  return idx;
}

// index may not be larger than t in any dim except `skip` (-1: none).
void check_not_larger(const char* op, const Tensor& idx, const Tensor& t, int skip, const char* name) {
  for (int k = 0; k < idx.dim(); ++k) {
    if (k == skip) continue;
    TOCHA_CHECK(idx.size(k) <= t.size(k), op, "index has size ", shape_str(idx.sizes()), " but ", name, " has size ",
                shape_str(t.sizes()), "; the index may not be larger in dimension ", k + 1);
  }
}

Tensor gather_compute(const Tensor* out, const Tensor& input_, int64_t dim, const Tensor& index, int64_t base) {
  const char* op = "gather";
  Tensor idx = as_vector_if_scalar(checked_index(op, input_, index, "input"));
  Tensor input = as_vector_if_scalar(input_);
  int d = wrap_dim(dim, input.dim(), op);
  check_not_larger(op, idx, input, d, "input");
  check_index_values(op, idx, base, input.size(d), d);
  Tensor target;
  if (out && out->dtype() == input.dtype() && !out->shares_storage(input) && !out->shares_storage(index)) {
    resize_(*out, index.sizes());
    check_writable(op, *out);
    target = *out;
  } else {
    if (out) {
      TOCHA_CHECK(can_cast(input.dtype(), out->dtype()), op, "result of type ", tensor_type_name(input),
                  " cannot be written into a ", dtype_tensor_name(out->dtype()));
      check_same_device(op, *out, input);
    }
    target = empty(index.sizes(), input.dtype(), input.device());
  }
  Tensor tv = as_vector_if_scalar(target);
  run_kernel(OpId::gather, input, &tv, 0, idx, d, base);
  if (!out) return target;
  if (target.is_same(*out)) {
    out->bump_version();
  } else {
    resize_(*out, index.sizes());
    copy_(*out, target);
  }
  return *out;
}

// scatter and scatterAdd; src null: scatter the value.
void scatter_compute(OpId opid, const Tensor& self_, int64_t dim, const Tensor& index, const Tensor* src_,
                     double value, int64_t base) {
  const char* op = op_name(opid);
  check_writable(op, self_);
  Tensor idx = as_vector_if_scalar(checked_index(op, self_, index, "the tensor"));
  Tensor self = as_vector_if_scalar(self_);
  int d = wrap_dim(dim, self.dim(), op);
  Tensor src;
  if (src_) {
    check_same_device(op, self_, *src_);
    TOCHA_CHECK(src_->dim() == self_.dim(), op, "src has ", src_->dim(), " dimensions (size ",
                shape_str(src_->sizes()), ") but the tensor has ", self_.dim(), " (size ", shape_str(self_.sizes()), ")");
    TOCHA_CHECK(can_cast(src_->dtype(), self.dtype()), op, "cannot write a ", dtype_tensor_name(src_->dtype()),
                " into a ", tensor_type_name(self));
    src = as_vector_if_scalar(to_dtype(*src_, self.dtype()));
    check_not_larger(op, idx, src, -1, "src");
    if (src.shares_storage(self)) src = clone(src);
  }
  check_not_larger(op, idx, self, d, "the tensor");
  check_index_values(op, idx, base, self.size(d), d);
  if (idx.shares_storage(self)) idx = clone(idx);
  run_kernel(opid, self, src_ ? &src : nullptr, value, idx, d, base);
  self.bump_version();
}

void describe(const std::shared_ptr<Node>& n, int64_t dim, int ndim, const Tensor& index, int64_t base) {
  if (!n) return;
  n->attrs.i[0] = wrap_dim(dim, ndim > 0 ? ndim : 1, "scatter");
  n->attrs.i[1] = base;
  n->save(index);
}

Tensor gather_impl(const Tensor* out, const Tensor& input, int64_t dim, const Tensor& index, int64_t base) {
  autograd::Recording rec(OpId::gather, out, {&input});
  Tensor r = gather_compute(out, input, dim, index, base);
  describe(rec.finish({&input}, {&r}), dim, input.dim(), index, base);
  return r;
}

void scatter_impl(OpId opid, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src, double value,
                  int64_t base) {
  std::vector<const Tensor*> inputs{&self};
  if (src) inputs.push_back(src);
  autograd::Recording rec(opid, &self, inputs);
  scatter_compute(opid, self, dim, index, src, value, base);
  describe(rec.finish(inputs, {&self}), dim, self.dim(), index, base);
}

}  // namespace

Tensor gather(const Tensor& input, int64_t dim, const Tensor& index, int64_t base) {
  return gather_impl(nullptr, input, dim, index, base);
}
void gather_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index, int64_t base) {
  gather_impl(&out, input, dim, index, base);
}

void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  scatter_impl(OpId::scatter, self, dim, index, &src, 0, base);
}
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, double value, int64_t base) {
  scatter_impl(OpId::scatter, self, dim, index, nullptr, value, base);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  Tensor r = clone(self);
  scatter_(r, dim, index, src, base);
  return r;
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, double value, int64_t base) {
  Tensor r = clone(self);
  scatter_(r, dim, index, value, base);
  return r;
}

void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  scatter_impl(OpId::scatterAdd, self, dim, index, &src, 0, base);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  Tensor r = clone(self);
  scatter_add_(r, dim, index, src, base);
  return r;
}

}  // namespace tocha
