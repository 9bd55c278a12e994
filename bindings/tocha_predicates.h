/* tocha_predicates.h -- C ABI of the elementwise predicates (isnan, isinf, isfinite, isposinf,
 * isneginf), the logical ops, isclose/allclose and nan_to_num. Included by tocha.h; see its
 * conventions. Masks are new ByteTensors; binary forms broadcast (or take operands with as many
 * elements, Torch7's rule). */
#ifndef TOCHA_PREDICATES_ABI_H
#define TOCHA_PREDICATES_ABI_H

/* 1 where x is NaN / +-inf / finite / +inf / -inf (integer and bool tensors have no NaN or inf). */
TOCHA_API tocha_tensor *tocha_isnan(const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_isinf(const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_isfinite(const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_isposinf(const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_isneginf(const tocha_tensor *x) TOCHA_NOEXCEPT;
/* Nonzero elements (NaN included) are true: not x, a and b, a or b, a xor b. */
TOCHA_API tocha_tensor *tocha_logical_not(const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_logical_and(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_logical_or(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_logical_xor(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
/* 1 where a == b or |a - b| <= atol + rtol * |b| (finite); equal_nan non-zero: NaN equals NaN.
   allclose: 1 when every element is close, 0 if not, -1 on error. */
TOCHA_API tocha_tensor *tocha_isclose(const tocha_tensor *a, const tocha_tensor *b, double rtol, double atol,
                                      int equal_nan) TOCHA_NOEXCEPT;
TOCHA_API int tocha_allclose(const tocha_tensor *a, const tocha_tensor *b, double rtol, double atol,
                             int equal_nan) TOCHA_NOEXCEPT;
/* x with NaN, +inf and -inf replaced; has_posinf / has_neginf zero: the dtype's largest / lowest
   finite value. A copy for integer and bool tensors; differentiable. */
TOCHA_API tocha_tensor *tocha_nan_to_num(const tocha_tensor *x, double nan, int has_posinf, double posinf,
                                         int has_neginf, double neginf) TOCHA_NOEXCEPT;

#endif
