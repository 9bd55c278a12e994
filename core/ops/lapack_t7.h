// Torch7's remaining LAPACK calls (f32 and f64, not differentiable): eig, geqrf, orgqr, ormqr and
// pstrf. Results are new contiguous row-major tensors; `out` pointers, when given, are resized and
// filled instead (Torch7's leading result arguments). Numerical failures are errors.
#pragma once
#include "core/tensor.h"

namespace tocha {

struct EigResult { Tensor values, vectors; };
struct GeqrfResult { Tensor factored, tau; };
struct PstrfResult { Tensor factor, pivots; };

// Eigenvalues of a general real n x n A as an n x 2 tensor (real, imaginary parts, in LAPACK's
// order; a complex pair is adjacent, positive imaginary part first). With `vectors`, the right
// eigenvectors as columns as LAPACK packs them: a real eigenvalue j has column j; a pair j, j+1
// has the vectors column j +- i column j+1. Without, the second result is empty.
EigResult eig(const Tensor& A, bool vectors, const Tensor* e_out = nullptr, const Tensor* v_out = nullptr);
// geqrf of an m x n A: R on and above the diagonal, Householder vectors below it, and their
// min(m, n) scalars tau.
GeqrfResult geqrf(const Tensor& A, const Tensor* a_out = nullptr, const Tensor* tau_out = nullptr);
// The m x k matrix Q (orthonormal columns) of the k = tau:size(1) reflectors of geqrf's result A.
Tensor orgqr(const Tensor& A, const Tensor& tau, const Tensor* out = nullptr);
// op(Q) C (`left`) or C op(Q), op(Q) = Q^T when `transpose`, with Q (square) from geqrf's A, tau.
Tensor ormqr(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose,
             const Tensor* out = nullptr);
// Pivoted Cholesky of a symmetric positive semidefinite A read from its `upper` or lower triangle:
// P^T A P = U^T U (or L L^T), P[piv[k], k] = 1 with 1-based piv (an IntTensor on A's device).
// Rank deficiency is allowed: the factor's trailing rows (columns for L) are zero. tol < 0 takes
// LAPACK's default tolerance.
PstrfResult pstrf(const Tensor& A, bool upper, double tol, const Tensor* u_out = nullptr,
                  const Tensor* piv_out = nullptr);

}  // namespace tocha
