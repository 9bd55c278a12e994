// Scalar functors of the pointwise ops PyTorch added to Torch7's set (inverse hyperbolics, Bessel
// functions, logaddexp, fmax, the bitwise and integer ops...): the continuation of scalar_ops.h,
// which includes this file, with the same conventions (<op>_op, shared by the CPU and CUDA kernels).
#pragma once
#include "kernels/scalar_ops.h"

namespace tocha {
namespace scalar {

constexpr double kPi = 3.14159265358979323846;

// ---- unary, float-valued ------------------------------------------------------------------------
struct acosh_op { template <class T> TOCHA_HD T operator()(T x) const { return std::acosh(x); } };
struct asinh_op { template <class T> TOCHA_HD T operator()(T x) const { return std::asinh(x); } };
struct atanh_op { template <class T> TOCHA_HD T operator()(T x) const { return std::atanh(x); } };
struct exp2_op { template <class T> TOCHA_HD T operator()(T x) const { return std::exp2(x); } };
// PyTorch's formula: pi is rounded to T first, so f32 sinc(1) is -2.8e-8 rather than 0.
struct sinc_op {
  template <class T> TOCHA_HD T operator()(T x) const {
    if (x == T(0)) return T(1);
    T px = T(kPi) * x;
    return std::sin(px) / px;
  }
};
struct deg2rad_op { template <class T> TOCHA_HD T operator()(T x) const { return x * T(kPi / 180); } };
struct rad2deg_op { template <class T> TOCHA_HD T operator()(T x) const { return x * T(180 / kPi); } };
struct logit_op { template <class T> TOCHA_HD T operator()(T x) const { return std::log(x / (T(1) - x)); } };

// Note [Bessel functions]: I0 and I1 (optionally scaled by e^-|x|) in double: the power series
// up to |x| = 30 (positive terms, so no cancellation; at most ~70 terms), the asymptotic expansion
// e^x / sqrt(2 pi x) * sum_k (-1)^k a_k(nu) / x^k beyond (its terms shrink below 1e-17 well
// before they start to grow). The unscaled value is formed as e^(x/2) * (... * e^(x/2)) so that
// it overflows where I0 does (x ~ 713.99), not where e^x does.
TOCHA_HD inline double bessel_i(int nu, double x, bool scaled) {
  double ax = std::fabs(x), r;
  if (ax != ax) return x;
  if (ax == std::numeric_limits<double>::infinity()) {
    r = scaled ? 0.0 : ax;
  } else if (ax <= 30) {
    double q = ax * ax / 4, term = nu ? ax / 2 : 1.0, sum = term;
    for (int k = 1; k < 200; ++k) {
      term *= q / (double(k) * double(k + nu));
      sum += term;
      if (term <= sum * 1e-17) break;
    }
    r = scaled ? sum * std::exp(-ax) : sum;
  } else {
    double mu = 4.0 * nu * nu, term = 1, sum = 1;
    for (int k = 1; k <= 40; ++k) {
      double odd = 2.0 * k - 1;
      term *= -(mu - odd * odd) / (8.0 * k * ax);
      sum += term;
      if (std::fabs(term) <= 1e-17 * std::fabs(sum)) break;
    }
    double s = sum / std::sqrt(2 * kPi * ax);
    if (scaled) r = s;
    else { double h = std::exp(ax / 2); r = h * (s * h); }
  }
  return (nu == 1 && x < 0) ? -r : r;
}
struct i0_op { template <class T> TOCHA_HD T operator()(T x) const { return T(bessel_i(0, double(x), false)); } };
struct i0e_op { template <class T> TOCHA_HD T operator()(T x) const { return T(bessel_i(0, double(x), true)); } };
struct i1_op { template <class T> TOCHA_HD T operator()(T x) const { return T(bessel_i(1, double(x), false)); } };
struct i1e_op { template <class T> TOCHA_HD T operator()(T x) const { return T(bessel_i(1, double(x), true)); } };

// Hurwitz zeta(s, q) = sum_k (q + k)^-s for s > 1 (Cephes' zeta, as PyTorch): the first terms
// summed directly (so q < 0 works for integer s), the tail by Euler-Maclaurin with the Bernoulli
// coefficients (2j)! / B_2j. The direct sum runs up to q + k > 9, so q below -1e6 (where the
// fractional part has lost most digits anyway) gives NaN rather than a loop of -q terms.
TOCHA_HD inline double hurwitz_zeta(double s, double q) {
  const double kInf = std::numeric_limits<double>::infinity();
  if (q <= 0 && q == std::floor(q)) return kInf;
  if (q == kInf) return 0;
  if (q < -1e6) return std::numeric_limits<double>::quiet_NaN();
  const double eps = 1.11022302462515654042e-16;
  const double A[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1892437580.3183792,
                        74724249600.0, -2950130727918.164, 116467828143500.67, -4597978722407473.0,
                        1.8152105401943546e+17, -7.166165256175667e+18};
  double sum = std::pow(q, -s), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    ++i;
    a += 1.0;
    b = std::pow(a, -s);
    sum += b;
    if (std::fabs(b / sum) < eps) return sum;
    if (a != a) return a;
  }
  double w = a, fa = 1, k = 0;
  sum += b * w / (s - 1);
  sum -= 0.5 * b;
  for (int j = 0; j < 12; ++j) {
    fa *= s + k;
    b /= w;
    double t = fa * b / A[j];
    sum += t;
    if (std::fabs(t / sum) < eps) break;
    k += 1;
    fa *= s + k;
    b /= w;
    k += 1;
  }
  return sum;
}
// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x); n = 0 and 1 are digamma and trigamma.
struct polygamma_op {
  int n;
  explicit polygamma_op(const double* p) : n(int(p[0])) {}
  template <class T> TOCHA_HD T operator()(T x) const {
    if (n == 0) return digamma_op()(x);
    if (n == 1) return trigamma_op()(x);
    double fact = 1;  // n! (inf from n = 171 on: stop there rather than loop up to n)
    for (int i = 2; i <= n && fact <= std::numeric_limits<double>::max(); ++i) fact *= i;
    return T((n % 2 ? 1.0 : -1.0) * fact * hurwitz_zeta(n + 1.0, double(x)));
  }
};

// ---- binary, float-valued -------------------------------------------------------------------------
struct hypot_op { template <class T> TOCHA_HD T operator()(T a, T b) const { return std::hypot(a, b); } };
// PyTorch's xlogy: NaN y gives NaN even where x == 0; otherwise x == 0 gives 0 (even for y == 0).
struct xlogy_op {
  template <class T> TOCHA_HD T operator()(T x, T y) const {
    if (y != y) return y;
    if (x == T(0)) return T(0);
    return x * std::log(y);
  }
};
// max + log1p(e^-|a-b|): never overflows; equal infinities (where a - b is NaN) give themselves.
struct logaddexp_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if (a == b && std::isinf(a)) return a;
    T m = a > b ? a : b;
    return m + std::log1p(std::exp(-std::fabs(a - b)));
  }
};
struct logaddexp2_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if (a == b && std::isinf(a)) return a;
    T m = a > b ? a : b;
    return m + std::log1p(std::exp2(-std::fabs(a - b))) * T(1.4426950408889634);  // / ln 2
  }
};
struct copysign_op { template <class T> TOCHA_HD T operator()(T a, T b) const { return std::copysign(a, b); } };
// The front-end allows f32 and f64 only: f16/bf16 compute in float, where the next float is
// the same half again.
struct nextafter_op { template <class T> TOCHA_HD T operator()(T a, T b) const { return std::nextafter(a, b); } };

// ---- binary, all numeric dtypes -------------------------------------------------------------------
// NaN-ignoring extrema (C's fmax/fmin): a NaN operand gives the other one; NaN only if both are.
struct fmax_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) { if (a != a) return b; if (b != b) return a; }
    return a > b ? a : b;
  }
};
struct fmin_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) { if (a != a) return b; if (b != b) return a; }
    return a < b ? a : b;
  }
};
// PyTorch's heaviside: a NaN x gives 0 (it is neither 0 nor > 0).
struct heaviside_op {
  template <class T> TOCHA_HD T operator()(T x, T v) const { return x == T(0) ? v : T(x > T(0) ? 1 : 0); }
};

// ---- integer and bool ------------------------------------------------------------------------------
// Bool operands are 0/1 (and/or/xor/not are the logical ones); the front-end refuses bool for the
// shifts, gcd and lcm, whose bool kernels only exist because the family registers bool.
struct bitwiseNot_op {
  template <class T> TOCHA_HD T operator()(T x) const {
    if constexpr (std::is_same<T, bool>::value) return !x;
    else return T(~x);
  }
};
struct bitwiseAnd_op { template <class T> TOCHA_HD T operator()(T a, T b) const { return T(a & b); } };
struct bitwiseOr_op { template <class T> TOCHA_HD T operator()(T a, T b) const { return T(a | b); } };
struct bitwiseXor_op { template <class T> TOCHA_HD T operator()(T a, T b) const { return T(a ^ b); } };
// Note [Shift amounts]: C++ leaves shifts by a negative amount or by the width or more undefined
// (x86 takes the amount modulo the width: PyTorch 1.13 gives 1 << 64 == 1). Here they are defined
// as the infinite-precision shift would give them, as PyTorch 2 does: 0 for left shifts, 0 or -1
// (the sign) for right shifts. Left shifts wrap (Note [Integer wraparound]).
template <class T> TOCHA_HD inline bool shift_out_of_range(T b) {
  constexpr int bits = int(sizeof(T) * 8);
  if constexpr (std::is_signed<T>::value) return b < T(0) || int64_t(b) >= bits;
  else return int64_t(b) >= bits;
}
struct bitwiseLeftShift_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value) return a;
    else {
      if (shift_out_of_range(b)) return T(0);
      return T(wrap_t<T>(a) << int(b));
    }
  }
};
struct bitwiseRightShift_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value) return a;
    else {
      if (shift_out_of_range(b)) {
        if constexpr (std::is_signed<T>::value) return a < T(0) ? T(-1) : T(0);
        else return T(0);
      }
      return T(a >> int(b));
    }
  }
};
// Euclid on the magnitudes |a|, |b| as unsigned integers, converted back (PyTorch's values:
// gcd(INT64_MIN, 0) is INT64_MIN, as |INT64_MIN| wraps). Signed remainders of INT64_MIN gave
// gcd(INT64_MIN, INT64_MAX) = -1, and lcm's INT64_MIN / -1 raised SIGFPE (the fuzz suite).
template <class T> TOCHA_HD inline wrap_t<T> magnitude(T x) {
  if constexpr (std::is_signed<T>::value) return x < T(0) ? wrap_t<T>(0) - wrap_t<T>(x) : wrap_t<T>(x);
  else return wrap_t<T>(x);
}
template <class U> TOCHA_HD inline U euclid(U a, U b) {
  while (a != U(0)) {
    U c = a;
    a = U(b % a);
    b = c;
  }
  return b;
}
struct gcd_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value) return a || b;
    else return T(euclid(magnitude(a), magnitude(b)));
  }
};
// |a| / gcd * |b| in wrapping unsigned arithmetic, then |.| of it as T (PyTorch's abs(a / g * b)).
struct lcm_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value) return a && b;
    else {
      using U = wrap_t<T>;
      U ua = magnitude(a), ub = magnitude(b), g = euclid(ua, ub);
      if (g == U(0)) return T(0);
      return abs_op()(T(U(ua / g * ub)));
    }
  }
};

}  // namespace scalar
}  // namespace tocha
