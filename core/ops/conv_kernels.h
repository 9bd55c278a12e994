// Kernel signatures of the convolution ops (conv, convTranspose, convWeight): the contract between
// the front-ends in core/ops/conv.cpp and the kernels in kernels/cpu/conv*.cpp. Kernels never
// validate; every tensor they receive is contiguous.
#pragma once
#include <cstdint>

namespace tocha {

// The geometry of one convolution y = conv(x, w): x is N x C x in_size, w is O x C/groups x kernel
// and y is N x O x out_size. Fewer than 3 spatial dims are padded at the front with size-1 dims
// (kernel 1, stride 1, padding 0, dilation 1), so kernels handle 1-D, 2-D and 3-D alike.
struct ConvGeometry {
  int64_t batch = 0, groups = 1;
  int64_t in_channels = 0, out_channels = 0;
  int64_t in_size[3] = {1, 1, 1}, out_size[3] = {1, 1, 1}, kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dilation[3] = {1, 1, 1};
};

// Note [Convolution roles]: the three ops are the convolution and its two adjoints, so they share
// one geometry and one argument block; x, y, w name the roles in the forward convolution:
//   conv           reads x, w (and b, O values) and writes y
//   convTranspose  reads y, w (and b, C values) and writes x   (the input-gradient of conv)
//   convWeight     reads x, y and writes w = beta * w + alpha * dL/dw  (b unused)
struct ConvArgs {
  ConvGeometry g;
  const void* x = nullptr;  // written by convTranspose
  const void* y = nullptr;  // written by conv
  const void* w = nullptr;  // written by convWeight
  const void* b = nullptr;  // may be null
  void* out = nullptr;      // the written tensor's data
  double alpha = 1, beta = 0;
  // convWeight only, may be null: the bias gradient of y's channels (O values, contiguous), to be
  // made bias_grad = beta * bias_grad + alpha * (y summed over all but its channel dim) alongside
  // the weight (Note [Fused bias gradient]). A kernel that does so sets bias_written; otherwise the
  // front-end sums y itself.
  void* bias_grad = nullptr;
  mutable bool bias_written = false;
};
using ConvKernel = void (*)(const ConvArgs&);

}  // namespace tocha
