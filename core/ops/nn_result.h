// Result tensors of the nn op front-ends (pooling, padding, resampling): the kernels write
// contiguous results, so a `res` tensor from Lua (Torch7's buffers reused across calls) is used
// directly when it can be, and filled from a temporary otherwise.
#pragma once
#include "core/tensor.h"

namespace tocha {

// The contiguous tensor of `shape` the kernel should write: a new one, or *out resized when it is
// contiguous afterwards and shares no storage with `in` or `in2`. out must have dtype dt.
Tensor result_target(const char* op, const Tensor* out, const DimVec& shape, DType dt, const Tensor& in,
                     const Tensor* in2 = nullptr);
// After the kernel: copies target into *out when they differ and bumps out's version; returns
// the result (out when given).
Tensor result_finish(const Tensor* out, const Tensor& target);

// Checks shared by the nn front-ends.
void check_floating(const char* op, const Tensor& x);
void check_positive(const char* op, const char* what, int64_t v);
// "[op] expected a 3D (C x H x W) or 4D (N x C x H x W) tensor, got 5x4": x has one of the two
// ranks; layout names the dims of the larger one.
void check_rank(const char* op, const Tensor& x, int lo, const char* layout);

}  // namespace tocha
