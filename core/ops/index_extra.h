// PyTorch's indexing functions missing from Torch7: take, take_along_dim, put, index_put,
// masked_scatter and isin. Composites of the recorded index ops (index_select, index_copy,
// index_add, gather, masked_copy), so they work on every device and are differentiable. Dims
// 0-based; index values are offset by index_base (1 from Lua, 0 from C), negative from the end.
#pragma once
#include <vector>
#include "core/tensor.h"

namespace tocha {

// The elements of x (seen flattened, row-major) at index, in index's shape.
Tensor take(const Tensor& x, const Tensor& index, int64_t index_base);
// gather(x, dim, index) after x and index are broadcast against each other except along dim;
// has_dim false: take(x, index) of the flattened tensors.
Tensor take_along_dim(const Tensor& x, const Tensor& index, bool has_dim, int64_t dim, int64_t index_base);
// A copy of x whose flattened elements at index take source's elements (accumulate: added to).
Tensor put(const Tensor& x, const Tensor& index, const Tensor& source, bool accumulate, int64_t index_base);
// A copy of x with x[indices[0], indices[1], ...] = values (accumulate: +=), PyTorch's advanced
// indexing: integer index tensors for the leading dims broadcast together; a bool/byte mask
// stands for its nonzero coordinates (as many dims as it has); values broadcast to the result.
Tensor index_put(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate,
                 int64_t index_base);
// A copy of x (broadcast with mask) whose true mask positions take source's elements in order.
Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& source);
// A BoolTensor of elements' shape: true where the element equals one of test_elements (invert:
// where it equals none).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool invert);
// index as 0-based int64 for a dim of `size` (negative counts from the end), every value checked
// in range (an error naming op, the value and dim + 1 otherwise); any device.
Tensor normalize_index(const char* op, const Tensor& index, int64_t size, int64_t index_base, int dim);
// check_index_values (index in [base, base + size)) on every device: device indices through
// reductions (one wait), so the error names op, not the gather/scatter kernel that would report it.
void check_index_range(const char* op, const Tensor& index, int64_t index_base, int64_t size, int dim);

}  // namespace tocha
