// View front-ends: new headers over the same storage (DESIGN.md decision 4). Dims and indices
// are 0-based here (negative counts from the end); the Lua layer converts from 1-based.
#pragma once
#include "core/tensor.h"

namespace tocha {

Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
Tensor transpose(const Tensor& t, int64_t d1, int64_t d2);
Tensor permute(const Tensor& t, const DimVec& dims);
// Same elements, new sizes; one size may be -1. Fails when the strides do not allow a view.
Tensor view(const Tensor& t, const DimVec& sizes);
// view when possible, else a contiguous copy.
Tensor reshape(const Tensor& t, const DimVec& sizes);
// Broadcasts size-1 dims (and new leading dims) to sizes; -1 keeps a size.
Tensor expand(const Tensor& t, const DimVec& sizes);
// Slices of `size` elements every `step` along dim, as a new last dim (Torch7 unfold).
Tensor unfold(const Tensor& t, int64_t dim, int64_t size, int64_t step);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, int64_t dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor as_strided(const Tensor& t, const DimVec& sizes, const DimVec& strides, int64_t offset);
// Sizes after resolving a -1 against numel; throws when impossible.
DimVec infer_size(const char* op, const DimVec& sizes, int64_t numel);
// Strides that let `t` be viewed with `sizes`, or false (PyTorch's computeStride rule).
bool view_strides(const DimVec& old_sizes, const DimVec& old_strides, const DimVec& sizes, DimVec* out);

}  // namespace tocha
