// C ABI of the predicates, logical ops, isclose/allclose and nan_to_num (bindings/tocha_predicates.h).
#include "capi.h"
#include "core/ops/predicates.h"

using namespace tocha;
using namespace tocha::capi;

#define TOCHA_PREDICATE_ABI(name, lua)                                                      \
  tocha_tensor* tocha_##name(const tocha_tensor* x) noexcept {                              \
    return guard_tensor([&] { return name(arg(x, lua)); });                                 \
  }
TOCHA_PREDICATE_ABI(isnan, "isnan")
TOCHA_PREDICATE_ABI(isinf, "isinf")
TOCHA_PREDICATE_ABI(isfinite, "isfinite")
TOCHA_PREDICATE_ABI(isposinf, "isposinf")
TOCHA_PREDICATE_ABI(isneginf, "isneginf")
TOCHA_PREDICATE_ABI(logical_not, "logicalNot")
#undef TOCHA_PREDICATE_ABI

#define TOCHA_LOGICAL_ABI(name, lua)                                                        \
  tocha_tensor* tocha_##name(const tocha_tensor* a, const tocha_tensor* b) noexcept {       \
    return guard_tensor([&] { return name(arg(a, lua), arg(b, lua)); });                    \
  }
TOCHA_LOGICAL_ABI(logical_and, "logicalAnd")
TOCHA_LOGICAL_ABI(logical_or, "logicalOr")
TOCHA_LOGICAL_ABI(logical_xor, "logicalXor")
#undef TOCHA_LOGICAL_ABI

tocha_tensor* tocha_isclose(const tocha_tensor* a, const tocha_tensor* b, double rtol, double atol,
                            int equal_nan) noexcept {
  return guard_tensor([&] { return isclose(arg(a, "isclose"), arg(b, "isclose"), rtol, atol, equal_nan != 0); });
}

int tocha_allclose(const tocha_tensor* a, const tocha_tensor* b, double rtol, double atol, int equal_nan) noexcept {
  bool close = false;
  int rc = guard_int([&] { close = allclose(arg(a, "allclose"), arg(b, "allclose"), rtol, atol, equal_nan != 0); });
  return rc != 0 ? rc : int(close);
}

tocha_tensor* tocha_nan_to_num(const tocha_tensor* x, double nan, int has_posinf, double posinf, int has_neginf,
                               double neginf) noexcept {
  return guard_tensor([&] {
    return nan_to_num(arg(x, "nanToNum"), nan, has_posinf ? std::optional<double>(posinf) : std::nullopt,
                      has_neginf ? std::optional<double>(neginf) : std::nullopt);
  });
}
