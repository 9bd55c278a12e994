// Convolution front-ends (DESIGN.md decision 2): N-d convolution over 1-3 spatial dims with
// stride, padding, dilation and groups, its transpose (the input-gradient, "full" or fractionally
// strided convolution) and its weight-gradient. Layouts are channels-first: input N x C x spatial
// (or C x spatial for one sample), conv weight O x C/groups x kernel, transposed-conv weight
// C x O/groups x kernel (Torch7's SpatialFullConvolution and PyTorch). See Note [Convolution roles].
#pragma once
#include "core/tensor.h"

namespace tocha {

// Per-dim options, in the order of the spatial dims (depth, height, width); nd of them are used.
struct ConvOptions {
  int nd = 2;
  int64_t stride[3] = {1, 1, 1};
  int64_t padding[3] = {0, 0, 0};
  int64_t dilation[3] = {1, 1, 1};
  int64_t output_padding[3] = {0, 0, 0};  // transposed convolution only
  int64_t groups = 1;
};

// y = conv(input, weight) + bias (bias may be null). Output size per dim:
// (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1.
Tensor conv(const Tensor& input, const Tensor& weight, const Tensor* bias, const ConvOptions& o);
// The same into out (resized; Torch7's res; nn's reused output buffers).
void conv_out(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor* bias, const ConvOptions& o);

// The transposed convolution: output size (in - 1) * stride - 2 * padding + dilation * (kernel - 1)
// + output_padding + 1, with output_padding < stride or < dilation. weight is C_in x C_out/groups x kernel.
Tensor conv_transpose(const Tensor& input, const Tensor& weight, const Tensor* bias, const ConvOptions& o);
void conv_transpose_out(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor* bias,
                        const ConvOptions& o);

// The gradient of conv with respect to its weight: for input (N x C x spatial) and grad_output
// (N x O x out spatial), the O x C/groups x kernel tensor sum_n grad_output[n] correlated with input[n].
Tensor conv_weight(const Tensor& input, const Tensor& grad_output, const DimVec& kernel, const ConvOptions& o);
// grad_weight = beta * grad_weight + alpha * conv_weight(input, grad_output): nn's accGradParameters
// (not recorded; grad_weight keeps its size, which gives the kernel). With grad_bias (one value per
// channel of grad_output), also grad_bias = beta * grad_bias + alpha * grad_output's channel sums, in
// the same pass where the kernel can (Note [Fused bias gradient]).
void conv_weight_acc(const Tensor& grad_weight, const Tensor& input, const Tensor& grad_output,
                     const ConvOptions& o, double alpha, double beta, const Tensor* grad_bias = nullptr);
// The gradient of a convolution's bias: grad_output summed over every dim but the channel dim (dim 1
// of a batch, dim 0 of one sample); nd says which layout grad_output has. Recorded like sum.
Tensor conv_bias_grad(const Tensor& grad_output, int nd);
// grad_bias += alpha * grad_output summed over every dim but the channel dim (dim 1 of a batch,
// dim 0 of one sample); nd says which layout grad_output has. Not recorded.
void conv_bias_acc(const Tensor& grad_bias, const Tensor& grad_output, int nd, double alpha);

}  // namespace tocha
