// Vector-Jacobian products of the convolution ops. conv, convTranspose and convWeight are bilinear
// and each one's adjoints are the other two (Note [Convolution roles]), so the formulas are written
// with the three ops themselves and are differentiable to any order.
// Node layout: Note [Recording convolutions] in core/ops/conv.cpp.
#include "core/autograd/grad_mode.h"
#include "core/autograd/vjp.h"
#include "core/ops/conv.h"
#include "core/ops/conv_util.h"
#include "core/ops/reduce.h"

namespace tocha {
namespace autograd {

namespace {

bool has_bias(const Node& n) { return n.attrs.i[2] != 0; }

DimVec kernel_of(const Tensor& w, int nd) {
  DimVec k;
  for (int d = 0; d < nd; ++d) k.push_back(w.size(2 + d));
  return k;
}

// The transposed convolution of g back to `size` (the spatial sizes of a conv input): output
// padding takes up the rows the strided forward pass skipped.
Tensor transpose_to(const Tensor& g, const Tensor& w, const DimVec& size, ConvOptions o) {
  const int sd = g.dim() - o.nd;
  for (int d = 0; d < o.nd; ++d) {
    int64_t full = (g.size(sd + d) - 1) * o.stride[d] - 2 * o.padding[d] + o.dilation[d] * (w.size(2 + d) - 1) + 1;
    o.output_padding[d] = size[size.size() - o.nd + d] - full;
  }
  return conv_transpose(g, w, nullptr, o);
}

}  // namespace

// y = conv(x, w) + b: dx = convTranspose(g, w), dw = convWeight(x, g), db = sum(g).
Grads vjp_conv(Node& n, const Grads& g) {
  ConvOptions o = conv_options_of(n);
  Tensor x = n.saved_tensor(0), w = n.saved_tensor(1);
  Grads r{n.needs_input_grad(0) ? transpose_to(g[0], w, x.sizes(), o) : Tensor(), Tensor()};
  const bool dw = n.needs_input_grad(1), db = has_bias(n) && n.needs_input_grad(2);
  if (dw && db && !grad_enabled()) {
    // both in one pass over g (Note [Fused bias gradient]); not recorded, so only without create_graph
    Tensor gw = empty(w.sizes(), x.dtype(), x.device()), gb = empty({w.size(0)}, x.dtype(), x.device());
    conv_weight_acc(gw, x, g[0], o, 1, 0, &gb);
    r[1] = gw;
    r.push_back(gb);
    return r;
  }
  if (dw) r[1] = conv_weight(x, g[0], kernel_of(w, o.nd), o);
  if (has_bias(n)) r.push_back(db ? conv_bias_grad(g[0], o.nd) : Tensor());
  return r;
}

// x = convTranspose(y, w) + b: dy = conv(g, w), dw = convWeight(g, y) (g plays the conv input).
Grads vjp_convTranspose(Node& n, const Grads& g) {
  ConvOptions o = conv_options_of(n);
  Tensor y = n.saved_tensor(0), w = n.saved_tensor(1);
  Grads r{n.needs_input_grad(0) ? conv(g[0], w, nullptr, o) : Tensor(),
          n.needs_input_grad(1) ? conv_weight(g[0], y, kernel_of(w, o.nd), o) : Tensor()};
  if (has_bias(n)) r.push_back(n.needs_input_grad(2) ? conv_bias_grad(g[0], o.nd) : Tensor());
  return r;
}

// W = convWeight(x, gy): dx = convTranspose(gy, G), dgy = conv(x, G) for the incoming gradient G.
Grads vjp_convWeight(Node& n, const Grads& g) {
  ConvOptions o = conv_options_of(n);
  Tensor x = n.saved_tensor(0), gy = n.saved_tensor(1);
  return {n.needs_input_grad(0) ? transpose_to(gy, g[0], x.sizes(), o) : Tensor(),
          n.needs_input_grad(1) ? conv(x, g[0], nullptr, o) : Tensor()};
}

}  // namespace autograd
}  // namespace tocha
