// Front-ends of the ops that take a list of slices along one dim (Torch7's index, indexCopy,
// indexAdd, indexFill). Dims are 0-based (negative from the end); index values are offset by
// index_base (1 from Lua, 0 from C). In-place ops end in `_`; the plain names return a copy.
#pragma once
#include "core/tensor.h"

namespace tocha {

// Slices index[i] of src along dim, stacked in order (Torch7 index, PyTorch index_select).
Tensor index_select(const Tensor& src, int64_t dim, const Tensor& index, int64_t index_base);
// index_select into out (resized; Torch7's res:index(src, dim, index)).
void index_select_out(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index, int64_t index_base);

// Slice index[i] of self along dim becomes src's slice i (for a repeated index the last one wins).
void index_copy_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t index_base);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t index_base);

// src's slice i is added to slice index[i] of self along dim (repeats accumulate).
void index_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t index_base);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t index_base);

// Slices index[i] of self along dim are set to value.
void index_fill_(const Tensor& self, int64_t dim, const Tensor& index, double value, int64_t index_base);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, double value, int64_t index_base);

}  // namespace tocha
