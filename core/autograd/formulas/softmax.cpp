// Vector-Jacobian products of the fused softmax and logSoftmax (core/ops/softmax.cpp). Node
// layout: input x; saved[0] the output y; attrs.i[0] the normalized dim (-1 for a 0-dim input,
// whose softmax is the constant 1 and logSoftmax the constant 0). Written with recorded ops, so
// that under createGraph the gradient is differentiable again (y carries this node).
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/reduce.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {
// t summed over the node's dim, kept for broadcasting (t itself for a 0-dim input).
Tensor row_sum(const Node& n, const Tensor& t) {
  const int d = int(n.attrs.i[0]);
  return d < 0 ? t : sum(t, d, true);
}
}  // namespace

// y = softmax(x): dx = y * (g - sum(g * y)).
Grads vjp_softmax(Node& n, const Grads& g) {
  Tensor y = n.saved_tensor(0);
  return {mul(y, sub(g[0], row_sum(n, mul(g[0], y))))};
}

// y = logSoftmax(x): dx = g - exp(y) * sum(g).
Grads vjp_logSoftmax(Node& n, const Grads& g) {
  Tensor y = n.saved_tensor(0);
  return {sub(g[0], mul(exp(y), row_sum(n, g[0])))};
}

}  // namespace autograd
}  // namespace tocha
