// scatter_reduce front-end (see scatter_reduce.h): the checks of scatter, then sum and mean
// through scatterAdd, prod/amax/amin through the scatterReduce kernels, one recorded node.
#include "core/ops/scatter_reduce.h"
#include "core/type_name.h"
#include <cstring>
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/index_extra.h"
#include "core/ops/index_geometry.h"
#include "core/ops/index_scatter.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/shape.h"

namespace tocha {

ScatterReduce scatter_reduce_kind(const char* op, const char* s) {
  const char* names[] = {"sum", "prod", "mean", "amax", "amin"};
  for (int i = 0; i < 5; ++i)
    if (s && std::strcmp(s, names[i]) == 0) return ScatterReduce(i);
  fail(op, "reduce must be 'sum', 'prod', 'mean', 'amax' or 'amin', got '", s ? s : "(null)", "'");
}

namespace {

// Note [scatterReduce kernels]
// The kernels of scatterReduce (prod, amax, amin) are IndexIter kernels (Note [Index iteration])
// with src as the other operand; the reduction travels in IndexIter::value (a ScatterReduce).
// As the scatterAdd kernels do, they walk the dim in order per position (CPU threads and CUDA
// threads alike), so there are no atomics and results are deterministic and equal on both
// devices. amax/amin propagate NaN (PyTorch's rule).
void run_reduce_kernel(const Tensor& self, int d, const Tensor& idx, const Tensor& src, ScatterReduce kind,
                       int64_t base) {
  if (idx.numel() == 0) return;
  auto kernel = kernel_for<IndexKernel>(OpId::scatterReduce, self.device().type, self.dtype());
  IndexIter it;
  build_index_iter(&it, idx.sizes(), d, self, &src, 0, idx, false, base);
  it.op = int(OpId::scatterReduce);
  it.value = uint64_t(kind);
  kernel(it);
}

Tensor compute(const Tensor& self_, int d, const Tensor& idx, const Tensor& src, ScatterReduce kind, bool include_self,
               int64_t base) {
  Tensor r = clone(self_);
  Tensor rv = as_vector_if_scalar(r);
  if (!include_self) {
    // Positions that receive elements forget self's value: the identity of sum, mean and prod;
    // for amax/amin a scattered element itself (max(s, s, ...) = max(...)), as no identity fits
    // every dtype.
    if (kind == ScatterReduce::amax || kind == ScatterReduce::amin) scatter_(rv, d, idx, src, base);
    else scatter_(rv, d, idx, kind == ScatterReduce::prod ? 1.0 : 0.0, base);
  }
  if (kind == ScatterReduce::sum || kind == ScatterReduce::mean) {
    scatter_add_(rv, d, idx, src, base);
  } else {
    run_reduce_kernel(rv, d, idx, src, kind, base);
  }
  if (kind == ScatterReduce::mean) {
    Tensor n = include_self ? ones(rv.sizes(), DType::i64, r.device()) : zeros(rv.sizes(), DType::i64, r.device());
    scatter_add_(n, d, idx, ones(idx.sizes(), DType::i64, r.device()), base);
    n = clamp(n, 1.0, std::nullopt);
    // Integers divide with floor (PyTorch's mean for integral dtypes).
    Tensor q = is_floating(r.dtype()) ? binary(OpId::div, rv, n) : binary(OpId::floorDivide, rv, n);
    copy_(rv, q);
  }
  return r;
}

}  // namespace

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce kind,
                      bool include_self, int64_t base) {
  const char* op = "scatterReduce";
  check_same_device(op, self, index);
  check_same_device(op, self, src);
  TOCHA_CHECK(src.dtype() == self.dtype(), op, "src is a ", tensor_type_name(src), " but the tensor is a ",
              tensor_type_name(self), "; expected one type");
  TOCHA_CHECK(!(kind == ScatterReduce::mean && self.dtype() == DType::b8), op, "reduce='mean' is not defined for a ",
              tensor_type_name(self));
  Tensor idx = index_as_long(op, index, kMaxDims);
  TOCHA_CHECK(idx.dim() == self.dim(), op, "index has ", idx.dim(), " dimensions (size ", shape_str(idx.sizes()),
              ") but the tensor has ", self.dim(), " (size ", shape_str(self.sizes()), ")");
  TOCHA_CHECK(src.dim() == self.dim(), op, "src has ", src.dim(), " dimensions (size ", shape_str(src.sizes()),
              ") but the tensor has ", self.dim(), " (size ", shape_str(self.sizes()), ")");
  Tensor sv = as_vector_if_scalar(src), iv = as_vector_if_scalar(idx), selfv = as_vector_if_scalar(self);
  const int d = wrap_dim(dim, selfv.dim(), op);
  for (int k = 0; k < iv.dim(); ++k) {
    TOCHA_CHECK(iv.size(k) <= sv.size(k), op, "index has size ", shape_str(idx.sizes()), " but src has size ",
                shape_str(src.sizes()), "; the index may not be larger in dimension ", k + 1);
    TOCHA_CHECK(k == d || iv.size(k) <= selfv.size(k), op, "index has size ", shape_str(idx.sizes()),
                " but the tensor has size ", shape_str(self.sizes()), "; the index may not be larger in dimension ",
                k + 1);
  }
  check_index_range(op, iv, base, selfv.size(d), d);  // on CUDA too: not scatter's or scatterAdd's name
  autograd::Recording rec(OpId::scatterReduce, nullptr, {&self, &src});
  Tensor r = compute(self, d, iv, sv, kind, include_self, base);
  if (auto n = rec.finish({&self, &src}, {&r})) {
    n->attrs.i[0] = d;
    n->attrs.i[1] = base;
    n->attrs.i[2] = int64_t(kind);
    n->attrs.i[3] = include_self ? 1 : 0;
    n->save(iv);
    n->save(self);
    n->save(src);
    n->save(r, true);
  }
  return r;
}

}  // namespace tocha
