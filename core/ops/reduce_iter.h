// ReduceIter: the geometry of a reduction, scan or per-slice op (sort, topk, cross...), built by
// the front-ends in core/ops/reduce*.cpp, sort.cpp, scan.cpp and read by the kernels. The input's
// dims split into kept dims (one output element, or one slice, per index) and reduced dims (the
// ones folded into an output, or the slice dim). Both lists are reordered by input stride and
// coalesced, so the innermost reduced dim of a contiguous row reduction has stride 1.
#pragma once
#include <cstdint>
#include <initializer_list>
#include "core/op_id.h"
#include "core/tensor.h"

namespace tocha {

// Note [ReduceIter operands]: operand 0 is always the input. Reductions: 1 = values (same shape
// as the input with the reduced dims of size 1, stride 0 there), 2 = LongTensor indices (max,
// min, median, mode, kthvalue). Slice ops (sort, topk, cumsum, cumprod) use the same roles with
// outputs that have a stride along the slice dim; cross reads operand 2 as its second input.
struct ReduceIter {
  static constexpr int kMaxOperands = 4;
  int noperands = 0;
  // Kept dims (innermost last) and their strides in elements of each operand.
  int ndim = 0;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];
  int64_t n_out = 1;
  // Reduced dims (innermost last, at least one). Slice ops have exactly one.
  int rdim = 0;
  int64_t rshape[kMaxDims];
  int64_t rstrides[kMaxOperands][kMaxDims];
  int64_t n_red = 1;
  char* data[kMaxOperands] = {nullptr, nullptr, nullptr, nullptr};
  double params[4] = {0, 0, 0, 0};  // op parameters (norm's p, var's correction, topk's k...)
  int64_t index_base = 0;           // added to written indices (1 for Lua)
  // Output 1 is a double holding the accumulator's value (reduce_value) instead of the op's
  // result dtype, so full reductions reach Lua without rounding through f32.
  bool value_f64 = false;
};

using ReduceKernel = void (*)(const ReduceIter&);

// Builds the geometry of `in` with the dims whose bit is set in `reduced` (bit d for dim d)
// folded. `outs` are the other operands: each has in's number of dims; on kept dims they have
// in's sizes, on reduced dims any size (1 for reductions; the slice length for slice ops).
ReduceIter make_reduce_iter(const Tensor& in, std::initializer_list<const Tensor*> outs, uint32_t reduced);

// The sizes of a reduction of `sizes` over the dims in `reduced`: those dims become 1, or are
// removed when keepdim is false.
DimVec reduced_shape(const DimVec& sizes, uint32_t reduced, bool keepdim);
// A view of t (the result of a keepdim=false reduction) with the reduced dims put back as size 1.
Tensor unsqueeze_reduced(const Tensor& t, const DimVec& in_sizes, uint32_t reduced);
// The mask bit of one dim (0-based, negative from the end) and of every dim of a.
uint32_t dim_mask(const Tensor& a, int64_t dim, const char* op);
uint32_t all_dims_mask(const Tensor& a);

// The tensor an op writes into: a new one of (shape, dt), or `out` resized to shape when it has
// dtype dt and shares no memory with the inputs; otherwise a temporary that finish_out copies
// into out (Torch7's `res` arguments accept any dtype the result converts to).
Tensor prepare_out(const char* op, const Tensor* out, const DimVec& shape, DType dt, const Tensor& in,
                   const Tensor* in2 = nullptr);
// Copies a temporary made by prepare_out into out (resizing it), or records out's new version.
void finish_out(const Tensor* out, const Tensor& target);

// Values (the input's dtype) and LongTensor indices, as max, min, median, mode, kthvalue, sort
// and topk return them.
struct ValuesIndices {
  Tensor values, indices;
};
// Runs the kernel of `op` along `dim` (already wrapped) with outputs of length out_len there:
// reductions pass 1 (and keepdim), slice ops the slice length. Outputs go into the given tensors
// when not null (resized, converted), else into new ones.
ValuesIndices run_values_indices(OpId op, const Tensor& a, int dim, int64_t out_len, bool keepdim,
                                 int64_t index_base, const double* params, const Tensor* values_out,
                                 const Tensor* indices_out);

}  // namespace tocha
