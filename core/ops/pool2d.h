// 2-D pooling front-ends: max pooling with indices and average pooling (Torch7's
// SpatialMaxPooling and SpatialAveragePooling, PyTorch's max_pool2d / avg_pool2d), each with its
// backward as an op of its own. Inputs are C x H x W or N x C x H x W.
// Note [Pooling output size]: per dim, (in + 2 * pad - k) / stride + 1, rounded down, or up in
// ceil mode; in ceil mode a last window that would start in the right padding is dropped (Torch7
// and PyTorch). pad must be at most k / 2, so every window holds an input element.
// Note [Max-pooling indices]: indices has the output's size and holds, for each output, the flat
// position h * W + w of its maximum inside its input plane, plus index_base (1 from Lua: (h-1)*W + w
// with 1-based h and w, Torch7's convention; 0 from C). A NaN in a window wins (it propagates).
#pragma once
#include "core/tensor.h"

namespace tocha {

struct Pool2dOptions {
  int64_t kernel[2] = {1, 1};   // kH, kW
  int64_t stride[2] = {1, 1};   // dH, dW
  int64_t padding[2] = {0, 0};  // padH, padW
  bool ceil_mode = false;
  // Average pooling: divide by the window size including the zero padding (Torch7's default) or
  // by the number of input elements in the window.
  bool count_include_pad = true;
};

struct MaxPool2dResult {
  Tensor values, indices;
};

MaxPool2dResult max_pool2d(const Tensor& input, const Pool2dOptions& o, int64_t index_base);
// Into values and indices (resized; nn's reused buffers).
void max_pool2d_out(const Tensor& values, const Tensor& indices, const Tensor& input, const Pool2dOptions& o,
                    int64_t index_base);
// The gradient of max_pool2d: grad_output added at the positions `indices` names, in a zero tensor
// of size input_shape. Every index is checked to lie inside its plane. `windows`, when given, are
// the options the indices were computed with (max_pool2d's own backward knows them): kernels may
// then gather instead of scattering (non-overlapping windows on CUDA).
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& indices, const DimVec& input_shape,
                           int64_t index_base, const Pool2dOptions* windows = nullptr);
void max_pool2d_backward_out(const Tensor& grad_input, const Tensor& grad_output, const Tensor& indices,
                             const DimVec& input_shape, int64_t index_base, const Pool2dOptions* windows = nullptr);

Tensor avg_pool2d(const Tensor& input, const Pool2dOptions& o);
void avg_pool2d_out(const Tensor& out, const Tensor& input, const Pool2dOptions& o);
// The gradient of avg_pool2d for an input of size input_shape (its adjoint).
Tensor avg_pool2d_backward(const Tensor& grad_output, const DimVec& input_shape, const Pool2dOptions& o);
void avg_pool2d_backward_out(const Tensor& grad_input, const Tensor& grad_output, const DimVec& input_shape,
                             const Pool2dOptions& o);

}  // namespace tocha
