// Vector-Jacobian products of BLAS and LAPACK ops.
// Node layout (set by the front-ends in core/ops/linalg.cpp and lapack.cpp): the saved slots
// hold the inputs in forward order (saved[k] for input k) and then the output when the formula
// needs it; attrs.d[0] beta and d[1] alpha for the add* ops.
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/lapack.h"
#include "core/ops/linalg.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {
Tensor t2(const Tensor& m) { return transpose(m, 0, 1); }
Tensor tb(const Tensor& m) { return transpose(m, 1, 2); }
Tensor scaled(const Tensor& t, double s) { return s == 1 ? t : mul(t, s); }
double beta(const Node& n) { return n.attrs.d[0]; }
double alpha(const Node& n) { return n.attrs.d[1]; }
}  // namespace

Grads vjp_dot(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? mul(n.saved_tensor(1), g[0]) : Tensor(),
          n.needs_input_grad(1) ? mul(n.saved_tensor(0), g[0]) : Tensor()};
}
Grads vjp_mv(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? ger(g[0], n.saved_tensor(1)) : Tensor(),
          n.needs_input_grad(1) ? mv(t2(n.saved_tensor(0)), g[0]) : Tensor()};
}
Grads vjp_mm(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? mm(g[0], t2(n.saved_tensor(1))) : Tensor(),
          n.needs_input_grad(1) ? mm(t2(n.saved_tensor(0)), g[0]) : Tensor()};
}
Grads vjp_bmm(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? bmm(g[0], tb(n.saved_tensor(1))) : Tensor(),
          n.needs_input_grad(1) ? bmm(tb(n.saved_tensor(0)), g[0]) : Tensor()};
}
Grads vjp_ger(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? mv(g[0], n.saved_tensor(1)) : Tensor(),
          n.needs_input_grad(1) ? mv(t2(g[0]), n.saved_tensor(0)) : Tensor()};
}
// addmm(beta, M, alpha, A, B): inputs (M, A, B), saved A and B in slots 1 and 2.
Grads vjp_addmm(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? scaled(g[0], beta(n)) : Tensor(),
          n.needs_input_grad(1) ? scaled(mm(g[0], t2(n.saved_tensor(2))), alpha(n)) : Tensor(),
          n.needs_input_grad(2) ? scaled(mm(t2(n.saved_tensor(1)), g[0]), alpha(n)) : Tensor()};
}
Grads vjp_addmv(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? scaled(g[0], beta(n)) : Tensor(),
          n.needs_input_grad(1) ? scaled(ger(g[0], n.saved_tensor(2)), alpha(n)) : Tensor(),
          n.needs_input_grad(2) ? scaled(mv(t2(n.saved_tensor(1)), g[0]), alpha(n)) : Tensor()};
}
Grads vjp_addr(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? scaled(g[0], beta(n)) : Tensor(),
          n.needs_input_grad(1) ? scaled(mv(g[0], n.saved_tensor(2)), alpha(n)) : Tensor(),
          n.needs_input_grad(2) ? scaled(mv(t2(g[0]), n.saved_tensor(1)), alpha(n)) : Tensor()};
}
// addbmm sums the batch products: every batch sees the same output gradient.
Grads vjp_addbmm(Node& n, const Grads& g) {
  Tensor a = n.saved_tensor(1), b = n.saved_tensor(2);
  Tensor gb = expand(unsqueeze(g[0], 0), {a.size(0), g[0].size(0), g[0].size(1)});
  return {n.needs_input_grad(0) ? scaled(g[0], beta(n)) : Tensor(),
          n.needs_input_grad(1) ? scaled(bmm(gb, tb(b)), alpha(n)) : Tensor(),
          n.needs_input_grad(2) ? scaled(bmm(tb(a), gb), alpha(n)) : Tensor()};
}
Grads vjp_baddbmm(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? scaled(g[0], beta(n)) : Tensor(),
          n.needs_input_grad(1) ? scaled(bmm(g[0], tb(n.saved_tensor(2))), alpha(n)) : Tensor(),
          n.needs_input_grad(2) ? scaled(bmm(tb(n.saved_tensor(1)), g[0]), alpha(n)) : Tensor()};
}
// gesv(B, A) = A^-1 B: inputs (B, A); saved A (slot 1) and the solution X (slot 2).
Grads vjp_gesv(Node& n, const Grads& g) {
  Tensor a = n.saved_tensor(1), x = n.saved_tensor(2);
  Tensor gx = g[0];
  bool vector = gx.dim() == 1;
  Tensor gb = gesv(vector ? unsqueeze(gx, 1) : gx, t2(a)).solution;
  Tensor xs = vector ? unsqueeze(x, 1) : x;
  Grads r{n.needs_input_grad(0) ? (vector ? squeeze(gb, 1) : gb) : Tensor(),
          n.needs_input_grad(1) ? neg(mm(gb, t2(xs))) : Tensor()};
  return r;
}
// inverse(A) = Y: dA = -Y^T g Y^T.
Grads vjp_inverse(Node& n, const Grads& g) {
  Tensor y = n.saved_tensor(1);
  return {neg(mm(mm(t2(y), g[0]), t2(y)))};
}

}  // namespace autograd
}  // namespace tocha
