// Geometry shared by the index front-ends (core/ops/index*.cpp) and their kernels: IndexIter for
// the ops that address a tensor through an index along one dim (index, indexCopy, indexAdd,
// indexFill, gather, scatter, scatterAdd), MaskScan for the ops whose output position depends on
// a running count of true mask elements (maskedSelect, maskedCopy, nonzero), and index checks.
#pragma once
#include <cstdint>
#include "core/pointwise_iter.h"
#include "core/tensor.h"

namespace tocha {

// Operands of an IndexIter: 0 is `self`, the tensor addressed through the index along the op's
// dim; 1 is `other`, walked in step with the index (src, out, or a fill value with 0 strides);
// 2 is the index (int64).
constexpr int kIndexOperands = 3;

// A group of dims (coalesced) with each operand's strides, for offsets from a linear position.
struct DimGroup {
  int ndim = 0;
  int64_t numel = 1;
  int64_t size[kMaxDims] = {};
  int64_t stride[kIndexOperands][kMaxDims] = {};

  // Adds the element offsets of row-major position `linear` to off[0..2].
  void add_offsets(int64_t linear, int64_t* off) const {
    for (int d = ndim - 1; d >= 0; --d) {
      int64_t c = linear % size[d];
      linear /= size[d];
      for (int k = 0; k < kIndexOperands; ++k) off[k] += c * stride[k][d];
    }
  }
  // A walk over consecutive positions without a division per step: begin() sets coord and off for
  // `linear` (off as add_offsets from zero), next() advances both to the following position.
  void begin(int64_t linear, int64_t* coord, int64_t* off) const {
    for (int k = 0; k < kIndexOperands; ++k) off[k] = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      coord[d] = linear % size[d];
      linear /= size[d];
      for (int k = 0; k < kIndexOperands; ++k) off[k] += coord[d] * stride[k][d];
    }
  }
  void next(int64_t* coord, int64_t* off) const {
    for (int d = ndim - 1; d >= 0; --d) {
      for (int k = 0; k < kIndexOperands; ++k) off[k] += stride[k][d];
      if (++coord[d] < size[d]) return;
      for (int k = 0; k < kIndexOperands; ++k) off[k] -= stride[k][d] * size[d];
      coord[d] = 0;
    }
  }
};

// Note [Index iteration]
// Every index op is one loop: for each position (o, j) of the dims before (outer) and after
// (inner) the op's dim, and for i along the dim in order,
//     self[o, index[o, i, j] - index_base, j]  <op>  other[o, i, j].
// gather/index read self into other, scatter/indexCopy/indexFill write other into self,
// scatterAdd/indexAdd accumulate. index/indexCopy/indexAdd/indexFill use a 1D index shared by
// every (o, j) (0 outer/inner strides). Kernels split the (o, j) positions over threads and keep
// the i loop sequential, so repeated indices accumulate without lost updates and the last write
// wins, deterministically.
struct IndexIter {
  DimGroup outer, inner;
  int64_t n = 0;                                 // length of the iteration along the dim
  int64_t dim_stride[kIndexOperands] = {0, 0, 0};
  char* data[kIndexOperands] = {nullptr, nullptr, nullptr};
  int64_t index_base = 0;
  uint64_t value = 0;  // a fill value stored as the element type; data[1] points here then
  // For kernels that check the index values themselves (CUDA: Note [Deferred device errors]): an
  // index i is valid when 0 <= i - index_base < bound; dim and op name it in the error.
  int64_t bound = 0;
  int dim = 0;
  int op = 0;  // an OpId

  IndexIter() = default;
  IndexIter(const IndexIter&) = delete;  // data[1] may point at value
  IndexIter& operator=(const IndexIter&) = delete;
  int64_t positions() const { return outer.numel * inner.numel; }
};

using IndexKernel = void (*)(const IndexIter&);

// Fills `it` for an index op iterating over `shape` split at `dim`. `other` may be null: then
// `fill` (converted to self's dtype) is used for every element. index_is_list: a 1D index shared
// by all slices; otherwise the index has `shape` itself.
void build_index_iter(IndexIter* it, const DimVec& shape, int dim, const Tensor& self, const Tensor* other,
                      double fill, const Tensor& index, bool index_is_list, int64_t index_base);

// Note [Mask scan]
// maskedSelect, maskedCopy and nonzero write their k-th true element to place k. The elements are
// cut into fixed chunks of the row-major order; a first kernel pass counts the true elements of
// each chunk (the nonzero kernel of the mask's dtype with count_only), the front-end turns the
// counts into starting places, and a second pass writes every chunk in parallel.
struct MaskScan {
  int64_t chunk = 0;            // elements per chunk (the last one may be shorter)
  int64_t nchunks = 0;
  int64_t* counts = nullptr;    // count pass: true elements per chunk; write pass: first place
                                // (nchunks + 1 entries: counts[c + 1] is where chunk c ends)
  bool count_only = false;
  char* flat = nullptr;         // maskedSelect: the 1D result; maskedCopy: the contiguous source;
                                // nonzero: the N x ndim int64 result
  int64_t index_base = 0;       // nonzero
  int ndim = 0;                 // nonzero: coordinates are for this shape
  int64_t shape[kMaxDims] = {};
};

// Kernels of maskedSelect, maskedCopy and nonzero: operand 0 of `it` is the mask (or nonzero's
// input), operand 1 the data tensor when there is one.
using MaskKernel = void (*)(const PointwiseIter& it, const MaskScan& scan);

// An index tensor as a contiguous int64 tensor: LongTensor (IntTensor converted); other dtypes
// and more than max_dims dims are errors naming the op.
Tensor index_as_long(const char* op, const Tensor& index, int max_dims);
// Checks that every value of a contiguous int64 CPU index lies in [base, base + size); the error
// names the first bad value, its position (in the same base) and the dim (1-based). A device
// index is left to the kernels (IndexIter::bound).
void check_index_values(const char* op, const Tensor& index, int64_t base, int64_t size, int dim);
// A 0-dim tensor as a vector of one element (sharing storage); other tensors unchanged. Index ops
// treat 0-dim operands this way, as PyTorch does.
Tensor as_vector_if_scalar(const Tensor& t);
// A mask argument: ByteTensor or BoolTensor on dev, else an error naming the op.
void check_mask(const char* op, const Tensor& mask, const Tensor& self);

}  // namespace tocha
