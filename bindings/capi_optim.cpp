// C ABI of the fused optimizer updates (bindings/tocha_optim.h over core/ops/optim.h).
#include <optional>
#include "capi.h"
#include "core/ops/optim.h"
#include "core/ops/optim_batch.h"

using namespace tocha;
using namespace tocha::capi;

namespace {
// An optional tensor argument: NULL stays absent.
struct Optional {
  Optional(const tocha_tensor* p, const char* op) {
    if (!p) return;
    arg(p, op);  // checks for a freed handle
    b.emplace(const_cast<tocha_tensor*>(p));
  }
  const Tensor* get() const { return b ? &b->get() : nullptr; }
  std::optional<Borrowed> b;
};
}  // namespace

int tocha_optim_sgd_step(tocha_tensor* param, const tocha_tensor* grad, tocha_tensor* momentum_buf, double lr,
                         double momentum, double dampening, double weight_decay, int nesterov, int first_step,
                         const tocha_tensor* learning_rates, const tocha_tensor* weight_decays) noexcept {
  return guard_int([&] {
    const char* op = "sgdStep";
    Optional buf(momentum_buf, op), lrs(learning_rates, op), wds(weight_decays, op);
    SgdOptions o;
    o.lr = lr;
    o.momentum = momentum;
    o.dampening = dampening;
    o.weight_decay = weight_decay;
    o.nesterov = nesterov != 0;
    o.first_step = first_step != 0;
    sgd_step(arg(param, op), arg(grad, op), buf.get(), lrs.get(), wds.get(), o);
  });
}

int tocha_optim_adam_step(tocha_tensor* param, const tocha_tensor* grad, tocha_tensor* exp_avg,
                          tocha_tensor* exp_avg_sq, tocha_tensor* max_exp_avg_sq, int64_t step, double lr,
                          double beta1, double beta2, double eps, double weight_decay, int decoupled,
                          int eps_mode) noexcept {
  return guard_int([&] {
    const char* op = "adamStep";
    Optional vmax(max_exp_avg_sq, op);
    AdamOptions o;
    o.lr = lr;
    o.beta1 = beta1;
    o.beta2 = beta2;
    o.eps = eps;
    o.weight_decay = weight_decay;
    o.step = step;
    o.decoupled = decoupled != 0;
    o.eps_mode = eps_mode;
    adam_step(arg(param, op), arg(grad, op), arg(exp_avg, op), arg(exp_avg_sq, op), vmax.get(), o);
  });
}

int tocha_optim_adamax_step(tocha_tensor* param, const tocha_tensor* grad, tocha_tensor* exp_avg,
                            tocha_tensor* exp_inf, int64_t step, double lr, double beta1, double beta2, double eps,
                            double weight_decay) noexcept {
  return guard_int([&] {
    const char* op = "adamaxStep";
    AdamaxOptions o;
    o.lr = lr;
    o.beta1 = beta1;
    o.beta2 = beta2;
    o.eps = eps;
    o.weight_decay = weight_decay;
    o.step = step;
    adamax_step(arg(param, op), arg(grad, op), arg(exp_avg, op), arg(exp_inf, op), o);
  });
}

int tocha_optim_rmsprop_step(tocha_tensor* param, const tocha_tensor* grad, tocha_tensor* square_avg,
                             tocha_tensor* grad_avg, tocha_tensor* momentum_buf, double lr, double alpha, double eps,
                             double weight_decay, double momentum) noexcept {
  return guard_int([&] {
    const char* op = "rmspropStep";
    Optional ga(grad_avg, op), buf(momentum_buf, op);
    RmspropOptions o;
    o.lr = lr;
    o.alpha = alpha;
    o.eps = eps;
    o.weight_decay = weight_decay;
    o.momentum = momentum;
    rmsprop_step(arg(param, op), arg(grad, op), arg(square_avg, op), ga.get(), buf.get(), o);
  });
}

int tocha_optim_adagrad_step(tocha_tensor* param, const tocha_tensor* grad, tocha_tensor* sum, double lr, double eps,
                             double weight_decay) noexcept {
  return guard_int([&] {
    const char* op = "adagradStep";
    adagrad_step(arg(param, op), arg(grad, op), arg(sum, op), AdagradOptions{lr, eps, weight_decay});
  });
}

int tocha_optim_adadelta_step(tocha_tensor* param, const tocha_tensor* grad, tocha_tensor* square_avg,
                              tocha_tensor* acc_delta, double lr, double rho, double eps,
                              double weight_decay) noexcept {
  return guard_int([&] {
    const char* op = "adadeltaStep";
    adadelta_step(arg(param, op), arg(grad, op), arg(square_avg, op), arg(acc_delta, op),
                  AdadeltaOptions{lr, rho, eps, weight_decay});
  });
}

int tocha_optim_rprop_step(tocha_tensor* param, const tocha_tensor* grad, tocha_tensor* prev, tocha_tensor* step_size,
                           double etaplus, double etaminus, double step_min, double step_max) noexcept {
  return guard_int([&] {
    const char* op = "rpropStep";
    rprop_step(arg(param, op), arg(grad, op), arg(prev, op), arg(step_size, op),
               RpropOptions{etaplus, etaminus, step_min, step_max});
  });
}

void tocha_optim_batch_begin(void) noexcept { optim_batch_begin(); }
int tocha_optim_batch_flush(void) noexcept {
  return guard_int([&] { optim_batch_flush(); });
}
int tocha_optim_batch_end(void) noexcept {
  return guard_int([&] { optim_batch_end(); });
}
