// torch.linalg's functions built from the decompositions and solvers (PyTorch's semantics): norms,
// rank, pseudo-inverse, powers, the exponential, least squares, triangular solves, conditioning,
// Vandermonde matrices. Batches (..., m, n), f32/f64; composites of recorded ops, so they run on
// every device the underlying ops do and are differentiable where those are.
#pragma once
#include "core/tensor.h"

namespace tocha {

// ord-norm of x over dims (0-based, negative from the end; empty: all elements): inf (max |x|),
// -inf (min |x|), 0 (non-zero count), else (sum |x|^ord)^(1/ord).
Tensor linalg_vector_norm(const Tensor& x, double ord, const DimVec& dims, bool keepdim);
// Matrix norm over dims (two of them): kind 'f' Frobenius, 'n' nuclear, else ord 1, -1, 2, -2,
// inf, -inf (kind 'o').
Tensor linalg_matrix_norm(const Tensor& A, char kind, double ord, int64_t d0, int64_t d1, bool keepdim);
// The number of singular values above max(atol, rtol * largest) per matrix (a LongTensor),
// PyTorch's rule: a negative value is "not given"; rtol defaults to max(m, n) * eps when atol is
// not given, else to 0. `hermitian` counts |eigenvalues| instead.
Tensor linalg_matrix_rank(const Tensor& A, double atol, double rtol, bool hermitian);
// Moore-Penrose pseudo-inverse from the SVD; singular values <= rtol * largest count as 0
// (rtol < 0: max(m, n) * eps).
Tensor linalg_pinv(const Tensor& A, double rtol, bool hermitian);
// A^n by repeated squaring; n < 0 inverts first, n = 0 gives identities.
Tensor linalg_matrix_power(const Tensor& A, int64_t n);
// exp(A) by scaling and squaring of a degree-18 Taylor polynomial.
Tensor linalg_matrix_exp(const Tensor& A);
struct LstsqResult { Tensor solution, residuals, rank, singular_values; };
// Minimum-norm least-squares solution of A X = B (through the pseudo-inverse, rcond as pinv's
// rtol); residuals (squared column norms of A X - B) when m > n and every A has full rank.
LstsqResult linalg_lstsq(const Tensor& A, const Tensor& B, double rcond);
// X with A X = B (left) or X A = B, A triangular (the other triangle is ignored).
Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular);
// Condition number: ord 2 (kind 'o', ord 2 or -2) from singular values, else norm(A) * norm(A^-1).
Tensor linalg_cond(const Tensor& A, char kind, double ord);
// (..., n) -> (..., n, N) with columns x^0 .. x^(N-1); N <= 0 gives N = n.
Tensor linalg_vander(const Tensor& x, int64_t N);

}  // namespace tocha
