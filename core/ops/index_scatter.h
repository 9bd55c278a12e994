// Front-ends of gather, scatter and scatterAdd: an index tensor with as many dims as the input
// picks, for every position, the element along `dim` (Torch7 and PyTorch rules: the index is no
// larger than the input in the other dims). Dims are 0-based; index values are offset by
// index_base (1 from Lua, 0 from C). In-place ops end in `_`; the plain names return a copy.
#pragma once
#include "core/tensor.h"

namespace tocha {

// out[p] = input[p with p[dim] replaced by index[p]]; the result has index's size.
Tensor gather(const Tensor& input, int64_t dim, const Tensor& index, int64_t index_base);
// gather into out (resized; Torch7's res:gather(src, dim, index)).
void gather_out(const Tensor& out, const Tensor& input, int64_t dim, const Tensor& index, int64_t index_base);

// self[p with p[dim] replaced by index[p]] = src[p] for every position p of index.
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t index_base);
// The same with one value for every position.
void scatter_(const Tensor& self, int64_t dim, const Tensor& index, double value, int64_t index_base);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t index_base);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, double value, int64_t index_base);

// self[p with p[dim] replaced by index[p]] += src[p] (repeated targets accumulate).
void scatter_add_(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t index_base);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, int64_t index_base);

}  // namespace tocha
