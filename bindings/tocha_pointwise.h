/* tocha_pointwise.h -- C ABI of the pointwise ops. The UNARY*, BINARY* and COMPARE families are
 * generated from core/ops.def; the rest are written out. Included by tocha.h. */
#ifndef TOCHA_POINTWISE_ABI_H
#define TOCHA_POINTWISE_ABI_H

#define TOCHA_ABI_UNARY(name) \
  TOCHA_API tocha_tensor *tocha_##name(const tocha_tensor *a) TOCHA_NOEXCEPT; \
  TOCHA_API int tocha_##name##_out(tocha_tensor *out, const tocha_tensor *a) TOCHA_NOEXCEPT;
#define TOCHA_ABI_UNARY_FLOAT(name) TOCHA_ABI_UNARY(name)
#define TOCHA_ABI_BINARY(name) \
  TOCHA_API tocha_tensor *tocha_##name(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT; \
  TOCHA_API int tocha_##name##_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT; \
  TOCHA_API tocha_tensor *tocha_##name##_scalar(const tocha_tensor *a, double b) TOCHA_NOEXCEPT; \
  TOCHA_API int tocha_##name##_scalar_out(tocha_tensor *out, const tocha_tensor *a, double b) TOCHA_NOEXCEPT; \
  TOCHA_API tocha_tensor *tocha_##name##_rscalar(double a, const tocha_tensor *b) TOCHA_NOEXCEPT;
#define TOCHA_ABI_BINARY_FLOAT(name) TOCHA_ABI_BINARY(name)
#define TOCHA_ABI_COMPARE(name) TOCHA_ABI_BINARY(name)
#define TOCHA_ABI_UNARY_INT(name) TOCHA_ABI_UNARY(name)
#define TOCHA_ABI_BINARY_INT(name) TOCHA_ABI_BINARY(name)
#define TOCHA_ABI_POINTWISE(name)
#define TOCHA_ABI_OTHER(name)
#define TOCHA_OP(name, kind, grad) TOCHA_ABI_##kind(name)
#include "core/ops.def"
#undef TOCHA_OP

/* a + alpha * b and a - alpha * b (Torch7's add(x, value, y) and csub). */
TOCHA_API tocha_tensor *tocha_add_alpha(const tocha_tensor *a, double alpha, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API int tocha_add_alpha_out(tocha_tensor *out, const tocha_tensor *a, double alpha, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_csub_alpha(const tocha_tensor *a, double alpha, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API int tocha_csub_alpha_out(tocha_tensor *out, const tocha_tensor *a, double alpha, const tocha_tensor *b) TOCHA_NOEXCEPT;
/* Bounds are applied when has_lo / has_hi are non-zero. */
TOCHA_API tocha_tensor *tocha_clamp(const tocha_tensor *a, int has_lo, double lo, int has_hi, double hi) TOCHA_NOEXCEPT;
TOCHA_API int tocha_clamp_out(tocha_tensor *out, const tocha_tensor *a, int has_lo, double lo, int has_hi, double hi) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_addcmul(const tocha_tensor *a, double value, const tocha_tensor *b, const tocha_tensor *c) TOCHA_NOEXCEPT;
TOCHA_API int tocha_addcmul_out(tocha_tensor *out, const tocha_tensor *a, double value, const tocha_tensor *b, const tocha_tensor *c) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_addcdiv(const tocha_tensor *a, double value, const tocha_tensor *b, const tocha_tensor *c) TOCHA_NOEXCEPT;
TOCHA_API int tocha_addcdiv_out(tocha_tensor *out, const tocha_tensor *a, double value, const tocha_tensor *b, const tocha_tensor *c) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_lerp(const tocha_tensor *a, const tocha_tensor *b, const tocha_tensor *w) TOCHA_NOEXCEPT;
TOCHA_API int tocha_lerp_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *b, const tocha_tensor *w) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_lerp_scalar(const tocha_tensor *a, const tocha_tensor *b, double w) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_where(const tocha_tensor *cond, const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;

#endif
