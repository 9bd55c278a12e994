// C ABI of the poisson and binomial draws (bindings/tocha_shape.h), around core/ops/random_count.h.
#include "capi.h"
#include "core/ops/random_count.h"

using namespace tocha;
using namespace tocha::capi;

namespace {
// tocha_generator is the C name of a Generator; NULL is the default generator (capi_random.cpp).
Generator& gen_of(tocha_generator* g) { return g ? *reinterpret_cast<Generator*>(g) : default_generator(); }
}  // namespace

tocha_tensor* tocha_poisson(const tocha_tensor* rates, tocha_generator* g) noexcept {
  return guard_tensor([&] { return poisson(arg(rates, "poisson"), gen_of(g)); });
}

tocha_tensor* tocha_binomial(const tocha_tensor* count, const tocha_tensor* prob, tocha_generator* g) noexcept {
  return guard_tensor([&] { return binomial(arg(count, "binomial"), arg(prob, "binomial"), gen_of(g)); });
}
