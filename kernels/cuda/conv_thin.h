// Direct CUDA kernels for 2-D convolutions with thin filters (at most 32 taps, in_channels * kh *
// kw: the first layers of image models), forward with the bias and weight gradient, f32. Taken
// instead of cuDNN by kernels/cuda/cudnn_conv.cpp (Note [Thin-filter convolutions], conv_thin.cu).
#pragma once
#include "core/dtype.h"
#include "core/ops/conv_kernels.h"

namespace tocha {
namespace cuda {

// Whether the thin kernels take this convolution (off with TOCHA_CUDA_THIN_CONV=0 in the environment).
bool thin_conv_applies(DType dt, const ConvGeometry& g);
// y = conv(x, w) + b (b may be null). Call inside a LaunchScope of the output's device.
void thin_conv_forward(const ConvArgs& a);
// w = beta * w + alpha * dL/dw from x and dL/dy (w is not read when beta == 0).
void thin_conv_weight(const ConvArgs& a);

}  // namespace cuda
}  // namespace tocha
