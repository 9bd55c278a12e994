// Search front-ends: searchsorted and bucketize (PyTorch's, a binary search per value through the
// searchsorted kernel, registered per device and dtype) and argsort (sort's indices). Positions
// and indices are offset by index_base (1 for Lua, 0 for C); see Note [1-based insertion points].
#pragma once
#include "core/tensor.h"

namespace tocha {

// For each value, the insertion point in its row of seq (the last dim; a 1D seq serves every
// value, an N-D seq's leading dims match values'): the first position whose element is >= value
// (right: > value), + index_base. sorter (optional, an undefined tensor when absent) holds, per
// row, the indices (+ index_base) that sort an unsorted seq. Results are i64, or i32 if out_int32.
Tensor searchsorted(const Tensor& seq, const Tensor& values, bool right, bool out_int32, const Tensor& sorter,
                    int64_t index_base);
// The bucket of each value among 1D ascending boundaries: searchsorted(boundaries, values, right).
Tensor bucketize(const Tensor& values, const Tensor& boundaries, bool right, bool out_int32, int64_t index_base);
// The indices (+ index_base) that sort x along dim (stable; NaN last ascending), sort's indices.
Tensor argsort(const Tensor& x, int64_t dim, bool descending, int64_t index_base);

// Kernel interface of searchsorted: contiguous operands of one dtype. Value i is searched in the
// row (i / per_row) of seq, which starts row_stride elements after the previous one (0: one row
// shared by every value); the result (position + base) goes to out[i].
struct SearchArgs {
  const void* seq = nullptr;
  const void* values = nullptr;
  const int64_t* sorter = nullptr;  // null, or per row the 0-based order of seq's elements
  void* out = nullptr;              // int64, or int32 when out_int32
  int64_t n_values = 0;
  int64_t seq_len = 0;
  int64_t per_row = 1;
  int64_t row_stride = 0;
  int64_t base = 0;
  bool right = false;
  bool out_int32 = false;
};
using SearchKernel = void (*)(const SearchArgs&);

}  // namespace tocha
