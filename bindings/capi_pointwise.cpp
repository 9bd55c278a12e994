// C ABI of the pointwise ops; the UNARY*, BINARY* and COMPARE entries are expanded from core/ops.def.
#include "capi.h"
#include "core/ops/pointwise.h"

using namespace tocha;
using namespace tocha::capi;

#define CAPI_UNARY(name)                                                                         \
  tocha_tensor* tocha_##name(const tocha_tensor* a) noexcept {                                  \
    return guard_tensor([&] { return unary(OpId::name, arg(a, #name)); });                       \
  }                                                                                              \
  int tocha_##name##_out(tocha_tensor* out, const tocha_tensor* a) noexcept {                   \
    return guard_int([&] { unary_out(OpId::name, arg(out, #name), arg(a, #name)); });            \
  }
#define CAPI_UNARY_FLOAT(name) CAPI_UNARY(name)
#define CAPI_BINARY(name)                                                                                   \
  tocha_tensor* tocha_##name(const tocha_tensor* a, const tocha_tensor* b) noexcept {                      \
    return guard_tensor([&] { return binary(OpId::name, arg(a, #name), arg(b, #name)); });                  \
  }                                                                                                         \
  int tocha_##name##_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* b) noexcept {       \
    return guard_int([&] { binary_out(OpId::name, arg(out, #name), arg(a, #name), arg(b, #name)); });       \
  }                                                                                                         \
  tocha_tensor* tocha_##name##_scalar(const tocha_tensor* a, double b) noexcept {                          \
    return guard_tensor([&] { return binary(OpId::name, arg(a, #name), Scalar(b)); });                      \
  }                                                                                                         \
  int tocha_##name##_scalar_out(tocha_tensor* out, const tocha_tensor* a, double b) noexcept {             \
    return guard_int([&] { binary_out(OpId::name, arg(out, #name), arg(a, #name), Scalar(b)); });          \
  }                                                                                                         \
  tocha_tensor* tocha_##name##_rscalar(double a, const tocha_tensor* b) noexcept {                         \
    return guard_tensor([&] { return binary(OpId::name, Scalar(a), arg(b, #name)); });                      \
  }
#define CAPI_BINARY_FLOAT(name) CAPI_BINARY(name)
#define CAPI_COMPARE(name) CAPI_BINARY(name)
#define CAPI_UNARY_INT(name) CAPI_UNARY(name)
#define CAPI_BINARY_INT(name) CAPI_BINARY(name)
#define CAPI_POINTWISE(name)
#define CAPI_OTHER(name)
#define TOCHA_OP(name, kind, grad) CAPI_##kind(name)
#include "core/ops.def"
#undef TOCHA_OP

tocha_tensor* tocha_add_alpha(const tocha_tensor* a, double alpha, const tocha_tensor* b) noexcept {
  return guard_tensor([&] { return binary(OpId::add, arg(a, "add"), arg(b, "add"), alpha); });
}
int tocha_add_alpha_out(tocha_tensor* out, const tocha_tensor* a, double alpha, const tocha_tensor* b) noexcept {
  return guard_int([&] { binary_out(OpId::add, arg(out, "add"), arg(a, "add"), arg(b, "add"), alpha); });
}
tocha_tensor* tocha_csub_alpha(const tocha_tensor* a, double alpha, const tocha_tensor* b) noexcept {
  return guard_tensor([&] { return binary(OpId::csub, arg(a, "csub"), arg(b, "csub"), alpha); });
}
int tocha_csub_alpha_out(tocha_tensor* out, const tocha_tensor* a, double alpha, const tocha_tensor* b) noexcept {
  return guard_int([&] { binary_out(OpId::csub, arg(out, "csub"), arg(a, "csub"), arg(b, "csub"), alpha); });
}

static std::optional<double> bound(int has, double v) { return has ? std::optional<double>(v) : std::nullopt; }
tocha_tensor* tocha_clamp(const tocha_tensor* a, int has_lo, double lo, int has_hi, double hi) noexcept {
  return guard_tensor([&] { return clamp(arg(a, "clamp"), bound(has_lo, lo), bound(has_hi, hi)); });
}
int tocha_clamp_out(tocha_tensor* out, const tocha_tensor* a, int has_lo, double lo, int has_hi, double hi) noexcept {
  return guard_int([&] { clamp_out(arg(out, "clamp"), arg(a, "clamp"), bound(has_lo, lo), bound(has_hi, hi)); });
}
tocha_tensor* tocha_addcmul(const tocha_tensor* a, double v, const tocha_tensor* b, const tocha_tensor* c) noexcept {
  return guard_tensor([&] { return addcmul(arg(a, "addcmul"), v, arg(b, "addcmul"), arg(c, "addcmul")); });
}
int tocha_addcmul_out(tocha_tensor* out, const tocha_tensor* a, double v, const tocha_tensor* b,
                      const tocha_tensor* c) noexcept {
  return guard_int([&] { addcmul_out(arg(out, "addcmul"), arg(a, "addcmul"), v, arg(b, "addcmul"), arg(c, "addcmul")); });
}
tocha_tensor* tocha_addcdiv(const tocha_tensor* a, double v, const tocha_tensor* b, const tocha_tensor* c) noexcept {
  return guard_tensor([&] { return addcdiv(arg(a, "addcdiv"), v, arg(b, "addcdiv"), arg(c, "addcdiv")); });
}
int tocha_addcdiv_out(tocha_tensor* out, const tocha_tensor* a, double v, const tocha_tensor* b,
                      const tocha_tensor* c) noexcept {
  return guard_int([&] { addcdiv_out(arg(out, "addcdiv"), arg(a, "addcdiv"), v, arg(b, "addcdiv"), arg(c, "addcdiv")); });
}
tocha_tensor* tocha_lerp(const tocha_tensor* a, const tocha_tensor* b, const tocha_tensor* w) noexcept {
  return guard_tensor([&] { return lerp(arg(a, "lerp"), arg(b, "lerp"), arg(w, "lerp")); });
}
int tocha_lerp_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* b, const tocha_tensor* w) noexcept {
  return guard_int([&] { lerp_out(arg(out, "lerp"), arg(a, "lerp"), arg(b, "lerp"), arg(w, "lerp")); });
}
tocha_tensor* tocha_lerp_scalar(const tocha_tensor* a, const tocha_tensor* b, double w) noexcept {
  return guard_tensor([&] { return lerp(arg(a, "lerp"), arg(b, "lerp"), Scalar(w)); });
}
tocha_tensor* tocha_where(const tocha_tensor* c, const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return guard_tensor([&] { return where(arg(c, "where"), arg(a, "where"), arg(b, "where")); });
}
