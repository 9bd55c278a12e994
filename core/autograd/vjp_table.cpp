// The vjp dispatch table, expanded from core/ops.def (a GRAD op without a formula fails to link).
#include "core/autograd/vjp.h"
#include "core/error.h"

namespace tocha {
namespace autograd {

namespace {
#define TOCHA_VJP_PTR_GRAD(name) &vjp_##name,
#define TOCHA_VJP_PTR_NOGRAD(name) nullptr,
#define TOCHA_OP(name, kind, grad) TOCHA_VJP_PTR_##grad(name)
const VjpFn kVjp[] = {
#include "core/ops.def"
};
#undef TOCHA_OP
static_assert(sizeof(kVjp) / sizeof(kVjp[0]) == size_t(kNumOps), "vjp table and op table disagree");
}  // namespace

Grads run_vjp(Node& node, const Grads& grad_outputs) {
  int op = int(node.op);
  TOCHA_CHECK(op >= 0 && op < kNumOps && kVjp[op], "backward", op_name(node.op), " is not differentiable");
  return kVjp[op](node, grad_outputs);
}

}  // namespace autograd
}  // namespace tocha
