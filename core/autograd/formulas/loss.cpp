// Vector-Jacobian products of the fused class losses (Note [Fused class losses] in
// core/ops/loss.cpp). Node layout: input 0 is the scores; saved slots: 0 the scores, 1 the i64
// targets, 2 the class weights (may be undefined); attrs.i: size_average, ignore_index, base.
#include "core/autograd/formula_ops.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/vjp.h"
#include "core/ops/composite.h"
#include "core/ops/index.h"
#include "core/ops/index_scatter.h"
#include "core/ops/loss.h"
#include "core/ops/reduce.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {

ClassLossOptions options_of(Node& n) {
  ClassLossOptions o;
  o.weight = n.saved_tensor(2);
  o.size_average = n.attrs.i[0] != 0;
  o.ignore_index = n.attrs.i[1];
  o.index_base = n.attrs.i[2];
  return o;
}

// The input gradient built from recorded ops, for createGraph: with coef_i = w[t_i] / norm
// (0 for ignored rows), nll gives -onehot * coef * g and cross-entropy
// (softmax(x) - onehot) * coef * g.
Tensor recorded_grad(bool cross_entropy, const Tensor& x, const Tensor& t, const ClassLossOptions& o,
                     const Tensor& g) {
  const int64_t c = x.size(x.dim() - 1), rows = x.dim() == 2 ? x.size(0) : 1;
  Tensor x2 = x.dim() == 2 ? x : view(x, DimVec{1, c});
  Tensor tcol = view(t, DimVec{rows, 1});
  Tensor valid = binary(OpId::ne, tcol, Scalar(double(o.ignore_index)));
  Tensor safe = where(valid, binary(OpId::csub, tcol, Scalar(double(o.index_base))), zeros(DimVec{}, DType::i64, x.device()));
  Tensor coef = to_dtype(valid, x.dtype());
  if (o.weight.defined()) coef = mul(coef, view(index_select(o.weight, 0, view(safe, DimVec{rows}), 0), DimVec{rows, 1}));
  double norm = o.size_average ? item_at(sum(coef), 0) : 1.0;
  coef = mul(coef, 1.0 / (norm != 0 ? norm : 1.0));
  Tensor onehot = scatter(zeros(x2.sizes(), x.dtype(), x.device()), 1, safe, 1.0, 0);
  Tensor d = cross_entropy ? sub(softmax(x2, 1), onehot) : neg(onehot);
  return reshape(mul(d, mul(coef, g)), x.sizes());
}

Grads class_loss_vjp(Node& n, const Grads& g, bool cross_entropy) {
  if (!n.needs_input_grad(0) || !g[0].defined()) return {Tensor()};
  Tensor x = n.saved_tensor(0), t = n.saved_tensor(1);
  ClassLossOptions o = options_of(n);
  if (grad_enabled()) return {recorded_grad(cross_entropy, x, t, o, g[0])};
  // On a GPU the incoming gradient stays there: reading it as a number would wait for the GPU
  // (Note [Deferred device errors]); the kernel's unit-scaled gradient is multiplied on the device.
  if (!g[0].is_cpu()) {
    Tensor unit = cross_entropy ? cross_entropy_backward(1.0, x, t, o) : nll_loss_backward(1.0, x, t, o);
    return {mul(unit, to_dtype(g[0], unit.dtype()))};
  }
  double scale = item_at(g[0], 0);
  return {cross_entropy ? cross_entropy_backward(scale, x, t, o) : nll_loss_backward(scale, x, t, o)};
}

}  // namespace

Grads vjp_nllLoss(Node& n, const Grads& g) { return class_loss_vjp(n, g, false); }
Grads vjp_crossEntropy(Node& n, const Grads& g) { return class_loss_vjp(n, g, true); }

}  // namespace autograd
}  // namespace tocha
