// Vector-Jacobian products: one formula per differentiable primitive of core/ops.def, written
// with the engine's own ops so that higher-order gradients work. The dispatch table is expanded
// from the op table: an op marked GRAD without a vjp_<name> definition does not link.
#pragma once
#include "core/autograd/node.h"

namespace tocha {
namespace autograd {

using VjpFn = Grads (*)(Node& node, const Grads& grad_outputs);

#define TOCHA_VJP_DECL_GRAD(name) Grads vjp_##name(Node& node, const Grads& grad_outputs);
#define TOCHA_VJP_DECL_NOGRAD(name)
#define TOCHA_OP(name, kind, grad) TOCHA_VJP_DECL_##grad(name)
#include "core/ops.def"
#undef TOCHA_OP
#undef TOCHA_VJP_DECL_GRAD
#undef TOCHA_VJP_DECL_NOGRAD

// Runs the formula of node.op (an error for ops that are not differentiable).
Grads run_vjp(Node& node, const Grads& grad_outputs);

// What a pointwise op's formula needs saved (the front-end saves exactly these).
struct SaveSpec {
  bool input[3] = {false, false, false};
  bool output = false;
};
// scalar_pos: 0 when every operand is a tensor, 1 when the second operand is a Lua number
// (x op s), 2 when the first is (s op x).
SaveSpec pointwise_save_spec(OpId op, int scalar_pos);

}  // namespace autograd
}  // namespace tocha
