// Predicates, logical ops, isclose and nan_to_num (see predicates.h), written on the pointwise
// front-ends so that every device and dtype those support is supported here.
#include "core/ops/predicates.h"
#include <cfloat>
#include <cmath>
#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/ops/index_mask.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

// Note [Predicates as composites]
// Each predicate is one or two pointwise passes (isnan is x != x, as in PyTorch; isinf is
// |x| == inf; isfinite is |x| < inf, false for NaN), and the logical ops compare each operand
// with 0 and combine the two byte masks (and: product, or: max, xor: !=). Timed at one thread
// against PyTorch 1.13 they are faster than its kernels at 256x256 and 2048x2048, so they have
// no kernels of their own. They run with grad mode off: masks have no gradient, and a
// recorded |x| of an input that requires grad would only cost a node. isclose follows
// PyTorch's formula (an exact-equality pass, then the finite |a - b| <= atol + rtol * |b|),
// computed in the operands' promoted dtype, or in f64 for integers and bools (no overflow of
// a - b). Unlike PyTorch, a and b may have different dtypes (they are promoted, as in every
// binary op here). nan_to_num stays differentiable: a clamp to the finite range (inf goes to
// the largest finite value, and the clamp's gradient is 0 there), then in-place masked fills of
// the other replacements (recorded; their gradient is 0 where they fill), so the gradient passes
// where x is finite and is 0 elsewhere. Masked fills in place cost a pass each, where() about two.

namespace {

const double kInf = HUGE_VAL;

// The largest finite value of a floating dtype (its lowest is the negation).
double finite_max(DType dt) {
  switch (dt) {
    case DType::f64: return DBL_MAX;
    case DType::f16: return 65504.0;
    case DType::bf16: return 3.38953138925153547590470800371487866880e38;  // 0x7f7f
    default: return FLT_MAX;
  }
}

// A ByteTensor of x's size filled with v: the answer of a predicate for a dtype without NaN or inf.
Tensor constant_mask(const Tensor& x, double v) { return full(x.sizes(), v, DType::u8, x.device()); }

// b beside a in the binary op op (binary_operand: broadcasting, or Torch7's element count).
Tensor operand(const char* op, const Tensor& a, const Tensor& b) {
  DimVec shape;
  return binary_operand(op, a, b, &shape);
}

Tensor truth(const Tensor& x) { return binary(OpId::ne, x, Scalar(0.0)); }

}  // namespace

Tensor isnan(const Tensor& x) {
  if (!is_floating(x.dtype())) return constant_mask(x, 0);
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::ne, x, x);
}

Tensor isinf(const Tensor& x) {
  if (!is_floating(x.dtype())) return constant_mask(x, 0);
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::eq, unary(OpId::abs, x), Scalar(kInf));
}

Tensor isfinite(const Tensor& x) {
  if (!is_floating(x.dtype())) return constant_mask(x, 1);
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::lt, unary(OpId::abs, x), Scalar(kInf));
}

Tensor isposinf(const Tensor& x) {
  if (!is_floating(x.dtype())) return constant_mask(x, 0);
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::eq, x, Scalar(kInf));
}

Tensor isneginf(const Tensor& x) {
  if (!is_floating(x.dtype())) return constant_mask(x, 0);
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::eq, x, Scalar(-kInf));
}

Tensor logical_not(const Tensor& x) {
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::eq, x, Scalar(0.0));
}

Tensor logical_and(const Tensor& a, const Tensor& b) {
  Tensor b2 = operand("logicalAnd", a, b);
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::mul, truth(a), truth(b2));
}

Tensor logical_or(const Tensor& a, const Tensor& b) {
  Tensor b2 = operand("logicalOr", a, b);
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::cmax, truth(a), truth(b2));
}

Tensor logical_xor(const Tensor& a, const Tensor& b) {
  Tensor b2 = operand("logicalXor", a, b);
  autograd::GradModeGuard no_grad(false);
  return binary(OpId::ne, truth(a), truth(b2));
}

namespace {

Tensor isclose_impl(const char* op, const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  TOCHA_CHECK(rtol >= 0, op, "rtol must be a number >= 0, got ", rtol);
  TOCHA_CHECK(atol >= 0, op, "atol must be a number >= 0, got ", atol);
  Tensor b2 = operand(op, a, b);
  autograd::GradModeGuard no_grad(false);
  Tensor close = binary(OpId::eq, a, b2);  // also an inf with the same inf
  if (equal_nan) close = binary(OpId::cmax, close, binary(OpId::mul, isnan(a), isnan(b2)));
  if (rtol == 0 && atol == 0) return close;
  DType dt = promote_types(a.dtype(), b2.dtype());
  if (!is_floating(dt)) dt = DType::f64;
  Tensor x = to_dtype(a, dt), y = to_dtype(b2, dt);
  Tensor err = unary(OpId::abs, binary(OpId::csub, x, y));
  Tensor allowed = binary(OpId::add, binary(OpId::mul, unary(OpId::abs, y), Scalar(rtol)), Scalar(atol));
  // err < inf: an infinite b makes the allowed error infinite too
  Tensor within = binary(OpId::mul, binary(OpId::le, err, allowed), binary(OpId::lt, err, Scalar(kInf)));
  return binary(OpId::cmax, close, within);
}

}  // namespace

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return isclose_impl("isclose", a, b, rtol, atol, equal_nan);
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  Tensor close = isclose_impl("allclose", a, b, rtol, atol, equal_nan);
  return close.numel() == 0 || item_at(all(close), 0) != 0;
}

Tensor nan_to_num(const Tensor& x, double nan, std::optional<double> posinf, std::optional<double> neginf) {
  if (!is_floating(x.dtype())) return clone(x);
  const double hi = finite_max(x.dtype());
  const double p = posinf.value_or(hi), n = neginf.value_or(-hi);
  Tensor y = clamp(x, -hi, hi);  // +-inf to the largest finite values; NaN passes through
  if (p != hi) masked_fill_(y, isposinf(x), p);
  if (n != -hi) masked_fill_(y, isneginf(x), n);
  masked_fill_(y, isnan(x), nan);
  return y;
}

}  // namespace tocha
