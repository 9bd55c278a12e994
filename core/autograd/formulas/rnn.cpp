// Vector-Jacobian product of rnnLayer: backpropagation through time by the fused backward kernel
// (rnnLayerBackward), then the weight gradients in one GEMM each (rnnLayerWeightGrads).
// Node layout: Note [Saved by rnnLayer] in core/ops/rnn.cpp; inputs x h0 c0 w_ih w_hh b_ih b_hh.
#include "core/autograd/grad_mode.h"
#include "core/autograd/vjp.h"
#include "core/ops/rnn.h"

namespace tocha {
namespace autograd {

Grads vjp_rnnLayer(Node& n, const Grads& g) {
  // The fused backward is not made of recorded ops, so its results could not carry a graph.
  TOCHA_CHECK(!grad_enabled(), "rnnLayer", "double backward (createGraph=true) through a recurrent layer is not "
              "supported: its fused backward is not differentiable");
  const RnnMode mode = RnnMode(n.attrs.i[0]);
  const bool h0_zero = n.attrs.i[1] != 0;
  Tensor x = n.saved_tensor(0), h0 = n.saved_tensor(1), c0 = n.saved_tensor(2);
  Tensor w_ih = n.saved_tensor(3), w_hh = n.saved_tensor(4), y = n.saved_tensor(5), ws = n.saved_tensor(6);
  Tensor dy = g.size() > 0 ? g[0] : Tensor();
  Tensor dh_n = g.size() > 1 ? g[1] : Tensor();
  Tensor dc_n = g.size() > 2 ? g[2] : Tensor();
  // Missing initial states were saved as zeros; pass them as missing so the kernel skips them.
  if (h0_zero) h0 = Tensor();
  RnnLayerGrads r = rnn_layer_backward(mode, x, h0, c0, w_ih, w_hh, y, ws, dy, dh_n, dc_n, n.needs_input_grad(0));
  Tensor gw[4];
  bool any = false;
  for (int k = 0; k < 4; ++k) {
    if (!n.needs_input_grad(3 + k)) continue;
    gw[k] = empty(n.inputs[size_t(3 + k)].shape, x.dtype(), x.device());
    any = true;
  }
  if (any) rnn_layer_weight_grads(mode, x, h0, y, r.dgates, 1, 0, gw[0], gw[1], gw[2], gw[3]);
  return {r.dx, n.needs_input_grad(1) ? r.dh0 : Tensor(), n.needs_input_grad(2) ? r.dc0 : Tensor(),
          gw[0], gw[1], gw[2], gw[3]};
}

}  // namespace autograd
}  // namespace tocha
