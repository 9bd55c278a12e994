// Vector-Jacobian products of 2-D pooling. Max pooling scatters the gradient to the saved
// positions (maxPool2dBackward), whose own gradient gathers from them; average pooling is linear, so
// its backward is its adjoint and the adjoint of that is average pooling again.
// Node layout: Note [Recording pooling] in core/ops/pool2d.cpp.
#include "core/autograd/vjp.h"
#include "core/ops/conv_util.h"
#include "core/ops/index_scatter.h"
#include "core/ops/pool2d.h"
#include "core/ops/views.h"

namespace tocha {
namespace autograd {

Grads vjp_maxPool2d(Node& n, const Grads& g) {
  const Pool2dOptions windows = pool_options_of(n);  // the indices' windows: CUDA may gather
  return {max_pool2d_backward(g[0], n.saved_tensor(0), n.inputs[0].shape, n.attrs.i[0], &windows)};
}

// grad_input[idx[j]] += grad_output[j] per plane: the gradient of grad_output[j] is G[idx[j]].
Grads vjp_maxPool2dBackward(Node& n, const Grads& g) {
  Tensor idx = n.saved_tensor(0);
  const DimVec& in = n.attrs.shape2;
  const int hd = in.size() - 2;
  const int64_t planes = in.size() == 4 ? in[0] * in[1] : in[0];
  Tensor G = reshape(g[0], {planes, in[hd] * in[hd + 1]});
  Tensor picked = gather(G, 1, reshape(idx, {planes, idx.size(hd) * idx.size(hd + 1)}), n.attrs.i[0]);
  return {reshape(picked, idx.sizes())};
}

Grads vjp_avgPool2d(Node& n, const Grads& g) {
  return {avg_pool2d_backward(g[0], n.inputs[0].shape, pool_options_of(n))};
}

Grads vjp_avgPool2dBackward(Node& n, const Grads& g) { return {avg_pool2d(g[0], pool_options_of(n))}; }

}  // namespace autograd
}  // namespace tocha
