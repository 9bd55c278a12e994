// Sorting and selection front-ends: sort, topk, kthvalue, median and mode along a dim. Values
// keep the input's dtype; indices are LongTensors offset by index_base (1 for Lua, 0 for C).
// NaN orders after every number (PyTorch); ties keep the original order (sort is stable).
#pragma once
#include "core/ops/reduce_iter.h"
#include "core/tensor.h"

namespace tocha {

// Sorts along dim, ascending unless descending.
ValuesIndices sort(const Tensor& a, int64_t dim, bool descending, int64_t index_base);
void sort_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool descending,
              int64_t index_base);
// The k largest (largest = true) or k smallest elements along dim, best first. The order is
// always sorted; `sorted` is accepted for Torch7/PyTorch compatibility.
ValuesIndices topk(const Tensor& a, int64_t k, int64_t dim, bool largest, bool sorted, int64_t index_base);
void topk_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, int64_t dim, bool largest,
              bool sorted, int64_t index_base);
// The k-th smallest element along dim (k counts from 1) and its index.
ValuesIndices kthvalue(const Tensor& a, int64_t k, int64_t dim, bool keepdim, int64_t index_base);
void kthvalue_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t k, int64_t dim,
                  bool keepdim, int64_t index_base);
// The lower median (Torch7: the ((n+1)/2)-th smallest) along dim; NaN when the slice has one.
ValuesIndices median(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base);
void median_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool keepdim,
                int64_t index_base);
// The lower median of all elements, as a 0-dim tensor.
Tensor median(const Tensor& a);
// The most frequent value along dim (the smallest of equally frequent ones) and the index of its
// last occurrence.
ValuesIndices mode(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base);
void mode_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool keepdim,
              int64_t index_base);

}  // namespace tocha
