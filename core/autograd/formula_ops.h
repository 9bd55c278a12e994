// Short names for the ops formulas are written with, so a vjp reads like its math
// (g * y * (1 - y)). Every call goes through the recorded front-ends, so formulas are
// themselves differentiable under createGraph.
#pragma once
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {
namespace autograd {
namespace f {

inline Tensor add(const Tensor& a, const Tensor& b) { return binary(OpId::add, a, b); }
inline Tensor add(const Tensor& a, double s) { return binary(OpId::add, a, Scalar(s)); }
inline Tensor sub(const Tensor& a, const Tensor& b) { return binary(OpId::csub, a, b); }
inline Tensor sub(double s, const Tensor& b) { return binary(OpId::csub, Scalar(s), b); }
inline Tensor mul(const Tensor& a, const Tensor& b) { return binary(OpId::mul, a, b); }
inline Tensor mul(const Tensor& a, double s) { return binary(OpId::mul, a, Scalar(s)); }
inline Tensor div(const Tensor& a, const Tensor& b) { return binary(OpId::div, a, b); }
inline Tensor div(const Tensor& a, double s) { return binary(OpId::div, a, Scalar(s)); }
inline Tensor div(double s, const Tensor& b) { return binary(OpId::div, Scalar(s), b); }
inline Tensor pow(const Tensor& a, double s) { return binary(OpId::pow, a, Scalar(s)); }
inline Tensor pow(const Tensor& a, const Tensor& b) { return binary(OpId::pow, a, b); }
inline Tensor neg(const Tensor& a) { return unary(OpId::neg, a); }
inline Tensor exp(const Tensor& a) { return unary(OpId::exp, a); }
inline Tensor log(const Tensor& a) { return unary(OpId::log, a); }
inline Tensor sqrt(const Tensor& a) { return unary(OpId::sqrt, a); }
inline Tensor sin(const Tensor& a) { return unary(OpId::sin, a); }
inline Tensor cos(const Tensor& a) { return unary(OpId::cos, a); }
inline Tensor sinh(const Tensor& a) { return unary(OpId::sinh, a); }
inline Tensor cosh(const Tensor& a) { return unary(OpId::cosh, a); }
inline Tensor sign(const Tensor& a) { return unary(OpId::sign, a); }
inline Tensor square(const Tensor& a) { return unary(OpId::square, a); }
inline Tensor digamma(const Tensor& a) { return unary(OpId::digamma, a); }
inline Tensor floor(const Tensor& a) { return unary(OpId::floor, a); }
inline Tensor trunc(const Tensor& a) { return unary(OpId::trunc, a); }
// A 0/1 mask of the comparison in dtype dt (so it can multiply a gradient).
inline Tensor mask(OpId cmp, const Tensor& a, double s, DType dt) { return to_dtype(binary(cmp, a, Scalar(s)), dt); }
inline Tensor mask(OpId cmp, const Tensor& a, const Tensor& b, DType dt) { return to_dtype(binary(cmp, a, b), dt); }
inline Tensor zeros_like(const Tensor& t) { return zeros(t.sizes(), t.dtype(), t.device()); }

}  // namespace f
}  // namespace autograd
}  // namespace tocha
