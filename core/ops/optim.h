// Fused optimizer updates (issue 5): one call updates a parameter tensor and its state buffers
// in place, elementwise, and is never recorded by autograd. Front-ends (optim.cpp) validate and
// stage strided or reduced-precision operands; kernels live in kernels/cpu/optim_*.cpp.
#pragma once
#include <cstdint>
#include "core/tensor.h"

namespace tocha {

// d = grad + weight_decay*param (or + weight_decays*param elementwise); with momentum,
// buf = first_step ? d : momentum*buf + (1-dampening)*d and d = nesterov ? d + momentum*buf : buf;
// param -= lr * d (times learning_rates elementwise when given). Torch7's optim.sgd and
// PyTorch's SGD are both this formula. Operands: param, grad, buf, learning_rates, weight_decays.
struct SgdOptions {
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, first_step = false;
};
void sgd_step(const Tensor& param, const Tensor& grad, const Tensor* momentum_buf, const Tensor* learning_rates,
              const Tensor* weight_decays, const SgdOptions& o);

// Adam (Torch7's optim.adam and PyTorch's Adam/AdamW); `step` is the 1-based step count after
// this update. See Note [Adam epsilon] in optim.cpp for eps_mode. max_exp_avg_sq (AMSGrad) may be null.
struct AdamOptions {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  int64_t step = 1;
  bool decoupled = false;  // AdamW: param *= 1 - lr*weight_decay instead of adding it to the gradient
  int eps_mode = 0;        // 0: Torch7 (eps added to sqrt(v)), 1: PyTorch (eps added to sqrt(v/bc2))
};
void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor* max_exp_avg_sq, const AdamOptions& o);

// AdaMax: m = b1*m + (1-b1)*g; u = max(b2*u, |g| + eps); param -= lr/(1-b1^step) * m/u.
struct AdamaxOptions {
  double lr = 2e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-38, weight_decay = 0;
  int64_t step = 1;
};
void adamax_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_inf,
                 const AdamaxOptions& o);

// RMSprop: sq = alpha*sq + (1-alpha)*g^2; avg = sqrt(sq - ga^2 if centered) + eps; with momentum
// buf = momentum*buf + g/avg and param -= lr*buf, else param -= lr*g/avg. grad_avg is given
// only when centered, momentum_buf only when momentum > 0.
struct RmspropOptions {
  double lr = 1e-2, alpha = 0.99, eps = 1e-8, weight_decay = 0, momentum = 0;
};
void rmsprop_step(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor* grad_avg,
                  const Tensor* momentum_buf, const RmspropOptions& o);

// Adagrad: sum += g^2; param -= lr * g/(sqrt(sum) + eps) (lr already decayed by the caller).
struct AdagradOptions {
  double lr = 1e-2, eps = 1e-10, weight_decay = 0;
};
void adagrad_step(const Tensor& param, const Tensor& grad, const Tensor& sum, const AdagradOptions& o);

// Adadelta: sq = rho*sq + (1-rho)*g^2; delta = sqrt(acc + eps)/sqrt(sq + eps) * g;
// param -= lr*delta; acc = rho*acc + (1-rho)*delta^2.
struct AdadeltaOptions {
  double lr = 1, rho = 0.9, eps = 1e-6, weight_decay = 0;
};
void adadelta_step(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor& acc_delta,
                   const AdadeltaOptions& o);

// Rprop: s = sign(g*prev); step *= etaplus (s > 0), etaminus (s < 0) or 1, clamped to
// [step_min, step_max]; where s < 0 the gradient counts as 0; param -= sign(g)*step; prev = g.
struct RpropOptions {
  double etaplus = 1.2, etaminus = 0.5, step_min = 1e-6, step_max = 50;
};
void rprop_step(const Tensor& param, const Tensor& grad, const Tensor& prev, const Tensor& step_size,
                const RpropOptions& o);

}  // namespace tocha
