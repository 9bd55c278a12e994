// PyTorch's shape helpers missing from Torch7: unflatten, unbind, diagonal, broadcasting helpers,
// atleast_nd, the hstack family, tensor_split, rot90 and repeat_interleave. Composites of recorded
// views and copies, so every device and dtype works and they are differentiable. Dims 0-based.
#pragma once
#include <vector>
#include "core/tensor.h"

namespace tocha {

// A view of x with dim replaced by sizes (one may be -1; their product is x.size(dim)).
Tensor unflatten(const Tensor& x, int64_t dim, const DimVec& sizes);
// The slices of x along dim, as views with that dim removed.
std::vector<Tensor> unbind(const Tensor& x, int64_t dim);
// A view of the diagonal of dims d1 and d2 (offset > 0 above, < 0 below), appended as the last dim.
Tensor diagonal(const Tensor& x, int64_t offset, int64_t d1, int64_t d2);
// The broadcast of several shapes (NumPy rules), or an error naming op.
DimVec broadcast_shape_list(const std::vector<DimVec>& shapes, const char* op);
// x expanded to sizes (a view; sizes must be a broadcast of x's).
Tensor broadcast_to(const Tensor& x, const DimVec& sizes);
// Every tensor expanded to the broadcast of their shapes (views).
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
// x as a view with at least n dims (n = 1, 2, 3; NumPy's placement of the new size-1 dims).
Tensor atleast_nd(const Tensor& x, int n);
// hstack / vstack / row_stack / dstack / column_stack: cat after atleast_nd (kind 'h', 'v', 'r', 'd', 'c').
Tensor stack_kind(const std::vector<Tensor>& tensors, char kind);
// The op name of a stack kind ('r': rowStack), for its errors.
const char* stack_kind_name(char kind);
// tensor_split into `sections` nearly equal views along dim (the first size % sections get one more).
std::vector<Tensor> tensor_split_sections(const Tensor& x, int64_t sections, int64_t dim);
// tensor_split at 0-based start positions (negative from the end, clamped to [0, size]): views
// x[0:p0], x[p0:p1], ..., x[pk:] (a part with p(i+1) < p(i) is empty).
std::vector<Tensor> tensor_split_indices(const Tensor& x, const DimVec& starts, int64_t dim);
// x rotated k quarter turns in the plane of dims (from dims[0] toward dims[1]); a copy.
Tensor rot90(const Tensor& x, int64_t k, const DimVec& dims);
// Each slice i of x along dim repeated repeats[i] times (repeats: a 1D or one-element integer
// tensor); has_dim false: x flattened. A copy through index_select (differentiable).
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, bool has_dim, int64_t dim);
Tensor repeat_interleave(const Tensor& x, int64_t repeats, bool has_dim, int64_t dim);
// The indices (+ index_base) 0, 0, 1, ... with i repeated repeats[i] times (a LongTensor).
Tensor repeat_interleave_index(const Tensor& repeats, int64_t index_base);

}  // namespace tocha
