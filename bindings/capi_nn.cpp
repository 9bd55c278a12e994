// C ABI of the fused ops behind nn's criterions (bindings/tocha_nn.h).
#include "capi.h"
#include "core/ops/loss.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

ClassLossOptions class_options(const tocha_tensor* weight, int size_average, int64_t ignore_index, int64_t base,
                               const char* op) {
  ClassLossOptions o;
  if (weight) o.weight = arg(weight, op).get();
  o.size_average = size_average != 0;
  o.ignore_index = ignore_index;
  o.index_base = base;
  return o;
}

}  // namespace

tocha_tensor* tocha_nll_loss(const tocha_tensor* input, const tocha_tensor* target, const tocha_tensor* weight,
                             int size_average, int64_t ignore_index, int64_t base) noexcept {
  return guard_tensor([&] {
    return nll_loss(arg(input, "nllLoss"), arg(target, "nllLoss"),
                    class_options(weight, size_average, ignore_index, base, "nllLoss"));
  });
}
tocha_tensor* tocha_cross_entropy(const tocha_tensor* input, const tocha_tensor* target, const tocha_tensor* weight,
                                  int size_average, int64_t ignore_index, int64_t base) noexcept {
  return guard_tensor([&] {
    return cross_entropy(arg(input, "crossEntropy"), arg(target, "crossEntropy"),
                         class_options(weight, size_average, ignore_index, base, "crossEntropy"));
  });
}
tocha_tensor* tocha_nll_loss_backward(double grad, const tocha_tensor* input, const tocha_tensor* target,
                                      const tocha_tensor* weight, int size_average, int64_t ignore_index,
                                      int64_t base) noexcept {
  return guard_tensor([&] {
    return nll_loss_backward(grad, arg(input, "nllLoss"), arg(target, "nllLoss"),
                             class_options(weight, size_average, ignore_index, base, "nllLoss"));
  });
}
int tocha_class_loss_backward_out(tocha_tensor* out, int cross_entropy, double grad, const tocha_tensor* input,
                                  const tocha_tensor* target, const tocha_tensor* weight, int size_average,
                                  int64_t ignore_index, int64_t base) noexcept {
  return guard_int([&] {
    const char* op = cross_entropy ? "crossEntropy" : "nllLoss";
    class_loss_backward_out(arg(out, op), cross_entropy != 0, grad, arg(input, op), arg(target, op),
                            class_options(weight, size_average, ignore_index, base, op));
  });
}
tocha_tensor* tocha_cross_entropy_backward(double grad, const tocha_tensor* input, const tocha_tensor* target,
                                           const tocha_tensor* weight, int size_average, int64_t ignore_index,
                                           int64_t base) noexcept {
  return guard_tensor([&] {
    return cross_entropy_backward(grad, arg(input, "crossEntropy"), arg(target, "crossEntropy"),
                                  class_options(weight, size_average, ignore_index, base, "crossEntropy"));
  });
}
