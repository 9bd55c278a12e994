// Normalization op front-ends: batch normalization over dim 1 of N x C x ... inputs (norm.cpp)
// and layer normalization over the last dims (norm_layer.cpp), each with its fused backward
// (kernels in kernels/cpu/norm_*.cpp, formulas in core/autograd/formulas/norm.cpp).
#pragma once
#include "core/tensor.h"

namespace tocha {

struct NormGrads {
  Tensor grad_input, grad_weight, grad_bias;  // undefined when not asked for
};

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

// The gradients of batch_norm's output (gradient grad_out) from its saved mean and invstd.
NormGrads batch_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& weight,
                                   const Tensor& save_mean, const Tensor& save_invstd, bool training,
                                   bool need_input, bool need_weight, bool need_bias);
// Torch7's form: grad_input (if defined) is resized and written; grad_weight and grad_bias (if
// defined) accumulate scale times their gradients.
void batch_norm_backward_out(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                             const Tensor& grad_out, const Tensor& x, const Tensor& weight, const Tensor& save_mean,
                             const Tensor& save_invstd, bool training, double scale);

struct LayerNormResult {
  Tensor output;
  Tensor save_mean;    // one per normalized row (the product of the leading dims)
  Tensor save_invstd;  // 1 / sqrt(biased var + eps) per row
};
// Normalizes x over its last ndims dims (PyTorch's layer_norm), then applies the optional weight
// and bias (of those dims' shape). Differentiable in x, weight and bias (to any order).
Tensor layer_norm(const Tensor& x, int ndims, const Tensor& weight, const Tensor& bias, double eps);
LayerNormResult layer_norm_stats(const Tensor& x, int ndims, const Tensor& weight, const Tensor& bias, double eps);
// The same into out (resized like x), save_mean and save_invstd (resized to one per row).
void layer_norm_out(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& x, int ndims,
                    const Tensor& weight, const Tensor& bias, double eps);
// Its gradients from the saved statistics; the _out form writes grad_input and accumulates scale
// times the parameter gradients (each optional), like batch_norm_backward_out.
NormGrads layer_norm_backward(const Tensor& grad_out, const Tensor& x, int ndims, const Tensor& weight,
                              const Tensor& mean, const Tensor& invstd, bool need_input, bool need_weight,
                              bool need_bias);
void layer_norm_backward_out(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                             const Tensor& grad_out, const Tensor& x, int ndims, const Tensor& weight,
                             const Tensor& mean, const Tensor& invstd, double scale);

}  // namespace tocha
