// Vector-Jacobian products of the pointwise ops PyTorch added to Torch7's set (inverse
// hyperbolics, Bessel functions, logit, polygamma, hypot, xlogy, logaddexp, copysign, fmax/fmin);
// what each saves is in pointwise_save_spec (formulas/pointwise.cpp). Kinks follow PyTorch.
#include <cmath>
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {

Tensor in(Node& n, int k) { return n.saved_tensor(k); }
Tensor out(Node& n) { return n.saved_tensor(3); }
int scalar_pos(const Node& n) { return int(n.attrs.i[0]); }
DType dt(const Grads& g) { return g[0].dtype(); }
Tensor uop(OpId op, const Tensor& x) { return unary(op, x); }
Tensor is_zero(const Tensor& x) { return binary(OpId::eq, x, Scalar(0.0)); }
// x with its zeros replaced by ones, so a formula's unused branch at 0 stays finite (and so do
// the gradients of where() under createGraph).
Tensor nonzero_or_one(const Tensor& x) { return where(is_zero(x), ones(x.sizes(), x.dtype(), x.device()), x); }

// The two operands of a binary node as tensors: a Lua-number operand (Note [Recording pointwise
// ops]: only the tensor is saved, at slot 0) becomes a tensor of the tensor's size.
struct Operands {
  Tensor a, b;
};
Operands operands(Node& n) {
  Tensor x = in(n, 0);
  if (scalar_pos(n) == 0) return {x, in(n, 1)};
  Tensor s = full(x.sizes(), n.attrs.d[0], x.dtype(), x.device());
  return scalar_pos(n) == 1 ? Operands{x, s} : Operands{s, x};
}
// The gradients of (a, b), or of the one tensor operand.
Grads grads2(Node& n, const Tensor& ga, const Tensor& gb) {
  if (scalar_pos(n) == 1) return {ga};
  if (scalar_pos(n) == 2) return {gb};
  return {n.needs_input_grad(0) ? ga : Tensor(), n.needs_input_grad(1) ? gb : Tensor()};
}
bool wants_a(Node& n) { return scalar_pos(n) == 1 || (scalar_pos(n) == 0 && n.needs_input_grad(0)); }
bool wants_b(Node& n) { return scalar_pos(n) == 2 || (scalar_pos(n) == 0 && n.needs_input_grad(1)); }

}  // namespace

// ---- unary -------------------------------------------------------------------------------------
Grads vjp_acosh(Node& n, const Grads& g) {
  Tensor x = in(n, 0);
  return {div(g[0], sqrt(mul(add(x, -1.0), add(x, 1.0))))};
}
Grads vjp_asinh(Node& n, const Grads& g) { return {div(g[0], sqrt(add(square(in(n, 0)), 1.0)))}; }
Grads vjp_atanh(Node& n, const Grads& g) { return {div(g[0], sub(1.0, square(in(n, 0))))}; }
Grads vjp_exp2(Node& n, const Grads& g) { return {mul(g[0], mul(out(n), M_LN2))}; }
// sinc'(x) = (cos(pi x) - sinc(x)) / x, 0 at x = 0.
Grads vjp_sinc(Node& n, const Grads& g) {
  Tensor x = in(n, 0), xs = nonzero_or_one(x);
  Tensor d = div(sub(cos(mul(xs, M_PI)), uop(OpId::sinc, xs)), xs);
  return {mul(g[0], where(is_zero(x), zeros_like(d), d))};
}
Grads vjp_deg2rad(Node&, const Grads& g) { return {mul(g[0], M_PI / 180)}; }
Grads vjp_rad2deg(Node&, const Grads& g) { return {mul(g[0], 180 / M_PI)}; }
// NaN outside [0, 1], where the value is NaN too (PyTorch's; 1 / (x (1 - x)) was finite there).
Grads vjp_logit(Node& n, const Grads& g) {
  Tensor x = in(n, 0), d = div(g[0], mul(x, sub(1.0, x)));
  Tensor outside = binary(OpId::add, binary(OpId::lt, x, Scalar(0.0)), binary(OpId::gt, x, Scalar(1.0)));
  return {where(outside, full(x.sizes(), NAN, d.dtype(), x.device()), d)};
}
Grads vjp_i0(Node& n, const Grads& g) { return {mul(g[0], uop(OpId::i1, in(n, 0)))}; }
// (e^-|x| I0)' = e^-|x| (I1 - sign(x) I0)
Grads vjp_i0e(Node& n, const Grads& g) {
  Tensor x = in(n, 0);
  return {mul(g[0], sub(uop(OpId::i1e, x), mul(sign(x), uop(OpId::i0e, x))))};
}
// I1' = I0 - I1 / x, 1/2 at x = 0; scaled: I0e - I1e (sign(x) + 1/x).
Grads vjp_i1(Node& n, const Grads& g) {
  Tensor x = in(n, 0), xs = nonzero_or_one(x);
  Tensor d = sub(uop(OpId::i0, xs), div(uop(OpId::i1, xs), xs));
  return {mul(g[0], where(is_zero(x), full(x.sizes(), 0.5, d.dtype(), x.device()), d))};
}
Grads vjp_i1e(Node& n, const Grads& g) {
  Tensor x = in(n, 0), xs = nonzero_or_one(x);
  Tensor d = sub(uop(OpId::i0e, xs), mul(uop(OpId::i1e, xs), add(sign(xs), div(1.0, xs))));
  return {mul(g[0], where(is_zero(x), full(x.sizes(), 0.5, d.dtype(), x.device()), d))};
}
Grads vjp_polygamma(Node& n, const Grads& g) {
  return {mul(g[0], polygamma(int64_t(n.attrs.d[0]) + 1, in(n, 0)))};
}

// ---- binary ------------------------------------------------------------------------------------
Grads vjp_hypot(Node& n, const Grads& g) {
  Operands o = operands(n);
  Tensor y = out(n);
  return grads2(n, wants_a(n) ? mul(g[0], div(o.a, y)) : Tensor(), wants_b(n) ? mul(g[0], div(o.b, y)) : Tensor());
}
// PyTorch 1.13's: d/dx = g log(y), taken as 0 where x == 0 and y <= 0 (the function is 0 there
// whatever x); d/dy = x / y. (0 wherever x == 0 made the logProb gradients of Gamma(1, r),
// Beta(1, b) and the uniform Dirichlet wrong in their concentrations.)
Grads vjp_xlogy(Node& n, const Grads& g) {
  Operands o = operands(n);
  Tensor ga, gb;
  if (wants_a(n)) {
    Tensor full = binary(OpId::xlogy, g[0], o.b);
    Tensor flat = mul(mask(OpId::eq, o.a, 0.0, DType::u8), mask(OpId::le, o.b, 0.0, DType::u8));
    ga = where(flat, zeros_like(full), full);
  }
  if (wants_b(n)) gb = mul(g[0], div(o.a, o.b));
  return grads2(n, ga, gb);
}
// d/da log(e^a + e^b) = 1 / (1 + e^(b - a)) = sigmoid(a - b) (PyTorch's form); base 2 likewise
// with (a - b) ln 2. Not e^(a - out): at a = +inf, b finite that is e^(inf - inf) = NaN, not 1.
static Grads logaddexp_grads(Node& n, const Grads& g, double scale) {
  Operands o = operands(n);
  return grads2(n, wants_a(n) ? mul(g[0], uop(OpId::sigmoid, mul(sub(o.a, o.b), scale))) : Tensor(),
                wants_b(n) ? mul(g[0], uop(OpId::sigmoid, mul(sub(o.b, o.a), scale))) : Tensor());
}
Grads vjp_logaddexp(Node& n, const Grads& g) { return logaddexp_grads(n, g, 1.0); }
Grads vjp_logaddexp2(Node& n, const Grads& g) { return logaddexp_grads(n, g, M_LN2); }
// d/da copysign(a, b) = out / a (+-1), 0 where a == 0; b only contributes its sign: 0.
Grads vjp_copysign(Node& n, const Grads& g) {
  Operands o = operands(n);
  Tensor ga, gb;
  if (wants_a(n)) {
    Tensor ratio = div(out(n), nonzero_or_one(o.a));
    ga = mul(g[0], where(is_zero(o.a), zeros_like(ratio), ratio));
  }
  if (wants_b(n)) gb = zeros_like(g[0]);
  return grads2(n, ga, gb);
}
// PyTorch's fmax/fmin: a takes the gradient where it wins or ties or b is NaN, b elsewhere.
static Grads fextremum(Node& n, const Grads& g, OpId wins_or_ties) {
  Operands o = operands(n);
  Tensor ma = mask(OpId::cmax, binary(wins_or_ties, o.a, o.b), binary(OpId::ne, o.b, o.b), dt(g));
  return grads2(n, wants_a(n) ? mul(g[0], ma) : Tensor(), wants_b(n) ? mul(g[0], sub(1.0, ma)) : Tensor());
}
Grads vjp_fmax(Node& n, const Grads& g) { return fextremum(n, g, OpId::ge); }
Grads vjp_fmin(Node& n, const Grads& g) { return fextremum(n, g, OpId::le); }

}  // namespace autograd
}  // namespace tocha
