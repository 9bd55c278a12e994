// C ABI of PyTorch's extra pointwise functions (tocha_pointwise_math.h) over core/ops/pointwise_math.h.
#include "capi.h"
#include "core/ops/pointwise.h"
#include "core/ops/pointwise_math.h"

using namespace tocha;
using namespace tocha::capi;

tocha_tensor* tocha_logit_eps(const tocha_tensor* x, int has_eps, double eps) noexcept {
  return guard_tensor([&] { return logit(arg(x, "logit"), has_eps ? std::optional<double>(eps) : std::nullopt); });
}
tocha_tensor* tocha_polygamma(int64_t n, const tocha_tensor* x) noexcept {
  return guard_tensor([&] { return polygamma(n, arg(x, "polygamma")); });
}
int tocha_polygamma_out(tocha_tensor* out, int64_t n, const tocha_tensor* x) noexcept {
  return guard_int([&] { polygamma_out(arg(out, "polygamma"), n, arg(x, "polygamma")); });
}
tocha_tensor* tocha_float_power(const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return guard_tensor([&] { return float_power(arg(a, "floatPower"), arg(b, "floatPower")); });
}
tocha_tensor* tocha_float_power_scalar(const tocha_tensor* a, double b) noexcept {
  return guard_tensor([&] { return float_power(arg(a, "floatPower"), Scalar(b)); });
}
tocha_tensor* tocha_float_power_rscalar(double a, const tocha_tensor* b) noexcept {
  return guard_tensor([&] { return float_power(Scalar(a), arg(b, "floatPower")); });
}
int tocha_float_power_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return guard_int([&] { float_power_out(arg(out, "floatPower"), arg(a, "floatPower"), arg(b, "floatPower")); });
}
int tocha_float_power_scalar_out(tocha_tensor* out, const tocha_tensor* a, double b) noexcept {
  return guard_int([&] { float_power_out(arg(out, "floatPower"), arg(a, "floatPower"), Scalar(b)); });
}
tocha_tensor* tocha_signbit(const tocha_tensor* x) noexcept {
  return guard_tensor([&] { return signbit(arg(x, "signbit")); });
}
tocha_tensor* tocha_ldexp(const tocha_tensor* x, const tocha_tensor* e) noexcept {
  return guard_tensor([&] { return ldexp(arg(x, "ldexp"), arg(e, "ldexp")); });
}
tocha_tensor* tocha_ldexp_scalar(const tocha_tensor* x, double e) noexcept {
  return guard_tensor([&] { return ldexp(arg(x, "ldexp"), Scalar(e)); });
}
int tocha_frexp(const tocha_tensor* x, tocha_tensor** mantissa, tocha_tensor** exponent) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(mantissa && exponent, "frexp", "result pointer is NULL");
    auto r = frexp(arg(x, "frexp"));
    *mantissa = r.first.release();
    *exponent = r.second.release();
  });
}
static const char* mode_arg(const char* mode) { return mode ? mode : ""; }
tocha_tensor* tocha_divide(const tocha_tensor* a, const tocha_tensor* b, const char* mode) noexcept {
  return guard_tensor([&] { return divide(arg(a, "divide"), arg(b, "divide"), mode_arg(mode)); });
}
tocha_tensor* tocha_divide_scalar(const tocha_tensor* a, double b, const char* mode) noexcept {
  return guard_tensor([&] { return divide(arg(a, "divide"), Scalar(b), mode_arg(mode)); });
}
tocha_tensor* tocha_divide_rscalar(double a, const tocha_tensor* b, const char* mode) noexcept {
  return guard_tensor([&] { return divide(Scalar(a), arg(b, "divide"), mode_arg(mode)); });
}
