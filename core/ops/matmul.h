// PyTorch's product functions over the BLAS ops: matmul (dot, mv, mm or one batched product by
// rank, batch dims broadcast), outer (ger) and tensordot. Composites of recorded primitives, so
// they are differentiable and run on every device with those kernels (Note [matmul plan]).
#pragma once
#include "core/tensor.h"

namespace tocha {

// PyTorch's torch.matmul: 1D.1D is dot (0-dim), 2D.2D mm, 1D.2D and 2D.1D the vector-matrix
// products, and any other ranks (both >= 1) a batched product whose batch dims broadcast. The
// operands share a dtype and device (Note [Linalg dtypes]). Always a new tensor.
Tensor matmul(const Tensor& a, const Tensor& b);
// matmul into out (Torch7's res): resized to the product's shape; out may alias a or b.
void matmul_out(const Tensor& out, const Tensor& a, const Tensor& b);

// PyTorch's torch.outer: ger of two 1D tensors of one dtype, with messages naming outer.
Tensor outer(const Tensor& a, const Tensor& b);
void outer_out(const Tensor& out, const Tensor& a, const Tensor& b);

// Fails for BoolTensors, which have no matrix product kernel (PyTorch has none either), with a
// message naming op: "[matmul] no matrix product for torch.BoolTensors ...".
void check_product_dtype(const char* op, DType dt);
// t permuted by perm, or t itself (no view, no autograd node) when perm is the identity; shared
// by tensordot and einsum.
Tensor permuted(const Tensor& t, const DimVec& perm);

// Sums a's dims dims_a[i] against b's dims dims_b[i] (0-based, negative from the end; equal sizes,
// or one of them 1): a's other dims then b's other dims, in order. One mm after permute+reshape.
Tensor tensordot(const Tensor& a, const Tensor& b, const DimVec& dims_a, const DimVec& dims_b);
// The last n dims of a against the first n of b.
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t n);

}  // namespace tocha
