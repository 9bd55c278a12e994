// The LU family (see linalg_lu.h).
//
// Note [LU from ops]: the LAPACK front-ends have no getrf that returns its pivots (gesv keeps
// them, det only their sign), and a new kernel would need a CPU and a CUDA version. So the
// factorization is the textbook right-looking partial pivoting loop over existing ops: per column
// one max reduction (the pivot, read back), a row swap, a scaling and one rank-1 update (addr).
// Same pivots as getrf's unblocked algorithm (the first largest |a|), values equal up to
// rounding, on every device those ops run on; min(m, n) small steps per matrix, so it suits the
// small and medium matrices it is used on (one read-back per column on CUDA).
#include "core/ops/linalg_lu.h"
#include "core/type_name.h"
#include <algorithm>
#include <vector>
#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/ops/factory.h"
#include "core/ops/linalg.h"
#include "core/ops/linalg_decomp.h"
#include "core/ops/linalg_extra.h"
#include "core/ops/matmul.h"
#include "core/ops/matrix.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

namespace {

// Factors w (m x n, contiguous, its own storage) in place; returns the 1-based pivots.
std::vector<int32_t> factor_in_place(const Tensor& w) {
  const int64_t m = w.size(0), n = w.size(1), k = std::min(m, n);
  std::vector<int32_t> piv(static_cast<size_t>(k));
  for (int64_t j = 0; j < k; ++j) {
    Tensor col = narrow(select(w, 1, j), 0, j, m - j);
    const int64_t p = j + int64_t(item_at(to_device(max(unary(OpId::abs, col), 0, false, 0).indices, Device{}), 0));
    piv[size_t(j)] = int32_t(p + 1);
    if (p != j) {
      Tensor rj = select(w, 0, j), rp = select(w, 0, p);
      Tensor tmp = clone(rj);
      copy_(rj, rp);
      copy_(rp, tmp);
    }
    const double pivot = item_at(to_device(select(select(w, 0, j), 0, j), Device{}), 0);
    if (pivot == 0 || j + 1 >= m) continue;  // LAPACK leaves a zero column as it is
    Tensor below = narrow(select(w, 1, j), 0, j + 1, m - j - 1);
    binary_out(OpId::mul, below, below, Scalar(1.0 / pivot));
    if (j + 1 < n) {
      Tensor trailing = narrow(narrow(w, 0, j + 1, m - j - 1), 1, j + 1, n - j - 1);
      Tensor row = narrow(select(w, 0, j), 0, j + 1, n - j - 1);
      Tensor upd = addr(1, trailing, -1, clone(below), clone(row));
      copy_(trailing, upd);
    }
  }
  return piv;
}

DimVec batch_of(const Tensor& a) {
  DimVec s;
  for (int d = 0; d + 2 < a.dim(); ++d) s.push_back(a.size(d));
  return s;
}

}  // namespace

LuFactorResult linalg_lu_factor(const Tensor& A) {
  const char* op = "linalg.luFactor";
  linalg::check_batch(op, A, false);
  autograd::GradModeGuard no_grad(false);
  const int64_t m = A.size(A.dim() - 2), n = A.size(A.dim() - 1), k = std::min(m, n);
  Tensor lu = clone(A);
  const int64_t count = shape_numel(batch_of(A), op);
  Tensor flat = reshape(lu, DimVec{count, m, n});
  Tensor piv = empty(DimVec{count, k}, DType::i32);
  for (int64_t b = 0; b < count; ++b) {
    std::vector<int32_t> p = factor_in_place(select(flat, 0, b));
    for (int64_t i = 0; i < k; ++i) set_item_at(piv, b * k + i, p[size_t(i)]);
  }
  DimVec ps = batch_of(A);
  ps.push_back(k);
  return {lu, to_device(reshape(piv, ps), A.device())};
}

LuResult linalg_lu_unpack(const Tensor& LU, const Tensor& pivots) {
  const char* op = "linalg.luUnpack";
  linalg::check_batch(op, LU, false);
  const int64_t m = LU.size(LU.dim() - 2), n = LU.size(LU.dim() - 1), k = std::min(m, n);
  TOCHA_CHECK(pivots.dtype() == DType::i32 || pivots.dtype() == DType::i64, op,
              "pivots must be a torch.IntTensor or torch.LongTensor, got a ", tensor_type_name(pivots));
  DimVec want = batch_of(LU);
  want.push_back(k);
  TOCHA_CHECK(pivots.sizes() == want, op, "LU is ", shape_str(LU.sizes()), " so pivots must be ", shape_str(want),
              ", got ", shape_str(pivots.sizes()));
  // L: the strict lower part of the first k columns plus the identity; U: the upper part of the first k rows
  Tensor lowmask = zeros(DimVec{m, k}, DType::f64), upmask = zeros(DimVec{k, n}, DType::f64);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < k; ++j) set_item_at(lowmask, i * k + j, i > j ? 1 : 0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = i; j < n; ++j) set_item_at(upmask, i * n + j, 1);
  auto on = [&](const Tensor& t) { return to_device(to_dtype(t, LU.dtype()), LU.device()); };
  Tensor L = binary(OpId::add, binary(OpId::mul, narrow(LU, -1, 0, k), on(lowmask)), on(eye(m, k, DType::f64)));
  Tensor U = binary(OpId::mul, narrow(LU, -2, 0, k), on(upmask));
  // P from the pivots (read on the host): rows swapped in order, A = P L U
  Tensor ph = to_device(to_dtype(pivots, DType::i64), Device{});
  const int64_t count = k ? ph.numel() / k : shape_numel(batch_of(LU), op);
  Tensor P = zeros(DimVec{count, m, m}, DType::f64);
  for (int64_t b = 0; b < count; ++b) {
    std::vector<int64_t> perm(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) perm[size_t(i)] = i;
    for (int64_t i = 0; i < k; ++i) {
      const int64_t p = int64_t(item_at(ph, b * k + i)) - 1;
      TOCHA_CHECK(p >= i && p < m, op, "pivot ", i + 1, " of matrix ", b + 1, " is ", p + 1, ", expected ", i + 1,
                  " to ", m);
      std::swap(perm[size_t(i)], perm[size_t(p)]);
    }
    for (int64_t i = 0; i < m; ++i) set_item_at(P, b * m * m + perm[size_t(i)] * m + i, 1);
  }
  DimVec pshape = batch_of(LU);
  pshape.push_back(m);
  pshape.push_back(m);
  return {on(reshape(P, pshape)), L, U};
}

LuResult linalg_lu(const Tensor& A) {
  LuResult r;
  {
    autograd::GradModeGuard no_grad(false);
    LuFactorResult f = linalg_lu_factor(A);
    r = linalg_lu_unpack(f.lu, f.pivots);
  }
  autograd::record_lu(A, r.p, r.l, r.u);
  return r;
}

Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B) {
  const char* op = "linalg.luSolve";
  linalg::check_batch(op, LU, true);
  TOCHA_CHECK(B.dim() >= 2 && B.dtype() == LU.dtype(), op, "B must be a matrix or a batch of them of LU's type, got ",
              tensor_type_name(B), " of size ", shape_str(B.sizes()));
  TOCHA_CHECK(B.size(B.dim() - 2) == LU.size(LU.dim() - 1), op, "LU is ", shape_str(LU.sizes()), " but B is ",
              shape_str(B.sizes()));
  LuResult f = linalg::renamed(op, [&] { return linalg_lu_unpack(LU, pivots); });  // its pivot checks
  // A = P L U: X = U^-1 L^-1 P^T B
  Tensor y = matmul(transpose(f.p, -2, -1), B);
  y = linalg_solve_triangular(f.l, y, false, true, true);
  return linalg_solve_triangular(f.u, y, true, true, false);
}

}  // namespace tocha
