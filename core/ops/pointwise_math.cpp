// Composites of PyTorch's pointwise functions (see pointwise_math.h).
//
// Note [Pointwise composites]: these are sequences of recorded primitives (clamp, pow, mul, exp2,
// the comparisons), so they are differentiable, run on every device and dtype the primitives do,
// and need no kernels. Masks and exponents are computed with grad mode off.
#include "core/ops/pointwise_math.h"
#include "core/type_name.h"
#include <cmath>
#include <cstring>
#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/ops/pointwise.h"
#include "core/ops/predicates.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

using autograd::GradModeGuard;

// A negative eps clamps nothing, as in PyTorch's kernel.
Tensor logit(const Tensor& x, std::optional<double> eps) {
  if (!eps || *eps < 0) return unary(OpId::logit, x);
  TOCHA_CHECK(*eps <= 0.5, "logit", "eps must be at most 0.5 (the clamp range is [eps, 1 - eps]), got ", *eps);
  Tensor xf = is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype());
  return unary(OpId::logit, clamp(xf, *eps, 1 - *eps));
}

static Tensor as_f64(const Tensor& t) { return to_dtype(t, DType::f64); }
Tensor float_power(const Tensor& a, const Tensor& b) {
  check_same_device("floatPower", a, b);
  return binary(OpId::pow, as_f64(a), as_f64(b));
}
Tensor float_power(const Tensor& a, Scalar b) { return binary(OpId::pow, as_f64(a), Scalar(b.v)); }
Tensor float_power(Scalar a, const Tensor& b) { return binary(OpId::pow, Scalar(a.v), as_f64(b)); }
static void check_f64_out(const Tensor& out) {
  TOCHA_CHECK(out.dtype() == DType::f64, "floatPower", "computes in double: the result must be a ",
              dtype_tensor_name(DType::f64), ", got a ", tensor_type_name(out));
}
void float_power_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_f64_out(out);
  check_same_device("floatPower", a, b);
  binary_out(OpId::pow, out, as_f64(a), as_f64(b));
}
void float_power_out(const Tensor& out, const Tensor& a, Scalar b) {
  check_f64_out(out);
  binary_out(OpId::pow, out, as_f64(a), Scalar(b.v));
}

// copysign(1, x) carries x's sign bit, also of -0 and of NaNs, into a number < 0 or > 0.
Tensor signbit(const Tensor& x) {
  GradModeGuard off(false);
  if (is_floating(x.dtype())) return binary(OpId::lt, binary(OpId::copysign, Scalar(1.0), x), Scalar(0.0));
  if (x.dtype() == DType::u8 || x.dtype() == DType::b8) return zeros(x.sizes(), DType::u8, x.device());
  return binary(OpId::lt, x, Scalar(0.0));
}

// f16 and bf16 compute in float (as PyTorch's 2^e does) and round once at the end: 2^16 is
// already inf in f16, where ldexp(0.1, 16) = 6553.6 is not.
static bool reduced(DType t) { return t == DType::f16 || t == DType::bf16; }
Tensor ldexp(const Tensor& x, const Tensor& e) {
  check_same_device("ldexp", x, e);
  DType kt = float_result_dtype(result_dtype({&x, &e}));
  if (reduced(kt)) return to_dtype(ldexp(to_dtype(x, DType::f32), to_dtype(e, DType::f32)), kt);
  return binary(OpId::mul, x, unary(OpId::exp2, to_dtype(e, kt)));
}
Tensor ldexp(const Tensor& x, Scalar e) {
  Tensor xf = is_floating(x.dtype()) ? x : to_dtype(x, default_float_dtype());
  if (reduced(xf.dtype())) return to_dtype(ldexp(to_dtype(xf, DType::f32), e), xf.dtype());
  return binary(OpId::mul, xf, Scalar(std::exp2(e.v)));
}

// The exponent from floor(log2|x|) + 1, then corrected by one either way where log2 rounded
// across a power of two; the mantissa is x scaled by 2^-e in two halves, so that neither factor
// overflows for subnormal x (2^1074 does not fit a double).
std::pair<Tensor, Tensor> frexp(const Tensor& x) {
  TOCHA_CHECK(is_floating(x.dtype()), "frexp", "expects a floating-point tensor, got a ", tensor_type_name(x));
  Tensor s1, s2, e;
  {
    GradModeGuard off(false);
    DType dt = x.dtype();
    Tensor regular = binary(OpId::mul, isfinite(x), binary(OpId::ne, x, Scalar(0.0)));  // finite, non-zero
    Tensor zero = zeros(x.sizes(), dt, x.device()), one = ones(x.sizes(), dt, x.device());
    Tensor ax = where(regular, unary(OpId::abs, x), one);
    e = where(regular, binary(OpId::add, unary(OpId::floor, unary(OpId::log2, ax)), Scalar(1.0)), zero);
    auto scale = [&](const Tensor& ex) {
      Tensor h1 = unary(OpId::floor, binary(OpId::div, ex, Scalar(2.0)));
      s1 = unary(OpId::exp2, unary(OpId::neg, h1));
      s2 = unary(OpId::exp2, unary(OpId::neg, binary(OpId::csub, ex, h1)));
      return unary(OpId::abs, binary(OpId::mul, binary(OpId::mul, x, s1), s2));
    };
    Tensor am = scale(e);
    Tensor up = to_dtype(binary(OpId::mul, binary(OpId::ge, am, Scalar(1.0)), regular), dt);
    Tensor down = to_dtype(binary(OpId::mul, binary(OpId::lt, am, Scalar(0.5)), regular), dt);
    e = binary(OpId::add, e, binary(OpId::csub, up, down));
    scale(e);
  }
  Tensor m = binary(OpId::mul, binary(OpId::mul, x, s1), s2);
  return {m, to_dtype(e, DType::i32)};
}

// Note [Rounded division]: "floor" is floorDivide (floor(a / b) for floats, exact for integers);
// "trunc" is trunc(a / b) for floats and, for integers, the exact quotient of a - fmod(a, b)
// (a multiple of b) by b. Both round, so neither has a gradient (PyTorch's are zero too).
static void check_mode(const char* mode) {
  TOCHA_CHECK(!std::strcmp(mode, "") || !std::strcmp(mode, "trunc") || !std::strcmp(mode, "floor"), "divide",
              "roundingMode must be nil, 'trunc' or 'floor', got '", mode, "'");
}
// A zero integer divisor is an error naming divide, not the fmod or floorDivide it is built on.
static void check_integer_divisor(const Tensor& b) {
  TOCHA_CHECK(!any_true(binary(OpId::eq, b, Scalar(0.0))), "divide", "integer division by zero");
}
static void check_integer_divisor(Scalar b) { TOCHA_CHECK(b.v != 0, "divide", "integer division by zero"); }
template <class A, class B> static Tensor divide_impl(const A& a, const B& b, DType promoted, const char* mode) {
  check_mode(mode);
  if (!*mode) return binary(OpId::div, a, b);
  GradModeGuard off(false);
  if (!is_floating(promoted)) check_integer_divisor(b);
  if (!std::strcmp(mode, "floor")) return binary(OpId::floorDivide, a, b);
  if (is_floating(promoted)) return unary(OpId::trunc, binary(OpId::div, a, b));
  Tensor r = binary(OpId::fmod, a, b);
  return binary(OpId::floorDivide, binary(OpId::csub, a, r), b);
}
Tensor divide(const Tensor& a, const Tensor& b, const char* mode) {
  return divide_impl(a, b, result_dtype({&a, &b}), mode);
}
Tensor divide(const Tensor& a, Scalar b, const char* mode) {
  return divide_impl(a, b, promote_with_scalar(a.dtype(), b.integral, b.boolean), mode);
}
Tensor divide(Scalar a, const Tensor& b, const char* mode) {
  return divide_impl(a, b, promote_with_scalar(b.dtype(), a.integral, a.boolean), mode);
}

}  // namespace tocha
