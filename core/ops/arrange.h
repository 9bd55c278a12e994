// Rearranging front-ends from PyTorch: roll, tile, movedim, meshgrid and diff. Composites of
// recorded primitives (cat, narrow, expand, permute, csub...), so they work on every device and
// dtype those have and are differentiable. Dims are 0-based here (negative from the end).
#pragma once
#include <vector>
#include "core/tensor.h"

namespace tocha {

// A copy of x with its elements shifted by shifts[i] places along dims[i] (wrapping around);
// no dims: x flattened, shifted by the one shift, and given x's shape back.
Tensor roll(const Tensor& x, const DimVec& shifts, const DimVec& dims);
// A copy of x repeated reps[i] times along each dim; fewer reps than dims count as leading 1s,
// more reps add leading dims (PyTorch's tile).
Tensor tile(const Tensor& x, const DimVec& reps);
// A view of x with dims source[i] moved to positions destination[i], the others in order.
Tensor movedim(const Tensor& x, const DimVec& source, const DimVec& destination);
// Coordinate grids of 0-dim or 1D tensors: output i varies along dim i (xy: the first two
// swapped) and is an expanded view of tensors[i] (it shares its memory).
std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, bool xy);
// The n-th forward difference along dim (x[i+1] - x[i], or xor for bool), after prepend and
// append (optional: undefined tensors) are concatenated to x along dim; n = 0 is a copy of x.
Tensor diff(const Tensor& x, int64_t n, int64_t dim, const Tensor& prepend, const Tensor& append);

}  // namespace tocha
