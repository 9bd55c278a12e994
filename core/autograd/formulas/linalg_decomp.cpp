// Vector-Jacobian products of torch.linalg's decompositions (core/ops/linalg_decomp.cpp), batched
// with matmul, following PyTorch's derivations (FunctionsManual.cpp): cholesky, eigh, svd, qr.
// Every step is a recorded op, so double backward works where the steps are differentiable.
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/error.h"
#include "core/ops/factory.h"
#include "core/ops/join.h"
#include "core/ops/linalg_decomp.h"
#include "core/ops/matmul.h"
#include "core/ops/reduce.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }
Tensor mm(const Tensor& a, const Tensor& b) { return matmul(a, b); }
// The n x n identity in x's dtype and device.
Tensor eye_of(int64_t n, const Tensor& x) { return to_device(eye(n, n, x.dtype()), x.device()); }
// (..., n) -> (..., n, n) with v on the diagonal.
Tensor diag_embed(const Tensor& v) { return mul(unsqueeze(v, -1), eye_of(v.size(v.dim() - 1), v)); }
// X - X^T
Tensor skew(const Tensor& x) { return sub(x, mT(x)); }
// (..., n) -> (..., n, n) with entry (i, j) = v_j - v_i, and 1 on the diagonal (a safe divisor
// for matrices whose diagonal is zero).
Tensor gaps(const Tensor& v) {
  const int64_t n = v.size(v.dim() - 1);
  return add(sub(unsqueeze(v, -2), unsqueeze(v, -1)), eye_of(n, v));
}
// tril(ones(n, n)) with `diag` on the diagonal: multiplies X into its lower triangle.
Tensor lower_mask(int64_t n, double diag, const Tensor& like) {
  Tensor m = zeros(DimVec{n, n}, DType::f64);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j <= i; ++j) set_item_at(m, i * n + j, i == j ? diag : 1.0);
  return to_device(to_dtype(m, like.dtype()), like.device());
}
Tensor add_defined(const Tensor& a, const Tensor& b) { return a.defined() ? (b.defined() ? add(a, b) : a) : b; }

}  // namespace

// cholesky: saved L (or U = L^T with attrs.i[0]). gA = L^-T Phi(L^T gL) L^-1, symmetrized, where
// Phi keeps the lower triangle and halves the diagonal.
Grads vjp_linalgCholesky(Node& n, const Grads& g) {
  const bool upper = n.attrs.i[0] != 0;
  Tensor L = n.saved_tensor(0);
  Tensor gL = g[0];
  if (upper) {
    L = mT(L);
    gL = mT(gL);
  }
  const int64_t k = L.size(L.dim() - 1);
  Tensor phi = mul(mm(mT(L), gL), lower_mask(k, 0.5, L));
  Tensor linv = linalg_inv(L);
  Tensor ga = mm(mm(mT(linv), phi), linv);
  return {mul(add(ga, mT(ga)), 0.5)};
}

// eigh: saved eigenvalues L (slot 0) and vectors V (slot 1).
// gA = V (diag(gL) + skew(V^T gV) / 2 / (L_j - L_i)) V^T.
Grads vjp_linalgEigh(Node& n, const Grads& g) {
  Tensor L = n.saved_tensor(0), V = n.saved_tensor(1);
  Tensor inner;
  if (g[1].defined()) inner = div(mul(skew(mm(mT(V), g[1])), 0.5), gaps(L));
  if (g[0].defined()) inner = add_defined(inner, diag_embed(g[0]));
  return {mm(mm(V, inner), mT(V))};
}

// svd: saved U (slot 0), S (1), Vh (2), full-size with attrs.i[0]; only their first k = min(m, n)
// columns (rows of Vh) enter the formula (the others are not unique; PyTorch does the same).
Grads vjp_linalgSvd(Node& n, const Grads& g) {
  Tensor U = n.saved_tensor(0), S = n.saved_tensor(1), Vh = n.saved_tensor(2);
  const int64_t m = U.size(U.dim() - 2), k = S.size(S.dim() - 1), nc = Vh.size(Vh.dim() - 1);
  Tensor gU = g[0], gS = g[1], gVh = g[2];
  if (n.attrs.i[0]) {
    U = narrow(U, -1, 0, k);
    Vh = narrow(Vh, -2, 0, k);
    if (gU.defined()) gU = narrow(gU, -1, 0, k);
    if (gVh.defined()) gVh = narrow(gVh, -2, 0, k);
  }
  Tensor V = mT(Vh), gV = gVh.defined() ? mT(gVh) : Tensor();
  if (!gU.defined() && !gV.defined()) {
    if (!gS.defined()) return {zeros(n.inputs[0].shape, S.dtype(), S.device())};
    return {mm(mul(U, unsqueeze(gS, -2)), Vh)};
  }
  Tensor Srow = unsqueeze(S, -2), Scol = unsqueeze(S, -1);
  Tensor E = gaps(mul(S, S));
  Tensor ga;
  if (gU.defined() && gV.defined())
    ga = div(add(mul(skew(mm(mT(U), gU)), Srow), mul(Scol, skew(mm(mT(V), gV)))), E);
  else if (gU.defined())
    ga = mul(div(skew(mm(mT(U), gU)), E), Srow);
  else
    ga = mul(Scol, div(skew(mm(mT(V), gV)), E));
  if (gS.defined()) ga = add(ga, diag_embed(gS));
  if (m > nc && gU.defined()) {
    Tensor gusinv = div(gU, Srow);
    ga = mm(add(mm(U, ga), sub(gusinv, mm(U, mm(mT(U), gusinv)))), Vh);
  } else if (m < nc && gV.defined()) {
    Tensor gvsinv = div(gV, Srow);
    ga = mm(U, add(mm(ga, Vh), sub(mT(gvsinv), mm(mm(mT(gvsinv), V), Vh))));
  } else {
    ga = mm(mm(U, ga), Vh);
  }
  return {ga};
}

namespace {
// QR backward for m >= n (Q m x n, R n x n): gA = (gQ + Q syminvadj(triu(gR R^T - Q^T gQ))) R^-T,
// syminvadj(X) = X + X^T with the diagonal halved.
Tensor qr_tall_vjp(const Tensor& Q, const Tensor& R, const Tensor& gQ, const Tensor& gR) {
  const int64_t k = R.size(R.dim() - 1);
  Tensor M = gR.defined() ? mm(gR, mT(R)) : Tensor();
  if (gQ.defined()) M = M.defined() ? sub(M, mm(mT(Q), gQ)) : neg(mm(mT(Q), gQ));
  Tensor lo = mul(mT(M), lower_mask(k, 1.0, R));  // triu(M)^T
  Tensor sym = add(lo, mT(lo));
  sym = sub(sym, mul(sym, mul(eye_of(k, R), 0.5)));
  Tensor ga = mm(Q, sym);
  if (gQ.defined()) ga = add(ga, gQ);
  return mm(ga, mT(linalg_inv(R)));
}
}  // namespace

// qr: saved Q (slot 0) and R (slot 1). For m < n, A = [X | Y] with X = Q R_X and R_Y = Q^T Y:
// gY = Q gR_Y and X takes the square-case gradient with gQ + Y gR_Y^T.
Grads vjp_linalgQr(Node& n, const Grads& g) {
  TOCHA_CHECK(n.attrs.i[0] == 0, "linalg.qr",
              "the derivative of mode 'complete' is not defined when A has more rows than columns "
              "(Q's extra columns are not unique); use mode 'reduced'");
  Tensor Q = n.saved_tensor(0), R = n.saved_tensor(1);
  const int64_t m = Q.size(Q.dim() - 2), nc = R.size(R.dim() - 1);
  if (m >= nc) return {qr_tall_vjp(Q, R, g[0], g[1])};
  Tensor RX = narrow(R, -1, 0, m);
  Tensor gRX = g[1].defined() ? narrow(g[1], -1, 0, m) : Tensor();
  Tensor gQ = g[0];
  Tensor gY;
  if (g[1].defined()) {
    Tensor gRY = narrow(g[1], -1, m, nc - m);
    // Y = Q R_Y, recomputed from the saved factors
    Tensor Y = mm(Q, narrow(R, -1, m, nc - m));
    gQ = add_defined(gQ, mm(Y, mT(gRY)));
    gY = mm(Q, gRY);
  } else {
    DimVec s = R.sizes();
    s[s.size() - 1] = nc - m;
    gY = zeros(s, R.dtype(), R.device());
  }
  Tensor gX = qr_tall_vjp(Q, RX, gQ, gRX);
  return {cat({gX, gY}, gX.dim() - 1)};
}

}  // namespace autograd
}  // namespace tocha
