// Kernel signatures of the normalization ops: the contract between the front-ends in
// core/ops/norm.cpp and the kernels in kernels/cpu/norm_batch.cpp. Kernels never validate.
#pragma once
#include <cstdint>

namespace tocha {

// Batch normalization of x viewed as N x C x L (contiguous), per channel c:
//   training: mean, var = batch statistics over the N*L values of c (biased var); the running
//             statistics, when given, become (1 - momentum) * running + momentum * batch (the
//             unbiased var); evaluation: mean, var = the running statistics.
//   y = (x - mean) / sqrt(var + eps) * weight + bias; save_mean and save_invstd receive mean and
//   1 / sqrt(var + eps). Every per-channel pointer is a contiguous C-vector of x's dtype;
//   weight, bias (1 and 0 when null) and the running statistics (training only) may be null.
struct BatchNormArgs {
  int64_t n, c, l;
  const void* x;
  void* y;
  const void* weight;
  const void* bias;
  void* running_mean;
  void* running_var;
  void* save_mean;
  void* save_invstd;
  bool training;
  double momentum, eps;
};
using BatchNormKernel = void (*)(const BatchNormArgs&);

// Its backward from the saved mean and invstd: grad_input (N x C x L, or null) is written;
// grad_weight and grad_bias (C, or null) are accumulated: += scale * sum(g * xhat), += scale * sum(g).
// In training the statistics depend on x (the full formula); in evaluation they are constants.
struct BatchNormBackwardArgs {
  int64_t n, c, l;
  const void* grad_out;
  const void* x;
  const void* weight;
  const void* mean;
  const void* invstd;
  bool training;
  void* grad_input;
  void* grad_weight;
  void* grad_bias;
  double scale;
};
using BatchNormBackwardKernel = void (*)(const BatchNormBackwardArgs&);

}  // namespace tocha

namespace tocha {

// Layer normalization of x viewed as M rows of K values (contiguous): each row is normalized by
// its mean and biased variance, then y = xhat * weight + bias with per-column weight and bias
// (K-vectors, or null for 1 and 0). save_mean and save_invstd (M-vectors) receive the statistics.
struct LayerNormArgs {
  int64_t m, k;
  const void* x;
  void* y;
  const void* weight;
  const void* bias;
  void* save_mean;
  void* save_invstd;
  double eps;
};
using LayerNormKernel = void (*)(const LayerNormArgs&);

// Its backward: grad_input (M x K, or null) is written; grad_weight and grad_bias (K, or null) are
// accumulated: += scale * (sum over rows of g * xhat), += scale * (sum over rows of g).
struct LayerNormBackwardArgs {
  int64_t m, k;
  const void* grad_out;
  const void* x;
  const void* weight;
  const void* mean;
  const void* invstd;
  void* grad_input;
  void* grad_weight;
  void* grad_bias;
  double scale;
};
using LayerNormBackwardKernel = void (*)(const LayerNormBackwardArgs&);

}  // namespace tocha
