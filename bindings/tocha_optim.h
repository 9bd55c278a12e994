/* tocha_optim.h -- C ABI of the fused optimizer updates (core/ops/optim.h). Included by tocha.h;
 * see its conventions. Each call updates a parameter and its state tensors in place in one pass,
 * never recorded by autograd, and returns 0 (or -1 with tocha_last_error()). All tensors have
 * the parameter's number of elements and device and a floating dtype; strided or other-dtype
 * operands are staged through contiguous copies, f16/bf16 parameters compute in float. A NULL
 * optional tensor means "not used". Flags are 0 or 1. */
#ifndef TOCHA_OPTIM_ABI_H
#define TOCHA_OPTIM_ABI_H

/* SGD (Torch7's optim.sgd, PyTorch's SGD): d = grad + weight_decay*param (or, when weight_decay is
   0, + weight_decays*param elementwise); with momentum, buf = first_step ? d : momentum*buf +
   (1-dampening)*d and d = nesterov ? d + momentum*buf : buf; param -= lr*d (times learning_rates
   elementwise). momentum_buf may be NULL when momentum is 0. */
TOCHA_API int tocha_optim_sgd_step(tocha_tensor *param, const tocha_tensor *grad, tocha_tensor *momentum_buf,
                                   double lr, double momentum, double dampening, double weight_decay, int nesterov,
                                   int first_step, const tocha_tensor *learning_rates,
                                   const tocha_tensor *weight_decays) TOCHA_NOEXCEPT;
/* Adam / AdamW: step is the 1-based count including this update; decoupled applies weight decay
   as param *= 1 - lr*weight_decay (AdamW) instead of adding it to the gradient; eps_mode 0 adds
   eps to sqrt(v) (Torch7), 1 to sqrt(v/(1-beta2^step)) (PyTorch). max_exp_avg_sq != NULL: AMSGrad. */
TOCHA_API int tocha_optim_adam_step(tocha_tensor *param, const tocha_tensor *grad, tocha_tensor *exp_avg,
                                    tocha_tensor *exp_avg_sq, tocha_tensor *max_exp_avg_sq, int64_t step, double lr,
                                    double beta1, double beta2, double eps, double weight_decay, int decoupled,
                                    int eps_mode) TOCHA_NOEXCEPT;
/* AdaMax: m = b1*m + (1-b1)*g; u = max(b2*u, |g| + eps); param -= lr/(1-b1^step) * m/u. */
TOCHA_API int tocha_optim_adamax_step(tocha_tensor *param, const tocha_tensor *grad, tocha_tensor *exp_avg,
                                      tocha_tensor *exp_inf, int64_t step, double lr, double beta1, double beta2,
                                      double eps, double weight_decay) TOCHA_NOEXCEPT;
/* RMSprop: grad_avg != NULL makes it centered; momentum_buf is needed when momentum > 0. */
TOCHA_API int tocha_optim_rmsprop_step(tocha_tensor *param, const tocha_tensor *grad, tocha_tensor *square_avg,
                                       tocha_tensor *grad_avg, tocha_tensor *momentum_buf, double lr, double alpha,
                                       double eps, double weight_decay, double momentum) TOCHA_NOEXCEPT;
/* Adagrad: sum += g^2; param -= lr*g/(sqrt(sum) + eps); lr is the already decayed rate. */
TOCHA_API int tocha_optim_adagrad_step(tocha_tensor *param, const tocha_tensor *grad, tocha_tensor *sum, double lr,
                                       double eps, double weight_decay) TOCHA_NOEXCEPT;
/* Adadelta: param -= lr * sqrt(acc + eps)/sqrt(sq + eps) * g with running averages sq and acc. */
TOCHA_API int tocha_optim_adadelta_step(tocha_tensor *param, const tocha_tensor *grad, tocha_tensor *square_avg,
                                        tocha_tensor *acc_delta, double lr, double rho, double eps,
                                        double weight_decay) TOCHA_NOEXCEPT;
/* Rprop: per-element step sizes grow by etaplus while the gradient keeps its sign and shrink by
   etaminus when it flips (that step is skipped), within [step_min, step_max]. */
TOCHA_API int tocha_optim_rprop_step(tocha_tensor *param, const tocha_tensor *grad, tocha_tensor *prev,
                                     tocha_tensor *step_size, double etaplus, double etaminus, double step_min,
                                     double step_max) TOCHA_NOEXCEPT;

/* Multi-tensor steps: between begin and end, this thread's updates of CUDA parameters are queued
   and end launches them together, several updates per kernel (one launch instead of one per
   parameter). Pairs nest; end returns -1 when a launch fails. Within the pair, touch the
   parameters and their state only through these update calls. */
TOCHA_API void tocha_optim_batch_begin(void) TOCHA_NOEXCEPT;
/* Launches the updates queued so far, the batch going on (before an op the batch does not queue). */
TOCHA_API int tocha_optim_batch_flush(void) TOCHA_NOEXCEPT;
TOCHA_API int tocha_optim_batch_end(void) TOCHA_NOEXCEPT;

#endif
