// Kernel contract of the fused optimizer updates: the front-ends in core/ops/optim.cpp turn the
// user's options into these constants, the kernels in kernels/cpu/optim_*.cpp apply them.
// Kernels never validate.
#pragma once
#include <cstdint>
#include "core/dtype.h"
#include "core/op_id.h"

namespace tocha {

constexpr int kMaxOptimOperands = 6;

// n elements of contiguous operands of one dtype (f32 or f64): data[0] is the parameter,
// data[1] the gradient, then the optimizer's own operands in the order its front-end documents;
// an absent optional operand is null.
struct OptimSpan {
  int64_t n = 0;
  void* data[kMaxOptimOperands] = {};
};

// Operands: param, grad, momentum buffer, learning rates, weight decays.
struct SgdConsts {
  double lr, momentum, dampening, weight_decay;
  bool nesterov, first_step;
};
// Operands: param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq.
// param = param*decay - step_size * m / (sqrt(v)*denom_scale + eps), g += weight_decay*param first.
struct AdamConsts {
  double step_size, beta1, beta2, eps, denom_scale, weight_decay, decay;
};
// Operands: param, grad, exp_avg, exp_inf.
struct AdamaxConsts {
  double step_size, beta1, beta2, eps, weight_decay;
};
// Operands: param, grad, square_avg, grad_avg (centered), momentum buffer.
struct RmspropConsts {
  double lr, alpha, eps, weight_decay, momentum;
};
// Operands: param, grad, sum.
struct AdagradConsts {
  double lr, eps, weight_decay;
};
// Operands: param, grad, square_avg, acc_delta.
struct AdadeltaConsts {
  double lr, rho, eps, weight_decay;
};
// Operands: param, grad, prev, step sizes.
struct RpropConsts {
  double etaplus, etaminus, step_min, step_max;
};

template <class C> using OptimKernel = void (*)(const OptimSpan&, const C&);

// Multi-tensor updates (Note [Multi-tensor optimizer steps], core/ops/optim_batch.cpp): up to
// kMaxOptimList updates of one op and dtype on one device, each with its own span and constants,
// applied by one kernel launch. Only CUDA registers such kernels.
constexpr int kMaxOptimList = 16;
template <class C> struct OptimSpanList {
  int count = 0;
  OptimSpan spans[kMaxOptimList];
  C consts[kMaxOptimList];
};
template <class C> using OptimListKernel = void (*)(const OptimSpanList<C>&);
void register_optim_list_kernel(OpId op, DType dt, void* fn);
void* find_optim_list_kernel(OpId op, DType dt);  // nullptr when none is registered

struct OptimListKernelRegistrar {
  OptimListKernelRegistrar(OpId op, DType dt, void* fn) { register_optim_list_kernel(op, dt, fn); }
};

}  // namespace tocha
