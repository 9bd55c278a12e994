// Composite ops. See composite.h. Every step is a recorded front-end, so autograd follows them.
#include "core/ops/composite.h"
#include "core/type_name.h"
#include "core/autocast.h"
#include <cmath>
#include "core/autograd/record.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {

namespace {
Tensor mul(const Tensor& a, const Tensor& b) { return binary(OpId::mul, a, b); }
Tensor mul(const Tensor& a, double s) { return binary(OpId::mul, a, Scalar(s)); }
Tensor add(const Tensor& a, const Tensor& b) { return binary(OpId::add, a, b); }

void check_float(const char* op, const Tensor& x) {
  TOCHA_CHECK(is_floating(x.dtype()), op, "expected a floating-point tensor, got a ", tensor_type_name(x));
}

}  // namespace

Tensor gelu(const Tensor& x) {
  check_float("gelu", x);
  Tensor phi = binary(OpId::add, mul(unary(OpId::erf, mul(x, M_SQRT1_2)), 0.5), Scalar(0.5));
  return mul(x, phi);
}

Tensor silu(const Tensor& x) {
  check_float("silu", x);
  return mul(x, unary(OpId::sigmoid, x));
}

Tensor elu(const Tensor& x, double alpha, double scale) {
  check_float("elu", x);
  Tensor neg = mul(unary(OpId::expm1, clamp(x, std::nullopt, 0.0)), alpha);
  Tensor r = where(binary(OpId::gt, x, Scalar(0.0)), x, neg);
  return scale == 1.0 ? r : mul(r, scale);
}

Tensor selu(const Tensor& x) {
  return elu(x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946);
}

Tensor leaky_relu(const Tensor& x, double slope) {
  check_float("leakyRelu", x);
  return where(binary(OpId::gt, x, Scalar(0.0)), x, mul(x, slope));
}

Tensor softplus(const Tensor& x, double beta, double threshold) {
  check_float("softplus", x);
  TOCHA_CHECK(beta > 0, "softplus", "beta must be positive, got ", beta);
  Tensor bx = mul(x, beta);
  // log(1 + e^z) = r + log1p(e^(z - 2r)) with r = max(z, 0), stable for every z (z - 2r = -|z|).
  // Written with z - 2r rather than -|z| so that the gradient at z = 0 is sigmoid(0) = 0.5: relu'
  // and abs' are both 0 there, which made it 0.
  Tensor r = unary(OpId::relu, bx);
  Tensor soft = add(r, unary(OpId::log1p, unary(OpId::exp, add(bx, mul(r, -2.0)))));
  soft = mul(soft, 1.0 / beta);
  return where(binary(OpId::gt, bx, Scalar(threshold)), x, soft);
}

}  // namespace tocha
