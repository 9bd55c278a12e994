// index / indexCopy / indexAdd / indexFill front-ends: checks, then one IndexIter kernel call
// (Note [Index iteration]). See index.h.
#include "core/ops/index.h"
#include "core/type_name.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

void run_index_kernel(OpId op, const DimVec& shape, int dim, const Tensor& self, const Tensor* other, double fill,
                      const Tensor& index, int64_t base) {
  if (shape_numel(shape) == 0) return;
  auto kernel = kernel_for<IndexKernel>(op, self.device().type, self.dtype());
  IndexIter it;
  build_index_iter(&it, shape, dim, self, other, fill, index, true, base);
  it.op = int(op);
  kernel(it);
}

Tensor index_select_compute(const Tensor* out, const Tensor& src_, int64_t dim, const Tensor& index, int64_t base) {
  const char* op = "index";
  check_same_device(op, src_, index);
  Tensor idx = index_as_long(op, index, 1);
  Tensor src = as_vector_if_scalar(src_);
  int d = wrap_dim(dim, src.dim(), op);
  check_index_values(op, idx, base, src.size(d), d);
  DimVec shape = src.sizes();
  shape[d] = idx.numel();
  Tensor target;
  if (out && out->dtype() == src.dtype() && !out->shares_storage(src) && !out->shares_storage(index)) {
    resize_(*out, shape);
    check_writable(op, *out);
    target = *out;
  } else {
    if (out) {
      TOCHA_CHECK(can_cast(src.dtype(), out->dtype()), op, "result of type ", tensor_type_name(src),
                  " cannot be written into a ", dtype_tensor_name(out->dtype()));
      check_same_device(op, *out, src);
    }
    target = empty(shape, src.dtype(), src.device());
  }
  run_index_kernel(OpId::index, shape, d, src, &target, 0, idx, base);
  if (!out) return target;
  if (target.is_same(*out)) {
    out->bump_version();
  } else {
    resize_(*out, shape);
    copy_(*out, target);
  }
  return *out;
}

// Checks shared by indexCopy and indexAdd; returns src as self's dtype (a copy when it overlaps
// self) and sets *dim to the wrapped dim.
Tensor check_index_source(const char* op, const Tensor& self, int64_t dim, const Tensor& idx, const Tensor& src_,
                          int* dim_out) {
  check_same_device(op, self, src_);
  check_writable(op, self);
  Tensor src = as_vector_if_scalar(src_);
  int d = wrap_dim(dim, self.dim(), op);
  TOCHA_CHECK(src.dim() == self.dim(), op, "source has size ", shape_str(src_.sizes()), " but the tensor has size ",
              shape_str(self.sizes()), "; they must have the same number of dimensions");
  for (int k = 0; k < self.dim(); ++k) {
    if (k == d) continue;
    TOCHA_CHECK(src.size(k) == self.size(k), op, "source has size ", shape_str(src.sizes()), " but the tensor has size ",
                shape_str(self.sizes()), "; they must match except in dimension ", d + 1);
  }
  TOCHA_CHECK(src.size(d) == idx.numel(), op, "source has ", src.size(d), " slices along dimension ", d + 1, " but ",
              idx.numel(), " indices were given");
  TOCHA_CHECK(can_cast(src.dtype(), self.dtype()), op, "cannot write a ", tensor_type_name(src), " into a ",
              tensor_type_name(self));
  Tensor s = to_dtype(src, self.dtype());
  if (s.shares_storage(self)) s = clone(s);
  *dim_out = d;
  return s;
}

void index_update_compute(OpId opid, const Tensor& self_, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  const char* op = op_name(opid);
  check_same_device(op, self_, index);
  Tensor idx = index_as_long(op, index, 1);
  Tensor self = as_vector_if_scalar(self_);
  int d = 0;
  Tensor s = check_index_source(op, self, dim, idx, src, &d);
  if (idx.shares_storage(self)) idx = clone(idx);
  check_index_values(op, idx, base, self.size(d), d);
  run_index_kernel(opid, s.sizes(), d, self, &s, 0, idx, base);
  self.bump_version();
}

// Records the node of an index op (Note [Recording an op]): the dim, the index base and the index.
void describe(const std::shared_ptr<Node>& n, int64_t dim, int ndim, const Tensor& index, int64_t base) {
  if (!n) return;
  n->attrs.i[0] = wrap_dim(dim, ndim > 0 ? ndim : 1, "index");
  n->attrs.i[1] = base;
  n->save(index);
}

Tensor index_select_impl(const Tensor* out, const Tensor& src, int64_t dim, const Tensor& index, int64_t base) {
  autograd::Recording rec(OpId::index, out, {&src});
  Tensor r = index_select_compute(out, src, dim, index, base);
  describe(rec.finish({&src}, {&r}), dim, src.dim(), index, base);
  return r;
}

void index_update_(OpId opid, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  autograd::Recording rec(opid, &self, {&self, &src});
  index_update_compute(opid, self, dim, index, src, base);
  describe(rec.finish({&self, &src}, {&self}), dim, self.dim(), index, base);
}

}  // namespace

Tensor index_select(const Tensor& src, int64_t dim, const Tensor& index, int64_t base) {
  return index_select_impl(nullptr, src, dim, index, base);
}
void index_select_out(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index, int64_t base) {
  index_select_impl(&out, src, dim, index, base);
}

void index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  index_update_(OpId::indexCopy, self, dim, index, src, base);
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  Tensor r = clone(self);
  index_copy_(r, dim, index, src, base);
  return r;
}

void index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  index_update_(OpId::indexAdd, self, dim, index, src, base);
}
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t base) {
  Tensor r = clone(self);
  index_add_(r, dim, index, src, base);
  return r;
}

static void index_fill_compute(const Tensor& self_, int64_t dim, const Tensor& index, double value, int64_t base);

void index_fill_(const Tensor& self_, int64_t dim, const Tensor& index, double value, int64_t base) {
  autograd::Recording rec(OpId::indexFill, &self_, {&self_});
  index_fill_compute(self_, dim, index, value, base);
  describe(rec.finish({&self_}, {&self_}), dim, self_.dim(), index, base);
}

static void index_fill_compute(const Tensor& self_, int64_t dim, const Tensor& index, double value, int64_t base) {
  const char* op = "indexFill";
  check_same_device(op, self_, index);
  check_writable(op, self_);
  Tensor idx = index_as_long(op, index, 1);
  Tensor self = as_vector_if_scalar(self_);
  int d = wrap_dim(dim, self.dim(), op);
  check_index_values(op, idx, base, self.size(d), d);
  if (idx.shares_storage(self)) idx = clone(idx);
  DimVec shape = self.sizes();
  shape[d] = idx.numel();
  run_index_kernel(OpId::indexFill, shape, d, self, nullptr, value, idx, base);
  self.bump_version();
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, double value, int64_t base) {
  Tensor r = clone(self);
  index_fill_(r, dim, index, value, base);
  return r;
}

}  // namespace tocha
