// Matrix-shape helpers: diag (vector <-> k-th diagonal) and tril/triu (the part of a matrix on
// and below / above its k-th diagonal; k > 0 is above the main diagonal, k < 0 below).
#pragma once
#include "core/tensor.h"

namespace tocha {

// A vector of n gives an (n+|k|)x(n+|k|) matrix with it on the k-th diagonal and zeros elsewhere;
// a matrix gives a copy of its k-th diagonal (empty when k is past the edge).
Tensor diag(const Tensor& x, int64_t k);
void diag_out(const Tensor& out, const Tensor& x, int64_t k);

// x with the elements above its k-th diagonal set to 0 (batches: the last two dims are the matrix).
Tensor tril(const Tensor& x, int64_t k);
// tril into out (resized); out may be x itself (in place).
void tril_out(const Tensor& out, const Tensor& x, int64_t k);
// x with the elements below its k-th diagonal set to 0.
Tensor triu(const Tensor& x, int64_t k);
void triu_out(const Tensor& out, const Tensor& x, int64_t k);

// Kernel interface of tril/triu: `batch` matrices of rows x cols; the batch dims (all but the last
// two) are listed with both tensors' strides. Row i keeps columns j with j - i <= k (tril) or
// j - i >= k (triu) and zeroes the others. out may be in itself.
struct TriangleArgs {
  char* out = nullptr;
  const char* in = nullptr;
  int nbatch_dims = 0;
  int64_t batch_size[kMaxDims] = {};
  int64_t out_batch_stride[kMaxDims] = {};
  int64_t in_batch_stride[kMaxDims] = {};
  int64_t batch = 1, rows = 0, cols = 0;
  int64_t out_rs = 0, out_cs = 0, in_rs = 0, in_cs = 0;
  int64_t k = 0;
};
using TriangleKernel = void (*)(const TriangleArgs&);

}  // namespace tocha
