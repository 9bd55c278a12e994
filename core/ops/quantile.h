// quantile and nanquantile (PyTorch 1.13): the q-th quantiles along a dim or of all elements, by
// sort and interpolation between the two nearest ranks. Composites of recorded ops.
#pragma once
#include <string>
#include "core/tensor.h"

namespace tocha {

// q: a 0-dim or 1-D tensor of probabilities in [0, 1] (a 1-D q adds a leading dim of its size).
// has_dim false: x flattened (keepdim then keeps every dim as size 1). interpolation: "linear",
// "lower", "higher", "midpoint" or "nearest". skip_nan: nanquantile (NaN elements ignored;
// quantile gives NaN for a slice that holds one).
Tensor quantile(const Tensor& x, const Tensor& q, bool has_dim, int64_t dim, bool keepdim,
                const std::string& interpolation, bool skip_nan);

}  // namespace tocha
