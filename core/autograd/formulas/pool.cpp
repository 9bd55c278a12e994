// Vector-Jacobian products of the pooling, padding and resampling ops (core/ops/pool.cpp and
// resample.cpp). Node layout, set by the front-ends:
//   max poolings: attrs.i[0] the first pooled dim, i[1] how many, i[2] the index base; saved[0]
//     the indices. Their gradient scatters into the input (max_pool_backward, itself differentiable).
//   average poolings and their backward ops: i[3] bit 0 ceil mode, bit 1 count_include_pad;
//     shape, shape2, shape3 the kernel, stride and padding in (T, H, W) order.
//   pad, padBackward: i[0] the mode, shape the pads. upsample2d(Backward): i[0] mode, i[1] align_corners.
// Each backward op is linear in the gradient, so its own vjp is the forward op (the adjoint's adjoint).
#include "core/autograd/vjp.h"
#include "core/ops/pool.h"
#include "core/ops/resample.h"

namespace tocha {
namespace autograd {

namespace {

const DimVec& in_shape(const Node& n) { return n.inputs[0].shape; }

Tensor max_grad(Node& n, const Tensor& g) {
  return max_pool_backward(g, n.saved_tensor(0), in_shape(n), int(n.attrs.i[0]), int(n.attrs.i[1]), n.attrs.i[2]);
}

Pool3dParams params(const Node& n) {
  Pool3dParams p;
  for (int i = 0; i < 3; ++i) {
    p.k[i] = n.attrs.shape[i];
    p.d[i] = n.attrs.shape2[i];
    p.pad[i] = n.attrs.shape3[i];
  }
  p.ceil_mode = n.attrs.i[3] & 1;
  p.count_include_pad = (n.attrs.i[3] & 2) != 0;
  return p;
}

std::vector<int64_t> pads(const Node& n) { return std::vector<int64_t>(n.attrs.shape.begin(), n.attrs.shape.end()); }
PadMode pad_mode(const Node& n) { return PadMode(n.attrs.i[0]); }
UpsampleMode up_mode(const Node& n) { return UpsampleMode(n.attrs.i[0]); }
bool align(const Node& n) { return n.attrs.i[1] != 0; }

}  // namespace

Grads vjp_adaptiveMaxPool2d(Node& n, const Grads& g) { return {max_grad(n, g[0])}; }
Grads vjp_maxPool3d(Node& n, const Grads& g) { return {max_grad(n, g[0])}; }
Grads vjp_temporalMaxPool(Node& n, const Grads& g) { return {max_grad(n, g[0])}; }

Grads vjp_adaptiveAvgPool2d(Node& n, const Grads& g) { return {adaptive_avg_pool2d_backward(g[0], in_shape(n))}; }
// The input of the backward op is the output gradient: pool the incoming gradient to its size.
Grads vjp_adaptiveAvgPool2dBackward(Node& n, const Grads& g) {
  const DimVec& s = in_shape(n);
  return {adaptive_avg_pool2d(g[0], s[s.size() - 2], s[s.size() - 1])};
}

Grads vjp_avgPool3d(Node& n, const Grads& g) { return {avg_pool3d_backward(g[0], in_shape(n), params(n))}; }
Grads vjp_avgPool3dBackward(Node& n, const Grads& g) { return {avg_pool3d(g[0], params(n))}; }

Grads vjp_pad(Node& n, const Grads& g) { return {pad_backward(g[0], in_shape(n), pads(n), pad_mode(n))}; }
Grads vjp_padBackward(Node& n, const Grads& g) { return {pad(g[0], pads(n), pad_mode(n), 0)}; }

Grads vjp_upsample2d(Node& n, const Grads& g) {
  return {upsample2d_backward(g[0], in_shape(n), up_mode(n), align(n))};
}
Grads vjp_upsample2dBackward(Node& n, const Grads& g) {
  const DimVec& s = in_shape(n);
  return {upsample2d(g[0], s[s.size() - 2], s[s.size() - 1], up_mode(n), align(n))};
}

}  // namespace autograd
}  // namespace tocha
