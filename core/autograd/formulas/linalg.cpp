// Vector-Jacobian products of BLAS and LAPACK ops.
// Node layout (Note [Recording products] in core/ops/linalg.cpp): inputs (M, a, b) for the add*
// ops and (a, b) otherwise; a and b are saved in slots 1 and 2; attrs.d[0] beta, d[1] alpha.
// gesv and inverse save A in slot 1 and their solution/result in slot 2.
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/lapack.h"
#include "core/ops/linalg.h"
#include "core/ops/matmul.h"
#include "core/ops/matrix.h"

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

// dot flattens its inputs (Torch7): each gradient takes the other input's values in its own shape.
Grads vjp_dot(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(1), y = n.saved_tensor(2);
  return {n.needs_input_grad(0) ? reshape(mul(y, g[0]), x.sizes()) : Tensor(),
          n.needs_input_grad(1) ? reshape(mul(x, g[0]), y.sizes()) : Tensor()};
}
Grads vjp_mv(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? ger(g[0], n.saved_tensor(2)) : Tensor(),
          n.needs_input_grad(1) ? mv(t2(n.saved_tensor(1)), g[0]) : Tensor()};
}
Grads vjp_mm(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? mm(g[0], t2(n.saved_tensor(2))) : Tensor(),
          n.needs_input_grad(1) ? mm(t2(n.saved_tensor(1)), g[0]) : Tensor()};
}
Grads vjp_bmm(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? bmm(g[0], tb(n.saved_tensor(2))) : Tensor(),
          n.needs_input_grad(1) ? bmm(tb(n.saved_tensor(1)), g[0]) : Tensor()};
}
Grads vjp_ger(Node& n, const Grads& g) {
  return {n.needs_input_grad(0) ? mv(g[0], n.saved_tensor(2)) : Tensor(),
          n.needs_input_grad(1) ? mv(t2(g[0]), n.saved_tensor(1)) : Tensor()};
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
  Tensor a = n.saved_tensor(1), x = n.saved_tensor(2);  // X is n x k (a vector B gives n x 1)
  Tensor gb = gesv(g[0], t2(a)).solution;              // A^-T g
  return {n.needs_input_grad(0) ? reshape(gb, n.inputs[0].shape) : Tensor(),
          n.needs_input_grad(1) ? neg(mm(gb, t2(x))) : Tensor()};
}
// trtrs(B, A) = op(A)^-1 B from one triangle of A: inputs (B, A); saved A (slot 1) and X (slot
// 2); attrs.i: upper, transpose, unit. gB = op(A)^-T g, and g(op(A)) = -gB X^T, so gA is -gB X^T
// (or -X gB^T when op(A) = A^T) kept on the triangle the op read (strictly, when unit).
Grads vjp_trtrs(Node& n, const Grads& g) {
  const bool upper = n.attrs.i[0] != 0, trans = n.attrs.i[1] != 0, unit = n.attrs.i[2] != 0;
  Tensor a = n.saved_tensor(1), x = n.saved_tensor(2);
  Tensor gb = trtrs(g[0], a, upper, !trans, unit);
  Tensor ga;
  if (n.needs_input_grad(1)) {
    auto mT = [](const Tensor& m) { return transpose(m, -2, -1); };
    Tensor full = neg(trans ? matmul(x, mT(gb)) : matmul(gb, mT(x)));
    ga = upper ? triu(full, unit ? 1 : 0) : tril(full, unit ? -1 : 0);
  }
  return {n.needs_input_grad(0) ? gb : Tensor(), ga};
}
// inverse(A) = Y: dA = -Y^T g Y^T.
Grads vjp_inverse(Node& n, const Grads& g) {
  Tensor y = n.saved_tensor(1);
  return {neg(mm(mm(t2(y), g[0]), t2(y)))};
}

}  // namespace autograd
}  // namespace tocha
