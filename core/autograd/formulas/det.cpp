// Vector-Jacobian products of det and slogdet (core/ops/det.cpp): d det(A) = det(A) inv(A)^T and
// d log|det A| = inv(A)^T, one inverse per matrix of a batch.
#include <cmath>
#include <vector>
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/det.h"
#include "core/ops/factory.h"
#include "core/ops/join.h"
#include "core/ops/lapack.h"
#include "core/ops/linalg.h"
#include "core/ops/reduce.h"

namespace tocha {
namespace autograd {

using namespace f;

// Note [Det gradients at singular matrices]
// inv(A) does not exist where det(A) = 0. det's gradient is still defined there: it is the
// transposed adjugate, which for A = U diag(s) V^T is det(U) det(V) U diag(prod_{j != i} s_j) V^T
// (nonzero when A has rank n - 1), and that is what det's formula returns for such a matrix,
// as PyTorch does through an SVD. This branch uses svd, which is not differentiable here, so
// double backward through a singular matrix gives no second-order term. log|det A| is -inf at a
// singular A and has no gradient; slogdet's and logdet's formula give NaN for that matrix
// (PyTorch gives inf/NaN there too) instead of failing the whole batch.

namespace {

Tensor t2(const Tensor& m) { return transpose(m, 0, 1); }

// The transposed adjugate of a singular n x n matrix (see the Note).
Tensor adjugate_t_singular(const Tensor& a) {
  const int64_t n = a.size(0);
  SvdResult r = svd(a, true);
  // prod over j != i of s_j: the rows of s repeated, with ones on the diagonal
  Tensor eye_mask = to_device(to_dtype(eye(n, n, DType::f64), DType::u8), a.device());
  Tensor rows = expand(unsqueeze(r.s, 0), DimVec{n, n});
  Tensor others = prod(where(eye_mask, full_like_scalar(1, a.dtype(), a.device()), rows), 1, false);
  const double sign = item_at(det(r.u), 0) * item_at(det(r.v), 0);
  return mul(mm(mul(r.u, unsqueeze(others, 0)), t2(r.v)), sign);
}

// For each matrix k of A (..., n, n): matrix(k, a, singular) with singular = singular_flags[k].
template <class F> Tensor per_matrix(const Tensor& A, const Tensor& flags_host, F&& matrix) {
  const int64_t n = A.size(A.dim() - 1);
  // No matrices (a batch dim of 0) or 0 x 0 ones: an empty gradient; reshape cannot infer -1
  // from 0 elements, so a batch of 0 x 0 matrices must not reach it.
  if (A.numel() == 0) return zeros_like(A);
  if (A.dim() == 2) return matrix(A, item_at(flags_host, 0) != 0);
  Tensor flat = reshape(A, DimVec{-1, n, n});
  std::vector<Tensor> parts;
  for (int64_t k = 0; k < flat.size(0); ++k) parts.push_back(matrix(select(flat, 0, k), item_at(flags_host, k) != 0));
  return reshape(stack(parts, 0), A.sizes());
}

// g (...) as (..., 1, 1), to scale each matrix of a batch.
Tensor per_matrix_scale(const Tensor& g) { return unsqueeze(unsqueeze(g, -1), -1); }

}  // namespace

// det: saved A (slot 0) and det(A) (slot 1).
Grads vjp_det(Node& n, const Grads& g) {
  Tensor a = n.saved_tensor(0), d = n.saved_tensor(1);
  Tensor singular = to_device(binary(OpId::eq, d, Scalar(0.0)), Device{});
  Tensor inv_t = per_matrix(a, singular, [](const Tensor& m, bool sing) {
    // det(A) inv(A)^T for an invertible A; the adjugate for a singular one (d is 0 there, so it
    // is divided by d below only where d != 0)
    return sing ? adjugate_t_singular(m) : t2(inverse(m));
  });
  // where det is 0 the per-matrix term already is the gradient of det; elsewhere scale by det
  Tensor scale = where(binary(OpId::eq, d, Scalar(0.0)), full_like_scalar(1, d.dtype(), d.device()), d);
  return {mul(per_matrix_scale(mul(g[0], scale)), inv_t)};
}

// slogdet: saved A (slot 0) and sign(det A) (slot 1); only logabsdet has a gradient.
Grads vjp_slogdet(Node& n, const Grads& g) {
  Tensor a = n.saved_tensor(0), sign = n.saved_tensor(1);
  Tensor singular = to_device(binary(OpId::eq, sign, Scalar(0.0)), Device{});
  Tensor inv_t = per_matrix(a, singular, [](const Tensor& m, bool sing) {
    return sing ? full(m.sizes(), NAN, m.dtype(), m.device()) : t2(inverse(m));
  });
  return {mul(per_matrix_scale(g[0]), inv_t)};
}

}  // namespace autograd
}  // namespace tocha
