// Vector-Jacobian products of the pointwise ops, and what each needs saved.
// Saved slots of a pointwise node: 0..2 the inputs, 3 the output (undefined when not needed).
// attrs.i[0] is the scalar position (see SaveSpec), attrs.d[0] the Lua number or alpha.
#include <cmath>
#include "core/autograd/formula_ops.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/vjp.h"
#include "core/error.h"

namespace tocha {
namespace autograd {

using namespace f;

SaveSpec pointwise_save_spec(OpId op, int scalar_pos) {
  SaveSpec s;
  auto in = [&](int k) { s.input[k] = true; };
  switch (op) {
    case OpId::abs: case OpId::square: case OpId::log: case OpId::log1p: case OpId::log2:
    case OpId::log10: case OpId::sin: case OpId::cos: case OpId::asin: case OpId::acos: case OpId::atan:
    case OpId::sinh: case OpId::cosh: case OpId::erf: case OpId::erfc: case OpId::lgamma: case OpId::digamma:
    case OpId::clamp:
      in(0); break;
    case OpId::relu: case OpId::exp: case OpId::expm1: case OpId::sqrt: case OpId::rsqrt: case OpId::cinv:
    case OpId::tan: case OpId::tanh: case OpId::sigmoid: case OpId::erfinv:
      s.output = true; break;
    case OpId::mul:
      if (scalar_pos == 0) { in(0); in(1); }
      break;
    case OpId::div:
      if (scalar_pos == 0) { in(1); s.output = true; }
      else if (scalar_pos == 2) { in(0); s.output = true; }
      break;
    case OpId::pow:
      if (scalar_pos == 0) { in(0); in(1); s.output = true; }
      else if (scalar_pos == 1) in(0);
      else s.output = true;
      break;
    case OpId::atan2: case OpId::fmod: case OpId::remainder: case OpId::cmax: case OpId::cmin:
      if (scalar_pos == 0) { in(0); in(1); } else in(0);
      break;
    // formulas/pointwise_math.cpp
    case OpId::acosh: case OpId::asinh: case OpId::atanh: case OpId::sinc: case OpId::logit: case OpId::i0:
    case OpId::i0e: case OpId::i1: case OpId::i1e: case OpId::polygamma:
      in(0); break;
    case OpId::exp2: s.output = true; break;
    case OpId::hypot: case OpId::xlogy: case OpId::logaddexp: case OpId::logaddexp2: case OpId::copysign:
    case OpId::fmax: case OpId::fmin:
      in(0);
      if (scalar_pos == 0) in(1);
      s.output = op == OpId::hypot || op == OpId::copysign;
      break;
    case OpId::addcmul: case OpId::addcdiv: in(1); in(2); break;
    case OpId::lerp: in(0); in(1); in(2); break;
    case OpId::where: in(0); break;
    default: break;
  }
  return s;
}

namespace {

Tensor in(Node& n, int k) { return n.saved_tensor(k); }
Tensor out(Node& n) { return n.saved_tensor(3); }
int scalar_pos(const Node& n) { return int(n.attrs.i[0]); }
double scalar(const Node& n) { return n.attrs.d[0]; }
Tensor zeros_grad(const Grads& g) { return zeros_like(g[0]); }
DType dt(const Grads& g) { return g[0].dtype(); }

// For binary ops: the gradient of the tensor operand when the other one is a Lua number.
// Returns {grad} placed at input 0 (the node has one tensor input).
Grads one(const Tensor& g) { return {g}; }

}  // namespace

// ---- unary -------------------------------------------------------------------------------------
Grads vjp_neg(Node&, const Grads& g) { return {neg(g[0])}; }
Grads vjp_abs(Node& n, const Grads& g) { return {mul(g[0], sign(in(n, 0)))}; }
Grads vjp_sign(Node&, const Grads& g) { return {zeros_grad(g)}; }
Grads vjp_floor(Node&, const Grads& g) { return {zeros_grad(g)}; }
Grads vjp_ceil(Node&, const Grads& g) { return {zeros_grad(g)}; }
Grads vjp_round(Node&, const Grads& g) { return {zeros_grad(g)}; }
Grads vjp_trunc(Node&, const Grads& g) { return {zeros_grad(g)}; }
Grads vjp_frac(Node&, const Grads& g) { return {g[0]}; }
Grads vjp_square(Node& n, const Grads& g) { return {mul(mul(g[0], in(n, 0)), 2.0)}; }
// relu's output is >= 0, so its sign is the 0/1 mask of the positive inputs (two fast ops).
// Without a recorded backward (no createGraph), the fused reluBackward does it in one pass.
Grads vjp_relu(Node& n, const Grads& g) {
  if (!grad_enabled()) return {binary(OpId::reluBackward, g[0], out(n))};
  return {mul(g[0], sign(out(n)))};
}
Grads vjp_exp(Node& n, const Grads& g) { return {mul(g[0], out(n))}; }
Grads vjp_expm1(Node& n, const Grads& g) { return {mul(g[0], add(out(n), 1.0))}; }
Grads vjp_log(Node& n, const Grads& g) { return {div(g[0], in(n, 0))}; }
Grads vjp_log1p(Node& n, const Grads& g) { return {div(g[0], add(in(n, 0), 1.0))}; }
Grads vjp_log2(Node& n, const Grads& g) { return {div(g[0], mul(in(n, 0), M_LN2))}; }
Grads vjp_log10(Node& n, const Grads& g) { return {div(g[0], mul(in(n, 0), M_LN10))}; }
Grads vjp_sqrt(Node& n, const Grads& g) { return {div(g[0], mul(out(n), 2.0))}; }
Grads vjp_rsqrt(Node& n, const Grads& g) { return {mul(mul(g[0], pow(out(n), 3.0)), -0.5)}; }
Grads vjp_cinv(Node& n, const Grads& g) { return {neg(mul(g[0], square(out(n))))}; }
Grads vjp_sin(Node& n, const Grads& g) { return {mul(g[0], cos(in(n, 0)))}; }
Grads vjp_cos(Node& n, const Grads& g) { return {neg(mul(g[0], sin(in(n, 0))))}; }
Grads vjp_tan(Node& n, const Grads& g) { return {mul(g[0], add(square(out(n)), 1.0))}; }
Grads vjp_asin(Node& n, const Grads& g) { return {div(g[0], sqrt(sub(1.0, square(in(n, 0)))))}; }
Grads vjp_acos(Node& n, const Grads& g) { return {neg(div(g[0], sqrt(sub(1.0, square(in(n, 0))))))}; }
Grads vjp_atan(Node& n, const Grads& g) { return {div(g[0], add(square(in(n, 0)), 1.0))}; }
Grads vjp_sinh(Node& n, const Grads& g) { return {mul(g[0], cosh(in(n, 0)))}; }
Grads vjp_cosh(Node& n, const Grads& g) { return {mul(g[0], sinh(in(n, 0)))}; }
Grads vjp_tanh(Node& n, const Grads& g) { return {mul(g[0], sub(1.0, square(out(n))))}; }
Grads vjp_sigmoid(Node& n, const Grads& g) {
  Tensor y = out(n);
  return {mul(g[0], mul(y, sub(1.0, y)))};
}
Grads vjp_erf(Node& n, const Grads& g) {
  return {mul(g[0], mul(exp(neg(square(in(n, 0)))), M_2_SQRTPI))};
}
Grads vjp_erfc(Node& n, const Grads& g) {
  return {mul(g[0], mul(exp(neg(square(in(n, 0)))), -M_2_SQRTPI))};
}
Grads vjp_erfinv(Node& n, const Grads& g) {
  return {mul(g[0], mul(exp(square(out(n))), std::sqrt(M_PI) / 2))};
}
Grads vjp_lgamma(Node& n, const Grads& g) { return {mul(g[0], digamma(in(n, 0)))}; }
Grads vjp_digamma(Node& n, const Grads& g) { return {mul(g[0], unary(OpId::trigamma, in(n, 0)))}; }

// ---- binary ------------------------------------------------------------------------------------
Grads vjp_add(Node& n, const Grads& g) {
  if (scalar_pos(n)) return one(g[0]);
  double alpha = n.attrs.d[0];
  return {g[0], n.needs_input_grad(1) ? (alpha == 1 ? g[0] : mul(g[0], alpha)) : Tensor()};
}
Grads vjp_csub(Node& n, const Grads& g) {
  if (scalar_pos(n) == 1) return one(g[0]);
  if (scalar_pos(n) == 2) return one(neg(g[0]));
  double alpha = n.attrs.d[0];
  return {g[0], n.needs_input_grad(1) ? mul(g[0], -alpha) : Tensor()};
}
Grads vjp_mul(Node& n, const Grads& g) {
  if (scalar_pos(n)) return one(mul(g[0], scalar(n)));
  return {n.needs_input_grad(0) ? mul(g[0], in(n, 1)) : Tensor(),
          n.needs_input_grad(1) ? mul(g[0], in(n, 0)) : Tensor()};
}
Grads vjp_div(Node& n, const Grads& g) {
  if (scalar_pos(n) == 1) return one(div(g[0], scalar(n)));
  if (scalar_pos(n) == 2) return one(neg(div(mul(g[0], out(n)), in(n, 0))));  // d(s/x) = -y/x
  Tensor b = in(n, 1);
  return {n.needs_input_grad(0) ? div(g[0], b) : Tensor(),
          n.needs_input_grad(1) ? neg(div(mul(g[0], out(n)), b)) : Tensor()};
}
Grads vjp_pow(Node& n, const Grads& g) {
  if (scalar_pos(n) == 1) {
    double e = scalar(n);
    if (e == 0) return one(zeros_grad(g));
    return one(mul(mul(g[0], pow(in(n, 0), e - 1)), e));
  }
  if (scalar_pos(n) == 2) return one(mul(mul(g[0], out(n)), std::log(scalar(n))));
  Tensor a = in(n, 0), b = in(n, 1);
  Grads r(2);
  if (n.needs_input_grad(0)) {
    // 0 where b == 0 (PyTorch's mask): b * a^(b-1) is 0 * inf = NaN at a = 0, b = 0
    Tensor da = mul(g[0], mul(b, pow(a, add(b, -1.0))));
    r[0] = where(binary(OpId::eq, b, Scalar(0.0)), zeros_like(da), da);
  }
  if (n.needs_input_grad(1)) {
    // y * log(a), taken as 0 where a == 0 and b >= 0 (the limit PyTorch uses too)
    Tensor la = log(a);
    Tensor safe = where(binary(OpId::eq, a, Scalar(0.0)), zeros_like(la), la);
    r[1] = mul(g[0], mul(out(n), safe));
  }
  return r;
}
Grads vjp_atan2(Node& n, const Grads& g) {
  if (scalar_pos(n)) {  // atan2(x, s)' = s / (x^2 + s^2); atan2(s, x)' = -s / (x^2 + s^2)
    double s = scalar(n), sign = scalar_pos(n) == 1 ? 1.0 : -1.0;
    return one(mul(div(g[0], add(square(in(n, 0)), s * s)), sign * s));
  }
  Tensor a = in(n, 0), b = in(n, 1);
  Tensor denom = add(square(a), square(b));
  return {n.needs_input_grad(0) ? mul(g[0], div(b, denom)) : Tensor(),
          n.needs_input_grad(1) ? neg(mul(g[0], div(a, denom))) : Tensor()};
}
Grads vjp_fmod(Node& n, const Grads& g) {
  if (scalar_pos(n) == 1) return one(g[0]);
  if (scalar_pos(n) == 2) return one(neg(mul(g[0], trunc(div(scalar(n), in(n, 0))))));
  return {g[0], n.needs_input_grad(1) ? neg(mul(g[0], trunc(div(in(n, 0), in(n, 1))))) : Tensor()};
}
Grads vjp_remainder(Node& n, const Grads& g) {
  if (scalar_pos(n) == 1) return one(g[0]);
  if (scalar_pos(n) == 2) return one(neg(mul(g[0], floor(div(scalar(n), in(n, 0))))));
  return {g[0], n.needs_input_grad(1) ? neg(mul(g[0], floor(div(in(n, 0), in(n, 1))))) : Tensor()};
}
// Ties split the gradient in half between the operands (PyTorch's maximum/minimum).
static Grads extremum(Node& n, const Grads& g, OpId wins) {
  DType d = dt(g);
  if (scalar_pos(n)) {
    Tensor x = in(n, 0);
    Tensor m = add(mask(wins, x, scalar(n), d), mul(mask(OpId::eq, x, scalar(n), d), 0.5));
    return one(mul(g[0], m));
  }
  Tensor a = in(n, 0), b = in(n, 1);
  Tensor tie = mul(mask(OpId::eq, a, b, d), 0.5);
  return {n.needs_input_grad(0) ? mul(g[0], add(mask(wins, a, b, d), tie)) : Tensor(),
          n.needs_input_grad(1) ? mul(g[0], add(mask(wins, b, a, d), tie)) : Tensor()};
}
Grads vjp_cmax(Node& n, const Grads& g) { return extremum(n, g, OpId::gt); }
Grads vjp_cmin(Node& n, const Grads& g) { return extremum(n, g, OpId::lt); }

// ---- other pointwise ---------------------------------------------------------------------------
Grads vjp_clamp(Node& n, const Grads& g) {
  Tensor x = in(n, 0);
  DType d = dt(g);
  Tensor keep = full(x.sizes(), 1, d, x.device());
  int which = int(n.attrs.i[1]);
  if (which & 1) keep = mul(keep, mask(OpId::ge, x, n.attrs.d[0], d));
  if (which & 2) keep = mul(keep, mask(OpId::le, x, n.attrs.d[1], d));
  return {mul(g[0], keep)};
}
Grads vjp_addcmul(Node& n, const Grads& g) {
  double v = n.attrs.d[0];
  return {g[0], n.needs_input_grad(1) ? mul(mul(g[0], in(n, 2)), v) : Tensor(),
          n.needs_input_grad(2) ? mul(mul(g[0], in(n, 1)), v) : Tensor()};
}
Grads vjp_addcdiv(Node& n, const Grads& g) {
  double v = n.attrs.d[0];
  Tensor c = in(n, 2);
  return {g[0], n.needs_input_grad(1) ? mul(div(g[0], c), v) : Tensor(),
          n.needs_input_grad(2) ? neg(mul(div(mul(g[0], in(n, 1)), square(c)), v)) : Tensor()};
}
Grads vjp_lerp(Node& n, const Grads& g) {
  Tensor a = in(n, 0), b = in(n, 1), w = in(n, 2);
  return {n.needs_input_grad(0) ? mul(g[0], sub(1.0, w)) : Tensor(),
          n.needs_input_grad(1) ? mul(g[0], w) : Tensor(),
          n.needs_input_grad(2) ? mul(g[0], sub(b, a)) : Tensor()};
}
Grads vjp_where(Node& n, const Grads& g) {
  Tensor c = in(n, 0);
  Tensor z = zeros_like(g[0]);
  return {Tensor(), n.needs_input_grad(1) ? where(c, g[0], z) : Tensor(),
          n.needs_input_grad(2) ? where(c, z, g[0]) : Tensor()};
}
// copy: dtype conversion or clone (one input) or an in-place copy into a destination (inputs: the
// old destination, which gets no gradient, and the source). A copy is the one op whose source and
// result may lie on different devices (to_device copies into a new tensor there; x:double() of a
// CUDA tensor, x:cuda(), dst:copy(src)): the gradient goes back to the source's device.
Grads vjp_copy(Node& n, const Grads& g) {
  const size_t src = n.next.size() == 1 ? 0 : 1;
  Tensor gs = g[0];
  if (gs.defined() && gs.device() != n.inputs[src].device) gs = to_device(gs, n.inputs[src].device);
  if (src == 0) return {gs};
  return {Tensor(), gs};
}

}  // namespace autograd
}  // namespace tocha
