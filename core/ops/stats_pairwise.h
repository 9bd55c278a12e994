// PyTorch's statistics between variables and points: cov and corrcoef, trapezoid and
// cumulative_trapezoid, cdist and pdist, cosine_similarity and pairwise_distance. Composites of
// recorded ops (mm, norm, sum, cumsum...), so they are differentiable and run on every device.
#pragma once
#include "core/tensor.h"

namespace tocha {

// Covariance matrix of the variables (rows) of x (1-D: one variable) over its observations
// (columns), with integer frequency weights and floating observation weights (either undefined).
Tensor cov(const Tensor& x, double correction, const Tensor& fweights, const Tensor& aweights);
// Pearson correlation coefficients of the rows of x, clipped to [-1, 1].
Tensor corrcoef(const Tensor& x);
// The trapezoid rule along dim with spacing dx, or at sample points x (1-D of y's size along dim,
// or y's shape) when x is defined; cumulative: the running integrals (one fewer along dim).
Tensor trapezoid(const Tensor& y, const Tensor& x, double dx, int64_t dim, bool cumulative);
// p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M): (..., P, R). p >= 0.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p);
// The distances between the rows of x (N, M), i < j in row-major order: N (N - 1) / 2 values.
Tensor pdist(const Tensor& x, double p);
// sum(x1 x2) / sqrt(max(|x1|^2, eps^2) max(|x2|^2, eps^2)) along dim of the broadcast x1, x2
// (floating-point), the clamps invisible to the gradient as in PyTorch 1.13.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps);
// ||x1 - x2 + eps||_p along the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim);

}  // namespace tocha
