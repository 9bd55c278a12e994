// The backward node of torch.linalg.lu (core/ops/linalg_lu.cpp). LU has no row in ops.def: its
// factorization is itself a composite (Note [LU from ops]), so it records this hand-made node
// (as LuaNode does) instead of an op id: inputs (A), outputs (L, U); P carries no gradient.
#include <algorithm>
#include <memory>
#include "core/autograd/formula_ops.h"
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/ops/factory.h"
#include "core/ops/join.h"
#include "core/ops/linalg_extra.h"
#include "core/ops/linalg_decomp.h"
#include "core/ops/linalg_lu.h"
#include "core/ops/matmul.h"
#include "core/ops/matrix.h"

namespace tocha {
namespace autograd {

namespace {

using namespace f;

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }
// X with T X = B (left) or X T = B, reading T's upper or lower triangle (a unit diagonal when unit).
Tensor tri_solve(const Tensor& T, const Tensor& B, bool upper, bool left, bool unit = false) {
  return linalg_solve_triangular(T, B, upper, left, unit);
}

// PyTorch's linalg_lu_backward for A = P L U (m x n, k = min(m, n); L m x k unit lower, U k x n),
// written with triangular solves (recorded, so it differentiates again):
//   square: gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T;
//   wide (m < n), U = [U1 U2]: gA1 = P L^-T (triu(gU1) + tril(L^T gL - gU U^T, -1) U1^-T),
//     gA2 = P L^-T gU2;
//   tall (m > n), L = [L1; L2]: gA1 = P (tril(gL1, -1) + L1^-T triu(gU U^T - L^T tril(gL, -1))) U^-T,
//     gA2 = P gL2 U^-T.
struct LuBackward : Node {
  LuBackward() : Node(OpId::COUNT) {}
  std::string name() const override { return "LinalgLuBackward"; }
  Grads apply(const Grads& g) override {
    Tensor P = saved_tensor(0), L = saved_tensor(1), U = saved_tensor(2);
    const Tensor gL = g.size() > 0 ? g[0] : Tensor(), gU = g.size() > 1 ? g[1] : Tensor();
    if (!gL.defined() && !gU.defined()) return {Tensor()};
    const int64_t m = L.size(L.dim() - 2), n = U.size(U.dim() - 1), k = std::min(m, n);
    Tensor gA;
    if (m == n) {
      if (gL.defined()) gA = tril(matmul(mT(L), gL), -1);
      if (gU.defined()) {
        Tensor t = triu(matmul(gU, mT(U)), 0);
        gA = gA.defined() ? add(gA, t) : t;
      }
      gA = tri_solve(mT(U), gA, false, false);
      gA = tri_solve(mT(L), gA, true, true, true);
    } else if (m < n) {
      Tensor U1 = narrow(U, U.dim() - 1, 0, k);
      if (gL.defined()) gA = matmul(mT(L), gL);
      if (gU.defined()) {
        Tensor t = matmul(triu(gU, 0), mT(U));
        gA = gA.defined() ? sub(gA, t) : neg(t);
      }
      gA = tri_solve(mT(U1), tril(gA, -1), false, false);
      if (gU.defined())
        gA = cat({add(gA, triu(narrow(gU, gU.dim() - 1, 0, k), 0)), narrow(gU, gU.dim() - 1, k, n - k)}, gA.dim() - 1);
      gA = tri_solve(mT(L), gA, true, true, true);
      if (!gU.defined()) gA = cat({gA, zeros_like(narrow(U, U.dim() - 1, k, n - k))}, gA.dim() - 1);
    } else {
      Tensor L1 = narrow(L, L.dim() - 2, 0, k);
      if (gU.defined()) gA = matmul(gU, mT(U));
      if (gL.defined()) {
        Tensor t = matmul(mT(L), tril(gL, -1));
        gA = gA.defined() ? sub(gA, t) : neg(t);
      }
      gA = tri_solve(mT(L1), triu(gA, 0), true, true, true);
      if (gL.defined())
        gA = cat({add(gA, tril(narrow(gL, gL.dim() - 2, 0, k), -1)), narrow(gL, gL.dim() - 2, k, m - k)}, gA.dim() - 2);
      gA = tri_solve(mT(U), gA, false, false);
      if (!gL.defined()) gA = cat({gA, zeros_like(narrow(L, L.dim() - 2, k, m - k))}, gA.dim() - 2);
    }
    return {matmul(P, gA)};
  }
};

}  // namespace

void record_lu(const Tensor& A, const Tensor& P, const Tensor& L, const Tensor& U) {
  if (!needs_record(A)) return;
  auto node = std::make_shared<LuBackward>();
  node->save(P);
  node->save(L, true, 0);
  node->save(U, true, 1);
  connect(node, {A}, {L, U});
}

}  // namespace autograd
}  // namespace tocha
