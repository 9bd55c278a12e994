// The backward node of torch.linalg.lu (core/ops/linalg_lu.cpp). LU has no row in ops.def: its
// factorization is itself a composite (Note [LU from ops]), so it records this hand-made node
// (as LuaNode does) instead of an op id: inputs (A), outputs (L, U); P carries no gradient.
#include <memory>
#include "core/autograd/formula_ops.h"
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/ops/factory.h"
#include "core/ops/linalg_decomp.h"
#include "core/ops/linalg_lu.h"
#include "core/ops/matmul.h"

namespace tocha {
namespace autograd {

namespace {

using namespace f;

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }
// An n x n 0/1 mask: j - i >= lo (upper part) or j - i <= hi (lower part), in x's dtype/device.
Tensor band_mask(int64_t n, bool upper, int64_t k, const Tensor& x) {
  Tensor m = zeros(DimVec{n, n}, DType::f64);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      if (upper ? j - i >= k : j - i <= k) set_item_at(m, i * n + j, 1);
  return to_device(to_dtype(m, x.dtype()), x.device());
}

// PyTorch's linalg_lu_backward for square A = P L U:
// gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T.
struct LuBackward : Node {
  LuBackward() : Node(OpId::COUNT) {}
  std::string name() const override { return "LinalgLuBackward"; }
  Grads apply(const Grads& g) override {
    Tensor P = saved_tensor(0), L = saved_tensor(1), U = saved_tensor(2);
    const int64_t m = L.size(L.dim() - 2), n = U.size(U.dim() - 1);
    TOCHA_CHECK(m == n, "linalg.lu", "the derivative is implemented for square matrices only, got ", m, "x", n);
    Tensor inner;
    if (g.size() > 0 && g[0].defined()) inner = mul(matmul(mT(L), g[0]), band_mask(n, false, -1, L));
    if (g.size() > 1 && g[1].defined()) {
      Tensor t = mul(matmul(g[1], mT(U)), band_mask(n, true, 0, U));
      inner = inner.defined() ? add(inner, t) : t;
    }
    if (!inner.defined()) return {Tensor()};
    return {matmul(P, matmul(matmul(mT(linalg_inv(L)), inner), mT(linalg_inv(U))))};
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
