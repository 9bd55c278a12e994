// Scan front-ends along one dim: cumsum and cumprod (Torch7), and the cross product of 3-vectors,
// which also works slice by slice along a dim.
#pragma once
#include <optional>
#include "core/tensor.h"

namespace tocha {

// Running sums (products) along dim; integer and bool inputs give i64 (like sum).
Tensor cumsum(const Tensor& a, int64_t dim);
void cumsum_out(const Tensor& out, const Tensor& a, int64_t dim);
Tensor cumprod(const Tensor& a, int64_t dim);
void cumprod_out(const Tensor& out, const Tensor& a, int64_t dim);
// a x b along dim (of size 3); without dim, the first dim of size 3 (Torch7). a and b have equal
// sizes; the dtype is their promotion.
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim);
void cross_out(const Tensor& out, const Tensor& a, const Tensor& b, std::optional<int64_t> dim);

}  // namespace tocha
