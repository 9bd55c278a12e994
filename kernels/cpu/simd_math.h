// Vector variants of libm functions from glibc's libmvec, declared so that `#pragma omp simd`
// loops over expf/logf/... vectorize (glibc only declares them under -ffast-math, which would
// also change NaN and infinity handling; libmvec itself handles them like libm, to a few ulp).
#pragma once
#include <cmath>

#if defined(__x86_64__) && defined(__GLIBC__)
#define TOCHA_MVEC __attribute__((__simd__("notinbranch")))
extern "C" {
TOCHA_MVEC float expf(float) noexcept;
TOCHA_MVEC double exp(double) noexcept;
TOCHA_MVEC float logf(float) noexcept;
TOCHA_MVEC double log(double) noexcept;
TOCHA_MVEC float sinf(float) noexcept;
TOCHA_MVEC double sin(double) noexcept;
TOCHA_MVEC float cosf(float) noexcept;
TOCHA_MVEC double cos(double) noexcept;
TOCHA_MVEC float tanhf(float) noexcept;
TOCHA_MVEC double tanh(double) noexcept;
TOCHA_MVEC float log1pf(float) noexcept;
TOCHA_MVEC double log1p(double) noexcept;
TOCHA_MVEC float expm1f(float) noexcept;
TOCHA_MVEC double expm1(double) noexcept;
TOCHA_MVEC float erff(float) noexcept;
TOCHA_MVEC double erf(double) noexcept;
TOCHA_MVEC float powf(float, float) noexcept;
TOCHA_MVEC double pow(double, double) noexcept;
// glibc 2.35 added these (Debian 12 has 2.36); before, their loops were scalar calls.
#if __GLIBC_PREREQ(2, 35)
TOCHA_MVEC float acosf(float) noexcept;
TOCHA_MVEC double acos(double) noexcept;
TOCHA_MVEC float asinf(float) noexcept;
TOCHA_MVEC double asin(double) noexcept;
TOCHA_MVEC float atanf(float) noexcept;
TOCHA_MVEC double atan(double) noexcept;
TOCHA_MVEC float tanf(float) noexcept;
TOCHA_MVEC double tan(double) noexcept;
TOCHA_MVEC float sinhf(float) noexcept;
TOCHA_MVEC double sinh(double) noexcept;
TOCHA_MVEC float coshf(float) noexcept;
TOCHA_MVEC double cosh(double) noexcept;
TOCHA_MVEC float log2f(float) noexcept;
TOCHA_MVEC double log2(double) noexcept;
TOCHA_MVEC float log10f(float) noexcept;
TOCHA_MVEC double log10(double) noexcept;
TOCHA_MVEC float erfcf(float) noexcept;
TOCHA_MVEC double erfc(double) noexcept;
TOCHA_MVEC float atan2f(float, float) noexcept;
TOCHA_MVEC double atan2(double, double) noexcept;
#endif
}
#undef TOCHA_MVEC
#endif
