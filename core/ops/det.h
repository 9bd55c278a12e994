// Determinants of square matrices and batches of them (..., n, n), f32/f64, from one LU
// factorization each (PyTorch's det, slogdet, logdet); differentiable (Note [Det gradients]).
#pragma once
#include <cstdint>
#include "core/tensor.h"

namespace tocha {

struct SlogdetResult { Tensor sign, logabsdet; };

// det(A), of size A's batch dims (0-dim for a matrix). A singular A gives 0.
Tensor det(const Tensor& A);
// sign(det A) (-1, 0 or 1) and log|det A| (-inf when singular); only logabsdet is differentiable.
SlogdetResult slogdet(const Tensor& A);
// log(det A): NaN where det A < 0, -inf where it is 0.
Tensor logdet(const Tensor& A);

// The kernel of det and slogdet (registered under OpId::det): LU factorization with partial
// pivoting, in place, of `batch` column-major n x n matrices (matrix k at a + k * stride elements,
// leading dimension lda) on the tensors' device; perm_sign[k] (host memory) gets the sign of
// matrix k's row permutation, +1 or -1. A singular matrix is factored too (U has a zero on its
// diagonal). Returns 0, or LAPACK's negative info for an argument it rejected.
using DetKernel = int (*)(int64_t batch, int64_t n, void* a, int64_t lda, int64_t stride, double* perm_sign);

}  // namespace tocha
