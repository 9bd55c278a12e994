// torch.linalg's differentiable decompositions and solvers (PyTorch's semantics) for a matrix or a
// batch of them (..., m, n), f32/f64, on every device the LAPACK ops run on (Note [Batched linalg]).
#pragma once
#include <functional>
#include <string>
#include "core/error.h"
#include "core/tensor.h"

namespace tocha {

struct EighResult { Tensor values, vectors; };
struct LinalgSvdResult { Tensor u, s, vh; };
struct LinalgQrResult { Tensor q, r; };

// Cholesky factor L (A = L L^T), or U = L^T (A = U^T U) with `upper`; reads only that triangle.
Tensor linalg_cholesky(const Tensor& A, bool upper = false);
// Eigenvalues (ascending) and orthonormal eigenvectors (columns) of symmetric matrices, read from
// their lower (PyTorch's UPLO 'L', the default) or upper triangle.
EighResult linalg_eigh(const Tensor& A, bool upper = false);
// A = U diag(S) Vh, S descending; reduced (k = min(m, n) columns) unless `full_matrices`.
LinalgSvdResult linalg_svd(const Tensor& A, bool full_matrices = false);
// QR with mode "reduced" (Q m x k, R k x n), "complete" (Q m x m, R m x n) or "r" (R only, Q empty).
LinalgQrResult linalg_qr(const Tensor& A, const std::string& mode = "reduced");
// A^-1 per matrix.
Tensor linalg_inv(const Tensor& A);
// X with A X = B: A (..., n, n); B (..., n, k), or vectors (..., n) (see is_vector_rhs); batch
// dims broadcast.
Tensor linalg_solve(const Tensor& A, const Tensor& B);

namespace linalg {
// Checks that A is a f32/f64 matrix or batch (..., m, n), square when asked; messages name `op`.
void check_batch(const char* op, const Tensor& A, bool square);
// PyTorch's rule for B in solve and lstsq: a batch of vectors when B is 1-D or A's size without
// its last dim; otherwise a batch of matrices.
bool is_vector_rhs(const Tensor& A, const Tensor& B);
// Applies fn to each matrix of A (..., m, n) and stacks its results back under A's batch dims.
// Composes recorded ops, so a differentiable fn gives a differentiable result.
std::vector<Tensor> map_matrices(const Tensor& A, int nresults,
                                 const std::function<std::vector<Tensor>(const Tensor&)>& fn);
// The batch dims of a (..., m, n).
DimVec batch_of(const Tensor& a);

// Runs fn, renaming the op it calls in an error ("[potrf] ...") to the calling op.
template <class F> auto renamed(const char* op, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const OutOfMemory&) {
    throw;
  } catch (const Error& e) {
    std::string msg = e.what();
    if (!msg.empty() && msg[0] == '[') msg = msg.substr(msg.find(']') + 2);
    fail(op, msg);
  }
}
}  // namespace linalg

}  // namespace tocha
