// Vector-Jacobian products of batch and layer normalization. Node layouts (core/ops/norm*.cpp):
// inputs (x, weight, bias); saved x, weight, mean, invstd; attrs.d[0] eps and attrs.i[0] the
// training flag (batchNorm) or the number of normalized dims (layerNorm). Without createGraph the
// fused backward kernels run; with it the formulas are written with recorded ops, the statistics
// recomputed from x, so that higher-order gradients flow.
#include "core/autograd/formula_ops.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/vjp.h"
#include "core/ops/norm.h"
#include "core/ops/reduce.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {

// A per-channel vector shaped to broadcast against x (1 x C x 1 x ...).
Tensor per_channel(const Tensor& v, const Tensor& x) {
  DimVec s = DimVec::filled(x.dim(), 1);
  s[1] = x.size(1);
  return reshape(v, s);
}

// The formula written with recorded ops, for createGraph: in training the statistics are
// recomputed from x so that their dependence on x reaches the higher-order gradients.
Grads batch_norm_graph(Node& n, const Tensor& g, const Tensor& x, const Tensor& w, const Tensor& mean,
                       const Tensor& invstd, bool training) {
  uint32_t others = 0;
  for (int d = 0; d < x.dim(); ++d)
    if (d != 1) others |= 1u << d;
  const double m = double(x.numel() / x.size(1));
  Tensor is, xhat;
  if (training) {
    Tensor xc = sub(x, mul(sum_dims(x, others, true), 1 / m));
    Tensor var = mul(sum_dims(square(xc), others, true), 1 / m);
    is = unary(OpId::rsqrt, add(var, n.attrs.d[0]));
    xhat = mul(xc, is);
  } else {
    is = per_channel(invstd, x);
    xhat = mul(sub(x, per_channel(mean, x)), is);
  }
  Grads r(3);
  if (n.needs_input_grad(0)) {
    Tensor gy = w.defined() ? mul(g, per_channel(w, x)) : g;
    if (training) {
      Tensor mg = mul(sum_dims(gy, others, true), 1 / m);
      Tensor mgx = mul(sum_dims(mul(gy, xhat), others, true), 1 / m);
      r[0] = mul(sub(sub(gy, mg), mul(xhat, mgx)), is);
    } else {
      r[0] = mul(gy, is);
    }
  }
  if (n.needs_input_grad(1)) r[1] = sum_dims(mul(g, xhat), others, false);
  if (n.needs_input_grad(2)) r[2] = sum_dims(g, others, false);
  return r;
}

// gi = invstd * (gy - mean(gy) - xhat * mean(gy * xhat)) over the normalized dims, gy = g * w.
Grads layer_norm_graph(Node& n, const Tensor& g, const Tensor& x, const Tensor& w) {
  const int nd = int(n.attrs.i[0]);
  uint32_t rows = 0, cols = 0;
  for (int d = 0; d < x.dim(); ++d) (d < x.dim() - nd ? rows : cols) |= 1u << d;
  int64_t k = 1;
  for (int d = x.dim() - nd; d < x.dim(); ++d) k *= x.size(d);
  const double inv_k = 1 / double(k);
  Tensor xc = sub(x, mul(sum_dims(x, cols, true), inv_k));
  Tensor is = unary(OpId::rsqrt, add(mul(sum_dims(square(xc), cols, true), inv_k), n.attrs.d[0]));
  Tensor xhat = mul(xc, is);
  auto over_rows = [&](const Tensor& t) { return rows ? sum_dims(t, rows, false) : t; };
  Grads r(3);
  if (n.needs_input_grad(0)) {
    Tensor gy = w.defined() ? mul(g, w) : g;
    Tensor mg = mul(sum_dims(gy, cols, true), inv_k);
    Tensor mgx = mul(sum_dims(mul(gy, xhat), cols, true), inv_k);
    r[0] = mul(sub(sub(gy, mg), mul(xhat, mgx)), is);
  }
  if (n.needs_input_grad(1)) r[1] = over_rows(mul(g, xhat));
  if (n.needs_input_grad(2)) r[2] = over_rows(g);
  return r;
}

}  // namespace

Grads vjp_batchNorm(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0), w = n.saved_tensor(1), mean = n.saved_tensor(2), invstd = n.saved_tensor(3);
  bool training = n.attrs.i[0] != 0;
  if (grad_enabled()) return batch_norm_graph(n, g[0], x, w, mean, invstd, training);
  NormGrads r = batch_norm_backward(g[0], x, w, mean, invstd, training, n.needs_input_grad(0),
                                    n.needs_input_grad(1), n.needs_input_grad(2));
  return {r.grad_input, r.grad_weight, r.grad_bias};
}

Grads vjp_layerNorm(Node& n, const Grads& g) {
  Tensor x = n.saved_tensor(0), w = n.saved_tensor(1), mean = n.saved_tensor(2), invstd = n.saved_tensor(3);
  if (grad_enabled()) return layer_norm_graph(n, g[0], x, w);
  NormGrads r = layer_norm_backward(g[0], x, int(n.attrs.i[0]), w, mean, invstd, n.needs_input_grad(0),
                                    n.needs_input_grad(1), n.needs_input_grad(2));
  return {r.grad_input, r.grad_weight, r.grad_bias};
}

}  // namespace autograd
}  // namespace tocha
