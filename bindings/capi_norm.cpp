// C ABI of the normalization ops (core/ops/norm.h).
#include "capi.h"
#include "core/ops/norm.h"

using namespace tocha;
using namespace tocha::capi;

namespace {
// An optional tensor argument (NULL: undefined).
Tensor opt(const tocha_tensor* p, const char* op) { return p ? Tensor(arg(p, op).get()) : Tensor(); }
}  // namespace

tocha_tensor* tocha_batch_norm(const tocha_tensor* x, const tocha_tensor* weight, const tocha_tensor* bias,
                               tocha_tensor* running_mean, tocha_tensor* running_var, int training, double momentum,
                               double eps, tocha_tensor** save_mean, tocha_tensor** save_invstd) noexcept {
  const char* op = "batchNorm";
  return guard_tensor([&] {
    BatchNormResult r = batch_norm(arg(x, op), opt(weight, op), opt(bias, op), opt(running_mean, op),
                                   opt(running_var, op), training != 0, momentum, eps);
    if (save_mean) *save_mean = r.save_mean.release();
    if (save_invstd) *save_invstd = r.save_invstd.release();
    return r.output;
  });
}

int tocha_batch_norm_out(tocha_tensor* out, tocha_tensor* save_mean, tocha_tensor* save_invstd, const tocha_tensor* x,
                         const tocha_tensor* weight, const tocha_tensor* bias, tocha_tensor* running_mean,
                         tocha_tensor* running_var, int training, double momentum, double eps) noexcept {
  const char* op = "batchNorm";
  return guard_int([&] {
    batch_norm_out(arg(out, op), arg(save_mean, op), arg(save_invstd, op), arg(x, op), opt(weight, op), opt(bias, op),
                   opt(running_mean, op), opt(running_var, op), training != 0, momentum, eps);
  });
}

int tocha_batch_norm_backward_out(tocha_tensor* grad_input, tocha_tensor* grad_weight, tocha_tensor* grad_bias,
                                  const tocha_tensor* grad_output, const tocha_tensor* x, const tocha_tensor* weight,
                                  const tocha_tensor* save_mean, const tocha_tensor* save_invstd, int training,
                                  double scale) noexcept {
  const char* op = "batchNormBackward";
  return guard_int([&] {
    batch_norm_backward_out(opt(grad_input, op), opt(grad_weight, op), opt(grad_bias, op), arg(grad_output, op),
                            arg(x, op), opt(weight, op), arg(save_mean, op), arg(save_invstd, op), training != 0,
                            scale);
  });
}

int tocha_batch_norm_backward(const tocha_tensor* grad_output, const tocha_tensor* x, const tocha_tensor* weight,
                              const tocha_tensor* save_mean, const tocha_tensor* save_invstd, int training,
                              tocha_tensor** grad_input, tocha_tensor** grad_weight, tocha_tensor** grad_bias) noexcept {
  const char* op = "batchNormBackward";
  return guard_int([&] {
    NormGrads r = batch_norm_backward(arg(grad_output, op), arg(x, op), opt(weight, op), arg(save_mean, op),
                                           arg(save_invstd, op), training != 0, grad_input != nullptr,
                                           grad_weight != nullptr, grad_bias != nullptr);
    if (grad_input) *grad_input = r.grad_input.release();
    if (grad_weight) *grad_weight = r.grad_weight.release();
    if (grad_bias) *grad_bias = r.grad_bias.release();
  });
}

int tocha_layer_norm_out(tocha_tensor* out, tocha_tensor* save_mean, tocha_tensor* save_invstd, const tocha_tensor* x,
                         int ndims, const tocha_tensor* weight, const tocha_tensor* bias, double eps) noexcept {
  const char* op = "layerNorm";
  return guard_int([&] {
    layer_norm_out(arg(out, op), arg(save_mean, op), arg(save_invstd, op), arg(x, op), ndims, opt(weight, op),
                   opt(bias, op), eps);
  });
}

int tocha_layer_norm_backward_out(tocha_tensor* grad_input, tocha_tensor* grad_weight, tocha_tensor* grad_bias,
                                  const tocha_tensor* grad_output, const tocha_tensor* x, int ndims,
                                  const tocha_tensor* weight, const tocha_tensor* save_mean,
                                  const tocha_tensor* save_invstd, double scale) noexcept {
  const char* op = "layerNormBackward";
  return guard_int([&] {
    layer_norm_backward_out(opt(grad_input, op), opt(grad_weight, op), opt(grad_bias, op), arg(grad_output, op),
                            arg(x, op), ndims, opt(weight, op), arg(save_mean, op), arg(save_invstd, op), scale);
  });
}
