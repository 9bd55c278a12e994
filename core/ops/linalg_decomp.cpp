// torch.linalg's decompositions and solvers over batches (see linalg_decomp.h): checks, one
// existing LAPACK front-end call per matrix, and one autograd node per call for the
// decompositions (formulas in core/autograd/formulas/linalg_decomp.cpp).
//
// Note [Batched linalg]: the LAPACK front-ends (core/ops/lapack.cpp) factor one 2-D matrix at a
// time; these ops loop over the matrices of a batch (..., m, n) and stack the results. The loop
// costs one kernel launch per matrix, which is what cuSOLVER's non-batched calls cost anyway, and
// it gives batches to every device that has the 2-D kernels. The decompositions record one node
// for the whole batch, whose formula is written with batched matmul; inv and solve are
// compositions of the differentiable inverse and gesv ops.
#include "core/ops/linalg_decomp.h"
#include "core/type_name.h"
#include <algorithm>
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "core/ops/factory.h"
#include "core/ops/join.h"
#include "core/ops/lapack.h"
#include "core/ops/linalg_util.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

namespace linalg {

DimVec batch_of(const Tensor& a) {
  DimVec s;
  for (int d = 0; d + 2 < a.dim(); ++d) s.push_back(a.size(d));
  return s;
}

void check_batch(const char* op, const Tensor& A, bool square) {
  TOCHA_CHECK(A.dim() >= 2, op, "expected a matrix or a batch of them (..., m, n), got ",
              A.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(A.sizes()));
  TOCHA_CHECK(A.dtype() == DType::f32 || A.dtype() == DType::f64, op,
              "A must be a torch.FloatTensor or torch.DoubleTensor, got a ", tensor_type_name(A));
  if (square)
    TOCHA_CHECK(A.size(A.dim() - 2) == A.size(A.dim() - 1), op, "A must be square in its last two dims, got size ",
                shape_str(A.sizes()));
}

bool is_vector_rhs(const Tensor& A, const Tensor& B) {
  if (B.dim() == 1) return true;
  if (B.dim() != A.dim() - 1) return false;
  for (int d = 0; d < B.dim(); ++d)
    if (B.size(d) != A.size(d)) return false;
  return true;
}

std::vector<Tensor> map_matrices(const Tensor& A, int nresults,
                                 const std::function<std::vector<Tensor>(const Tensor&)>& fn) {
  const int64_t m = A.size(A.dim() - 2), n = A.size(A.dim() - 1);
  if (A.dim() == 2) return fn(A);
  DimVec batch = batch_of(A);
  const int64_t count = shape_numel(batch, "linalg");
  std::vector<std::vector<Tensor>> parts(nresults);
  if (count == 0) {
    // No matrix to run fn on: the result shapes come from a stand-in (an identity, which every
    // decomposition accepts), under an empty batch.
    std::vector<Tensor> proto = fn(to_device(eye(m, n, A.dtype()), A.device()));
    std::vector<Tensor> out;
    for (const Tensor& p : proto) {
      DimVec s = batch;
      for (int d = 0; d < p.dim(); ++d) s.push_back(p.size(d));
      out.push_back(empty(s, p.dtype(), p.device()));
    }
    return out;
  }
  Tensor flat = reshape(A, DimVec{count, m, n});
  for (int64_t k = 0; k < count; ++k) {
    std::vector<Tensor> r = fn(select(flat, 0, k));
    for (int i = 0; i < nresults; ++i) parts[i].push_back(r[i]);
  }
  std::vector<Tensor> out;
  for (int i = 0; i < nresults; ++i) {
    Tensor s = stack(parts[i], 0);
    DimVec shape = batch;
    for (int d = 1; d < s.dim(); ++d) shape.push_back(s.size(d));
    out.push_back(reshape(s, shape));
  }
  return out;
}

}  // namespace linalg

using linalg::batch_of;
using linalg::check_batch;
using linalg::map_matrices;
using linalg::renamed;

namespace {

// Note [Batched Cholesky]: one potrf kernel call per matrix on one contiguous copy of the batch,
// without map_matrices' per-matrix views and stacking (1000 3x3 matrices: 1.2 ms, PyTorch 0.15).
// The copy's row-major memory read column-major is A^T, so the kernel factors the other triangle:
// its column-major U (M = U^T U) read row-major is the L of A = L L^T, and the other way round.
Tensor batched_potrf(const char* op, const Tensor& A, bool upper) {
  const int64_t n = A.size(A.dim() - 1);
  Tensor f = contiguous(A);
  if (f.shares_storage(A)) f = clone(A);  // the kernel writes in place
  auto kernel = kernel_for<PotrfKernel>(OpId::potrf, A.device().type, A.dtype());
  const int64_t count = n == 0 ? 0 : f.numel() / (n * n);
  char* p = static_cast<char*>(f.raw_data());
  const size_t bytes = size_t(n * n) * dtype_size(A.dtype());
  for (int64_t i = 0; i < count; ++i) {
    int info = kernel(!upper, n, p + size_t(i) * bytes, std::max<int64_t>(1, n));
    TOCHA_CHECK(info >= 0, op, "internal error: LAPACK rejected argument ", -info);
    if (info > 0) {
      std::string which = count > 1 ? " (matrix " + std::to_string(i + 1) + " of the batch)" : std::string();
      fail(op, "A is not positive definite: its leading minor of order ", info, " is not positive", which);
    }
  }
  return f;
}

DimVec with_last2(const DimVec& batch, int64_t a, int64_t b) {
  DimVec s = batch;
  s.push_back(a);
  s.push_back(b);
  return s;
}

}  // namespace

Tensor linalg_cholesky(const Tensor& A, bool upper) {
  const char* op = "linalg.cholesky";
  check_batch(op, A, true);
  autograd::Recording rec(OpId::linalgCholesky, nullptr, {&A});
  Tensor L = batched_potrf(op, A, upper);
  if (auto n = rec.finish({&A}, {&L})) {
    n->attrs.i[0] = upper;
    n->save(L, true);
  }
  return L;
}

EighResult linalg_eigh(const Tensor& A, bool upper) {
  const char* op = "linalg.eigh";
  check_batch(op, A, true);
  autograd::Recording rec(OpId::linalgEigh, nullptr, {&A});
  std::vector<Tensor> r = renamed(op, [&] {
    return map_matrices(A, 2, [&](const Tensor& a) {
      SymeigResult e = symeig(a, true, upper);
      return std::vector<Tensor>{e.values, e.vectors};
    });
  });
  EighResult res{r[0], r[1]};
  if (auto n = rec.finish({&A}, {&res.values, &res.vectors})) {
    n->save(res.values, true, 0);
    n->save(res.vectors, true, 1);
  }
  return res;
}

LinalgSvdResult linalg_svd(const Tensor& A, bool full_matrices) {
  const char* op = "linalg.svd";
  check_batch(op, A, false);
  autograd::Recording rec(OpId::linalgSvd, nullptr, {&A});
  std::vector<Tensor> r = renamed(op, [&] {
    return map_matrices(A, 3, [&](const Tensor& a) {
      SvdResult s = svd(a, !full_matrices);
      return std::vector<Tensor>{s.u, s.s, transpose(s.v, 0, 1)};
    });
  });
  LinalgSvdResult res{r[0], r[1], contiguous(r[2])};
  if (auto n = rec.finish({&A}, {&res.u, &res.s, &res.vh})) {
    n->attrs.i[0] = full_matrices;
    n->save(res.u, true, 0);
    n->save(res.s, true, 1);
    n->save(res.vh, true, 2);
  }
  return res;
}

LinalgQrResult linalg_qr(const Tensor& A, const std::string& mode) {
  const char* op = "linalg.qr";
  TOCHA_CHECK(mode == "reduced" || mode == "complete" || mode == "r", op,
              "mode must be 'reduced', 'complete' or 'r', got '", mode, "'");
  check_batch(op, A, false);
  const int64_t m = A.size(A.dim() - 2), n = A.size(A.dim() - 1);
  const bool complete = mode == "complete" && m > n;
  autograd::Recording rec(OpId::linalgQr, nullptr, {&A});
  std::vector<Tensor> r = renamed(op, [&] {
    return map_matrices(A, 2, [&](const Tensor& a) {
      if (!complete) {
        QrResult f = qr(a);
        return std::vector<Tensor>{f.q, f.r};
      }
      // Note [Complete QR]: Householder QR treats columns left to right, so the QR of [A | I]
      // starts with A's reflectors: its Q (m x m) completes A's reduced Q, and its first n
      // columns of R are A's R padded with zero rows.
      QrResult f = qr(cat({a, to_device(eye(m, m, a.dtype()), a.device())}, 1));
      return std::vector<Tensor>{f.q, contiguous(narrow(f.r, 1, 0, n))};
    });
  });
  LinalgQrResult res{r[0], r[1]};
  if (auto node = rec.finish({&A}, {&res.q, &res.r})) {
    node->attrs.i[0] = complete;
    node->save(res.q, true, 0);
    node->save(res.r, true, 1);
  }
  if (mode == "r") res.q = empty(DimVec{0}, A.dtype(), A.device());  // PyTorch's empty Q: size (0)
  return res;
}

Tensor linalg_inv(const Tensor& A) {
  const char* op = "linalg.inv";
  check_batch(op, A, true);
  return renamed(op, [&] {
    return map_matrices(A, 1, [](const Tensor& a) { return std::vector<Tensor>{inverse(a)}; })[0];
  });
}

Tensor linalg_solve(const Tensor& A, const Tensor& B) {
  const char* op = "linalg.solve";
  check_batch(op, A, true);
  TOCHA_CHECK(B.dim() >= 1, op, "B must have at least one dim, got a 0-dim tensor");
  TOCHA_CHECK(B.dtype() == A.dtype() && B.device() == A.device(), op, "A is a ", tensor_type_name(A),
              " on ", A.device().str(), " but B is a ", tensor_type_name(B), " on ", B.device().str());
  const int64_t n = A.size(A.dim() - 1);
  const bool vec = linalg::is_vector_rhs(A, B);
  Tensor Bm = vec ? unsqueeze(B, B.dim()) : B;
  TOCHA_CHECK(Bm.size(Bm.dim() - 2) == n, op, "A is ", shape_str(A.sizes()), " but B is ", shape_str(B.sizes()),
              " (B needs ", n, " rows)");
  // broadcast the batch dims of A and B
  DimVec ba = batch_of(A), bb = batch_of(Bm);
  DimVec batch;
  TOCHA_CHECK(broadcast_shapes(ba, bb, &batch), op, "the batch dims of A (", shape_str(A.sizes()), ") and B (",
              shape_str(B.sizes()), ") do not broadcast");
  Tensor Ae = expand(A, with_last2(batch, n, n));
  Tensor Be = expand(Bm, with_last2(batch, n, Bm.size(Bm.dim() - 1)));
  // one map over [A | B] keeps the pairs together
  Tensor X = renamed(op, [&] {
    return map_matrices(cat({Ae, Be}, Ae.dim() - 1), 1, [n](const Tensor& ab) {
      return std::vector<Tensor>{gesv(narrow(ab, 1, n, ab.size(1) - n), narrow(ab, 1, 0, n)).solution};
    })[0];
  });
  return vec ? squeeze(X, X.dim() - 1) : X;
}

}  // namespace tocha
