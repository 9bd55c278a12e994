// C ABI of the composite ops (core/ops/composite.h) and of layer normalization (core/ops/norm.h).
#include "capi.h"
#include "core/ops/composite.h"
#include "core/ops/norm.h"

using namespace tocha;
using namespace tocha::capi;

tocha_tensor* tocha_softmax(const tocha_tensor* x, int dim) noexcept {
  return guard_tensor([&] { return softmax(arg(x, "softmax"), dim); });
}
tocha_tensor* tocha_log_softmax(const tocha_tensor* x, int dim) noexcept {
  return guard_tensor([&] { return log_softmax(arg(x, "logSoftmax"), dim); });
}
tocha_tensor* tocha_gelu(const tocha_tensor* x) noexcept { return guard_tensor([&] { return gelu(arg(x, "gelu")); }); }
tocha_tensor* tocha_silu(const tocha_tensor* x) noexcept { return guard_tensor([&] { return silu(arg(x, "silu")); }); }
tocha_tensor* tocha_elu(const tocha_tensor* x, double alpha, double scale) noexcept {
  return guard_tensor([&] { return elu(arg(x, "elu"), alpha, scale); });
}
tocha_tensor* tocha_selu(const tocha_tensor* x) noexcept { return guard_tensor([&] { return selu(arg(x, "selu")); }); }
tocha_tensor* tocha_leaky_relu(const tocha_tensor* x, double slope) noexcept {
  return guard_tensor([&] { return leaky_relu(arg(x, "leakyRelu"), slope); });
}
tocha_tensor* tocha_softplus(const tocha_tensor* x, double beta, double threshold) noexcept {
  return guard_tensor([&] { return softplus(arg(x, "softplus"), beta, threshold); });
}
tocha_tensor* tocha_layer_norm(const tocha_tensor* x, int ndims, const tocha_tensor* w, const tocha_tensor* b,
                               double eps) noexcept {
  return guard_tensor([&] {
    return layer_norm(arg(x, "layerNorm"), ndims, w ? arg(w, "layerNorm") : Tensor(), b ? arg(b, "layerNorm") : Tensor(),
                      eps);
  });
}
