// Elementwise predicates and masks (PyTorch's isnan, isinf, isfinite, isposinf, isneginf, the
// logical ops, isclose/allclose) and nan_to_num: composites of the pointwise ops (Note
// [Predicates as composites]). Masks are ByteTensors, Torch7's comparison type.
#pragma once
#include <optional>
#include "core/tensor.h"

namespace tocha {

// 1 where x is NaN / +-inf / neither / +inf / -inf. Integer and bool tensors hold no NaN or inf.
Tensor isnan(const Tensor& x);
Tensor isinf(const Tensor& x);
Tensor isfinite(const Tensor& x);
Tensor isposinf(const Tensor& x);
Tensor isneginf(const Tensor& x);

// Truth of nonzero elements (NaN is true), any dtypes, broadcasting: not x, a and b, a or b, a xor b.
Tensor logical_not(const Tensor& x);
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);
Tensor logical_xor(const Tensor& a, const Tensor& b);

// 1 where a == b (an inf equals the same inf) or |a - b| <= atol + rtol * |b| is finite and
// holds; with equal_nan, NaN equals NaN. rtol, atol >= 0. allclose: all of isclose.
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);

// x with NaN replaced by nan, +inf by posinf and -inf by neginf (defaults: the dtype's largest and
// lowest finite values); a copy for integer and bool tensors. Differentiable (the gradient passes
// where x is finite).
Tensor nan_to_num(const Tensor& x, double nan = 0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);

}  // namespace tocha
