// Building IndexIters and checking index and mask arguments. See index_geometry.h.
#include "core/ops/index_geometry.h"
#include "core/type_name.h"
#include "core/ops/pointwise.h"

namespace tocha {

namespace {

// Fills g with dims [lo, hi) of shape: size-1 dims dropped, neighbours merged when every operand
// steps through both as one (the same rule as PointwiseIter::finish).
void fill_group(DimGroup* g, const DimVec& shape, int lo, int hi, const DimVec* strides) {
  g->ndim = 0;
  g->numel = 1;
  for (int d = lo; d < hi; ++d) {
    g->numel *= shape[d];
    if (shape[d] == 1) continue;
    int m = g->ndim - 1;
    bool merge = m >= 0;
    for (int k = 0; k < kIndexOperands && merge; ++k)
      if (g->stride[k][m] != strides[k][d] * shape[d]) merge = false;
    if (merge) {
      g->size[m] *= shape[d];
      for (int k = 0; k < kIndexOperands; ++k) g->stride[k][m] = strides[k][d];
    } else {
      g->size[g->ndim] = shape[d];
      for (int k = 0; k < kIndexOperands; ++k) g->stride[k][g->ndim] = strides[k][d];
      ++g->ndim;
    }
  }
}

std::string position_str(const DimVec& sizes, int64_t linear, int64_t base) {
  if (sizes.size() <= 1) return std::to_string(linear + base);
  DimVec c = DimVec::filled(sizes.size(), 0);
  for (int d = sizes.size() - 1; d >= 0; --d) {
    c[d] = linear % sizes[d];
    linear /= sizes[d];
  }
  std::string s = "(";
  for (int d = 0; d < c.size(); ++d) s += (d ? ", " : "") + std::to_string(c[d] + base);
  return s + ")";
}

}  // namespace

void build_index_iter(IndexIter* it, const DimVec& shape, int dim, const Tensor& self, const Tensor* other,
                      double fill, const Tensor& index, bool index_is_list, int64_t index_base) {
  const int nd = shape.size();
  DimVec st[kIndexOperands];
  st[0] = self.strides();
  st[1] = other ? other->strides() : DimVec::filled(nd, 0);
  st[2] = index_is_list ? DimVec::filled(nd, 0) : index.strides();
  it->n = shape[dim];
  it->dim_stride[0] = st[0][dim];
  it->dim_stride[1] = st[1][dim];
  it->dim_stride[2] = index_is_list ? 1 : st[2][dim];
  fill_group(&it->outer, shape, 0, dim, st);
  fill_group(&it->inner, shape, dim + 1, nd, st);
  it->data[0] = static_cast<char*>(self.raw_data());
  if (other) {
    it->data[1] = static_cast<char*>(other->raw_data());
  } else {
    store_scalar(&it->value, fill, self.dtype());
    it->data[1] = reinterpret_cast<char*>(&it->value);
  }
  it->data[2] = static_cast<char*>(index.raw_data());
  it->index_base = index_base;
  it->bound = self.dim() > 0 ? self.size(dim) : 1;
  it->dim = dim;
}

Tensor index_as_long(const char* op, const Tensor& index, int max_dims) {
  DType dt = index.dtype();
  TOCHA_CHECK(dt == DType::i64 || dt == DType::i32, op, "indices must be a torch.LongTensor, got a ",
              dtype_tensor_name(dt));
  TOCHA_CHECK(index.dim() <= max_dims, op, "indices must be a vector, got a tensor of size ",
              shape_str(index.sizes()));
  return contiguous(to_dtype(index, DType::i64));
}

void check_index_values(const char* op, const Tensor& index, int64_t base, int64_t size, int dim) {
  // Device indices are checked by the kernels (IndexIter::bound), not through a copy to the host
  // that would wait for the GPU (Note [Deferred device errors], kernels/cuda/device_errors.h).
  if (!index.is_cpu()) return;
  const int64_t* p = index.data<int64_t>();
  const int64_t n = index.numel(), lo = base, hi = base + size;
  // A branch-free pass first; the position is searched only when something is off. In unsigned
  // arithmetic, v - lo and hi - 1 - v both keep the top bit clear exactly when lo <= v < hi (for
  // every int64 v, given lo <= hi and that hi does not overflow: lo is the index base, a size is
  // far from 2^63), and OR-ing them vectorizes with SSE2 (a bool of two compares stayed scalar:
  // 0.47 ns per index, a third of a 2048x16 gather).
  const uint64_t ulo = uint64_t(lo), uhi1 = uint64_t(hi - 1);
  uint64_t acc = 0;
#pragma omp simd reduction(| : acc)
  for (int64_t i = 0; i < n; ++i) acc |= (uint64_t(p[i]) - ulo) | (uhi1 - uint64_t(p[i]));
  if (!(acc >> 63)) return;
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] >= lo && p[i] < hi) continue;
    fail(op, "index ", p[i], index.dim() > 0 ? " at position " + position_str(index.sizes(), i, base) : "",
         " is out of range for dimension ", dim + 1, " of size ", size, base == 1 ? " (indices are 1-based)" : "");
  }
}

Tensor as_vector_if_scalar(const Tensor& t) {
  return t.dim() == 0 ? alias_with(t, DimVec{1}, DimVec{1}, t.storage_offset()) : t;
}

void check_mask(const char* op, const Tensor& mask, const Tensor& self) {
  TOCHA_CHECK(mask.dtype() == DType::u8 || mask.dtype() == DType::b8, op,
              "mask must be a torch.ByteTensor or torch.BoolTensor, got a ", tensor_type_name(mask));
  check_same_device(op, self, mask);
}

}  // namespace tocha
