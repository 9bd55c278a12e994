// Normalization op front-ends: batch normalization over dim 1 of N x C x ... inputs and its
// fused backward (kernels in kernels/cpu/norm_batch.cpp, formula in formulas/norm.cpp).
#pragma once
#include "core/tensor.h"

namespace tocha {

struct BatchNormResult {
  Tensor output;
  Tensor save_mean;    // the per-channel mean used (the batch's in training, the running one otherwise)
  Tensor save_invstd;  // the per-channel 1 / sqrt(var + eps) used
};
// Normalizes x (N x C x ..., at least 2 dims) per channel: with the batch statistics in training
// (updating running_mean and running_var in place when given: running = (1 - momentum) * running
// + momentum * batch, unbiased variance), else with the running statistics. weight and bias
// (undefined: 1 and 0) and the running statistics are C-vectors of x's dtype. Differentiable in
// x, weight and bias.
BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, bool training, double momentum, double eps);
// The same into out (resized like x), save_mean and save_invstd (resized to C).
void batch_norm_out(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& x,
                    const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                    bool training, double momentum, double eps);

struct BatchNormGrads {
  Tensor grad_input, grad_weight, grad_bias;  // undefined when not asked for
};
// The gradients of batch_norm's output (gradient grad_out) from its saved mean and invstd.
BatchNormGrads batch_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& weight,
                                   const Tensor& save_mean, const Tensor& save_invstd, bool training,
                                   bool need_input, bool need_weight, bool need_bias);
// Torch7's form: grad_input (if defined) is resized and written; grad_weight and grad_bias (if
// defined) accumulate scale times their gradients.
void batch_norm_backward_out(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                             const Tensor& grad_out, const Tensor& x, const Tensor& weight, const Tensor& save_mean,
                             const Tensor& save_invstd, bool training, double scale);

}  // namespace tocha
