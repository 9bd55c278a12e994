// LAPACK op front-ends with Torch7's semantics (f32 and f64): solvers, inverse, Cholesky,
// symmetric eigenvalues, SVD and QR. Results are new contiguous row-major tensors; `_out`
// variants resize and fill the given tensors instead (Torch7's leading result arguments).
// Numerical failures (a singular matrix, one that is not positive definite) are errors.
#pragma once
#include "core/tensor.h"

namespace tocha {

struct GesvResult { Tensor solution, lu; };
struct GelsResult { Tensor solution, factored; };
struct SymeigResult { Tensor values, vectors; };
struct SvdResult { Tensor u, s, v; };
struct QrResult { Tensor q, r; };

// Solves A X = B for a square A (n x n) and B (n x k, or n, which is treated as n x 1): X and
// A's LU factors (unit-lower L below the diagonal, U on and above it, rows pivoted).
GesvResult gesv(const Tensor& B, const Tensor& A);
void gesv_out(const Tensor& x, const Tensor& lu, const Tensor& B, const Tensor& A);
// Solves op(A) X = B for every matrix of a batch, reading only A's upper or lower triangle
// (LAPACK's trtrs): op(A) is A, or A^T when `transpose`; `unit` takes A's diagonal as ones. A is
// (..., n, n) and B (..., n, k) with the same batch dims (callers broadcast). O(n^2 k) per matrix;
// differentiable in both; a zero on the diagonal (not `unit`) is an error (core/ops/lapack_trtrs.cpp).
Tensor trtrs(const Tensor& B, const Tensor& A, bool upper, bool transpose = false, bool unit = false);
// Least squares (m >= n) or least norm (m < n) solution of A X = B for a full-rank m x n A.
// Torch7's layout: X has max(m, n) rows, the first n hold the solution (the rest, for m > n,
// give the residuals); the second result is A as gels leaves it (its QR or LQ factors).
GelsResult gels(const Tensor& B, const Tensor& A);
void gels_out(const Tensor& x, const Tensor& factored, const Tensor& B, const Tensor& A);
// A^-1 of a square non-singular A.
Tensor inverse(const Tensor& A);
void inverse_out(const Tensor& out, const Tensor& A);
// Cholesky factor of a symmetric positive definite A: U with A = U^T U (upper) or L with
// A = L L^T; the other triangle is zero. Reads only that triangle of A.
Tensor potrf(const Tensor& A, bool upper = true);
void potrf_out(const Tensor& out, const Tensor& A, bool upper = true);
// Solves A X = B given chol = potrf(A, upper); B as in gesv.
Tensor potrs(const Tensor& B, const Tensor& chol, bool upper = true);
void potrs_out(const Tensor& out, const Tensor& B, const Tensor& chol, bool upper = true);
// Eigenvalues (ascending) of a symmetric A, read from its upper or lower triangle, and with
// `vectors` the eigenvectors as the columns of an n x n matrix (else an empty tensor).
SymeigResult symeig(const Tensor& A, bool vectors = false, bool upper = true);
void symeig_out(const Tensor& e, const Tensor& v, const Tensor& A, bool vectors = false, bool upper = true);
// A = U diag(S) V^T for an m x n A, k = min(m, n): S has k values (descending); `some` (Torch7's
// 'S', the default) gives U m x k and V n x k, otherwise ('A') U m x m and V n x n.
SvdResult svd(const Tensor& A, bool some = true);
void svd_out(const Tensor& u, const Tensor& s, const Tensor& v, const Tensor& A, bool some = true);
// Reduced QR of an m x n A, k = min(m, n): Q m x k with orthonormal columns, R k x n upper
// triangular (LAPACK's signs: R's diagonal may be negative).
QrResult qr(const Tensor& A);
void qr_out(const Tensor& q, const Tensor& r, const Tensor& A);

}  // namespace tocha
