// PyTorch's LDL^T pair for a symmetric matrix or a batch (..., n, n), f32/f64: ldl_factor (LAPACK's
// sytrf: Bunch-Kaufman pivoting, the compact LD and 1-based int32 pivots, with sytrf's info per
// matrix) and ldl_solve (sytrs). Not differentiable (PyTorch 1.13 has no derivative either).
#pragma once
#include "core/tensor.h"

namespace tocha {

struct LdlFactorResult { Tensor ld, pivots, info; };

// A's lower triangle is read. ld (A's size): L (unit diagonal, not stored) below the diagonal and
// the blocks of D on it and the first subdiagonal; the strict upper triangle is zero. pivots
// (..., n), info (...): 0, or k when D(k, k) is exactly zero (the factorization is complete).
LdlFactorResult linalg_ldl_factor(const Tensor& A);
// X with A X = B from ldl_factor's ld and pivots; the batch dims of ld and B broadcast.
Tensor linalg_ldl_solve(const Tensor& ld, const Tensor& pivots, const Tensor& B);

}  // namespace tocha
