// BLAS op front-ends (DESIGN.md decision 2): dot, mv, mm, bmm, ger and the add* forms with Torch7's
// multipliers (beta * M + alpha * product). `_out` variants write into `out`, resized to the result
// shape (Torch7's `res`); out may be M itself (M:addmm(a, b)) or alias an operand.
// Note [Linalg dtypes]: every operand and the result share one dtype (Torch7 and PyTorch do not
// promote matrix products). f32/f64 run on OpenBLAS, f16/bf16 compute in float, integers use loops.
#pragma once
#include "core/tensor.h"

namespace tocha {

// Sum of x[i] * y[i] over tensors with the same number of elements (any shapes, like Torch7), as a
// 0-dim tensor of their dtype.
Tensor dot(const Tensor& x, const Tensor& y);

// mat (n x m) @ vec (m).
Tensor mv(const Tensor& mat, const Tensor& vec);
void mv_out(const Tensor& out, const Tensor& mat, const Tensor& vec);
// a (n x m) @ b (m x p).
Tensor mm(const Tensor& a, const Tensor& b);
void mm_out(const Tensor& out, const Tensor& a, const Tensor& b);
// Batched products: batch1 (b x n x m) @ batch2 (b x m x p) -> b x n x p.
Tensor bmm(const Tensor& batch1, const Tensor& batch2);
void bmm_out(const Tensor& out, const Tensor& batch1, const Tensor& batch2);
// Outer product vec1 (n) x vec2 (m) -> n x m.
Tensor ger(const Tensor& vec1, const Tensor& vec2);
void ger_out(const Tensor& out, const Tensor& vec1, const Tensor& vec2);

// beta * M + alpha * mat1 @ mat2 (M broadcasts to the product's shape).
Tensor addmm(double beta, const Tensor& M, double alpha, const Tensor& mat1, const Tensor& mat2);
void addmm_out(const Tensor& out, double beta, const Tensor& M, double alpha, const Tensor& mat1, const Tensor& mat2);
// beta * vec1 + alpha * mat @ vec2.
Tensor addmv(double beta, const Tensor& vec1, double alpha, const Tensor& mat, const Tensor& vec2);
void addmv_out(const Tensor& out, double beta, const Tensor& vec1, double alpha, const Tensor& mat, const Tensor& vec2);
// beta * M + alpha * vec1 vec2^T.
Tensor addr(double beta, const Tensor& M, double alpha, const Tensor& vec1, const Tensor& vec2);
void addr_out(const Tensor& out, double beta, const Tensor& M, double alpha, const Tensor& vec1, const Tensor& vec2);
// beta * M + alpha * sum_i batch1[i] @ batch2[i] (M is n x p).
Tensor addbmm(double beta, const Tensor& M, double alpha, const Tensor& batch1, const Tensor& batch2);
void addbmm_out(const Tensor& out, double beta, const Tensor& M, double alpha, const Tensor& batch1,
                const Tensor& batch2);
// beta * M[i] + alpha * batch1[i] @ batch2[i] for each i (M is b x n x p).
Tensor baddbmm(double beta, const Tensor& M, double alpha, const Tensor& batch1, const Tensor& batch2);
void baddbmm_out(const Tensor& out, double beta, const Tensor& M, double alpha, const Tensor& batch1,
                 const Tensor& batch2);

}  // namespace tocha
