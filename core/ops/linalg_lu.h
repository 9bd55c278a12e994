// PyTorch's LU family for a matrix or a batch (..., m, n), f32/f64: lu_factor (packed LU and
// 1-based int32 pivots, LAPACK's layout), lu_unpack (P, L, U), lu (A = P L U) and lu_solve.
// Note [LU from ops]: the factorization is partial pivoting written with existing ops.
#pragma once
#include "core/tensor.h"

namespace tocha {

struct LuFactorResult { Tensor lu, pivots; };
struct LuResult { Tensor p, l, u; };

// Packed LU (L unit lower below the diagonal, U on and above it) of P A = L U, and the pivots:
// row i was swapped with row pivots[i] (1-based), as LAPACK's getrf. Not differentiable.
LuFactorResult linalg_lu_factor(const Tensor& A);
// P (m x m), L (m x k, unit lower), U (k x n) from lu_factor's results.
LuResult linalg_lu_unpack(const Tensor& LU, const Tensor& pivots);
// P, L, U with A = P L U; differentiable in L and U for square A.
LuResult linalg_lu(const Tensor& A);
// X with A X = B from A's lu_factor results (square A); differentiable in B and LU.
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B);

namespace autograd {
// Records the backward node of lu (core/autograd/formulas/linalg_lu.cpp) when A requires grad.
void record_lu(const Tensor& A, const Tensor& P, const Tensor& L, const Tensor& U);
}  // namespace autograd

}  // namespace tocha
