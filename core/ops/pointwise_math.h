// PyTorch's pointwise functions that are composites of the op table's primitives: logit with an
// eps clamp, float_power (in double), signbit, ldexp, frexp and divide's rounding modes
// (Note [Pointwise composites], pointwise_math.cpp). Differentiable where PyTorch's are.
#pragma once
#include <optional>
#include <utility>
#include "core/ops/scalar.h"
#include "core/tensor.h"

namespace tocha {

// log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps (<= 0.5) is given and not negative
// (the gradient is 0 outside that range, as PyTorch's). Integer tensors give the default float dtype.
Tensor logit(const Tensor& x, std::optional<double> eps);
// a ^ b computed and returned in f64 (PyTorch's float_power); _out needs an f64 result tensor.
Tensor float_power(const Tensor& a, const Tensor& b);
Tensor float_power(const Tensor& a, Scalar b);
Tensor float_power(Scalar a, const Tensor& b);
void float_power_out(const Tensor& out, const Tensor& a, const Tensor& b);
void float_power_out(const Tensor& out, const Tensor& a, Scalar b);
// A ByteTensor mask of the elements whose sign bit is set (-0 and negative NaNs included).
Tensor signbit(const Tensor& x);
// x * 2^e (PyTorch's formula, so 2^e may overflow where the product would not), in a float dtype.
Tensor ldexp(const Tensor& x, const Tensor& e);
Tensor ldexp(const Tensor& x, Scalar e);
// (mantissa, exponent) with x == mantissa * 2^exponent, |mantissa| in [0.5, 1) (0, inf and NaN:
// themselves with exponent 0); exponent is an IntTensor. Floating-point x only; the mantissa is
// differentiable.
std::pair<Tensor, Tensor> frexp(const Tensor& x);
// a / b rounded toward zero ("trunc") or down ("floor"), in the promoted dtype (integers stay
// integers); mode "" is true division. Rounded results have no gradient.
Tensor divide(const Tensor& a, const Tensor& b, const char* mode);
Tensor divide(const Tensor& a, Scalar b, const char* mode);
Tensor divide(Scalar a, const Tensor& b, const char* mode);

}  // namespace tocha
