// Kernel signatures of the LAPACK op family: the contract between core/ops/lapack*.cpp and
// kernels/cpu/lapack*.cpp. Matrices are column-major with a leading dimension (the front-ends
// make column-major working copies, Note [Row-major LAPACK]). Kernels work in place and return
// LAPACK's info: 0 on success, > 0 for a numerical failure that the front-end reports.
//
// Note [LAPACK on CUDA]: the front-ends make their working matrices on the inputs' device, so the
// same front-ends serve CUDA tensors: the kernel registered for (op, cuda, dtype)
// (kernels/cuda/lapack_*.cpp, cuSOLVER) receives device pointers under this same contract and
// returns the same info, read back from the device, so a singular or indefinite matrix raises
// the same error on both devices.
#pragma once
#include <cstdint>

namespace tocha {

// Solves A X = B (A n x n, B n x nrhs): B becomes X and A its LU factors (getrf + getrs).
using GesvKernel = int (*)(int64_t n, int64_t nrhs, void* a, int64_t lda, void* b, int64_t ldb);
// Solves op(A) X = B (op(A) = A, or A^T when `transpose`) reading only the `upper` or lower
// triangle of A (the diagonal taken as ones when `unit`); B (n x nrhs) becomes X. info > 0: the
// 1-based index of a zero on A's diagonal (when not `unit`), and B is then left unspecified.
using TrtrsKernel = int (*)(bool upper, bool transpose, bool unit, int64_t n, int64_t nrhs, const void* a,
                            int64_t lda, void* b, int64_t ldb);
// Least squares / least norm solution of A X = B for a full-rank m x n A (gels); B has
// max(m, n) rows and its first n rows become X.
using GelsKernel = int (*)(int64_t m, int64_t n, int64_t nrhs, void* a, int64_t lda, void* b, int64_t ldb);
// A becomes A^-1 (getrf + getri).
using InverseKernel = int (*)(int64_t n, void* a, int64_t lda);
// Cholesky factor in the `upper` (A = U^T U) or lower (A = L L^T) triangle of A, reading only that
// triangle; the other one is set to zero.
using PotrfKernel = int (*)(bool upper, int64_t n, void* a, int64_t lda);
// Solves A X = B given A's Cholesky factor in the `upper` or lower triangle of chol; B becomes X.
using PotrsKernel = int (*)(bool upper, int64_t n, int64_t nrhs, const void* chol, int64_t ldc, void* b,
                            int64_t ldb);
// Eigenvalues (ascending) of a symmetric A, read from its `upper` or lower triangle, into w; with
// `vectors`, A becomes the orthonormal eigenvectors (column j for w[j]).
using SymeigKernel = int (*)(bool vectors, bool upper, int64_t n, void* a, int64_t lda, void* w);
// A = U diag(S) VT with k = min(m, n) singular values (descending) in s. `all`: U is m x m and VT
// n x n; otherwise U is m x k and VT k x n. A is destroyed.
using SvdKernel = int (*)(bool all, int64_t m, int64_t n, void* a, int64_t lda, void* s, void* u, int64_t ldu,
                          void* vt, int64_t ldvt);
// Reduced QR of an m x n A with k = min(m, n): R (k x n, upper triangular) goes into r, and the
// first k columns of A become Q (m x k, orthonormal columns).
using QrKernel = int (*)(int64_t m, int64_t n, void* a, int64_t lda, void* r, int64_t ldr);
// Eigenvalues wr + i wi of a general n x n A (geev; A is destroyed); with `vectors`, the right
// eigenvectors in vr as LAPACK packs them (a complex pair j, j+1: columns j +- i column j+1).
using EigKernel = int (*)(bool vectors, int64_t n, void* a, int64_t lda, void* wr, void* wi, void* vr,
                          int64_t ldvr);
// QR of an m x n A as geqrf leaves it: R on and above the diagonal, the Householder vectors below
// it, and their min(m, n) scalars in tau.
using GeqrfKernel = int (*)(int64_t m, int64_t n, void* a, int64_t lda, void* tau);
// The first n columns of Q = H(1)...H(k) from k reflectors in A's columns (m >= n >= k); A (m x n)
// becomes them.
using OrgqrKernel = int (*)(int64_t m, int64_t n, int64_t k, void* a, int64_t lda, const void* tau);
// C (m x n) becomes op(Q) C (`left`) or C op(Q), op(Q) = Q^T when `transpose`, with Q from k
// reflectors in A's columns (A has m rows when `left`, else n).
using OrmqrKernel = int (*)(bool left, bool transpose, int64_t m, int64_t n, int64_t k, const void* a,
                            int64_t lda, const void* tau, void* c, int64_t ldc);
// Pivoted Cholesky of a positive semidefinite A (pstrf), from and into its `upper` or lower
// triangle (the other one zeroed): P^T A P = U^T U or L L^T with P[piv[k], k] = 1 (piv 1-based,
// n ints). Stops at the numerical rank (*rank); the trailing rows (U) or columns (L) are zeroed.
// tol < 0 takes LAPACK's default. info 1: A is not positive semidefinite.
using PstrfKernel = int (*)(bool upper, int64_t n, void* a, int64_t lda, int32_t* piv, int64_t* rank, double tol);
// LDL^T of a symmetric A read from its lower triangle (sytrf, Bunch-Kaufman): L and D into that
// triangle, LAPACK's 1-based pivots (n ints; a 2x2 block as two equal negative entries). info > 0:
// D(info, info) is exactly zero (the factorization is complete, D singular).
using SytrfKernel = int (*)(int64_t n, void* a, int64_t lda, int32_t* ipiv);
// Solves A X = B from sytrf's lower-triangle factors and pivots; B (n x nrhs) becomes X.
using SytrsKernel = int (*)(int64_t n, int64_t nrhs, const void* a, int64_t lda, const int32_t* ipiv, void* b,
                            int64_t ldb);

}  // namespace tocha
