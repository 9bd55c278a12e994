/* tocha_pointwise_math.h -- C ABI of PyTorch's pointwise functions beyond the generated op-table
 * entries: logit with eps, polygamma, float_power, signbit, ldexp, frexp and divide's rounding
 * modes. Included by tocha.h; see its conventions. */
#ifndef TOCHA_POINTWISE_MATH_ABI_H
#define TOCHA_POINTWISE_MATH_ABI_H

/* log(x / (1 - x)) of x clamped to [eps, 1 - eps] (has_eps == 0: not clamped); _out writes into out. */
TOCHA_API tocha_tensor *tocha_logit_eps(const tocha_tensor *x, int has_eps, double eps) TOCHA_NOEXCEPT;
/* The n-th derivative of digamma (n >= 0) of each element. */
TOCHA_API tocha_tensor *tocha_polygamma(int64_t n, const tocha_tensor *x) TOCHA_NOEXCEPT;
TOCHA_API int tocha_polygamma_out(tocha_tensor *out, int64_t n, const tocha_tensor *x) TOCHA_NOEXCEPT;
/* a ^ b in double (b or a may be a number: the _scalar and _rscalar forms); _out needs an f64 out. */
TOCHA_API tocha_tensor *tocha_float_power(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_float_power_scalar(const tocha_tensor *a, double b) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_float_power_rscalar(double a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API int tocha_float_power_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API int tocha_float_power_scalar_out(tocha_tensor *out, const tocha_tensor *a, double b) TOCHA_NOEXCEPT;
/* A ByteTensor mask of the elements whose sign bit is set. */
TOCHA_API tocha_tensor *tocha_signbit(const tocha_tensor *x) TOCHA_NOEXCEPT;
/* x * 2^e, e a tensor or a number. */
TOCHA_API tocha_tensor *tocha_ldexp(const tocha_tensor *x, const tocha_tensor *e) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_ldexp_scalar(const tocha_tensor *x, double e) TOCHA_NOEXCEPT;
/* Mantissa (|m| in [0.5, 1)) and IntTensor exponent with x == m * 2^e. */
TOCHA_API int tocha_frexp(const tocha_tensor *x, tocha_tensor **mantissa, tocha_tensor **exponent) TOCHA_NOEXCEPT;
/* a / b with mode "" (true division), "trunc" or "floor"; the number forms as for the binary ops. */
TOCHA_API tocha_tensor *tocha_divide(const tocha_tensor *a, const tocha_tensor *b, const char *mode) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_divide_scalar(const tocha_tensor *a, double b, const char *mode) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_divide_rscalar(double a, const tocha_tensor *b, const char *mode) TOCHA_NOEXCEPT;

#endif
