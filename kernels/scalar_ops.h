// Scalar functors of the pointwise ops: one definition shared by the CPU and CUDA kernels
// (DESIGN.md decision 3). Each functor is named <op>_op after its line in core/ops.def and works
// on the op's compute type (float for f16/bf16, see Note [Reduced-precision math]).
// Functors that take parameters are constructed from the PointwiseIter's params array.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include "core/dtype.h"
#include "core/half.h"

namespace tocha {
namespace scalar {

template <class T> constexpr bool is_float_v = std::is_floating_point<T>::value;

// Value conversion between element types (copy and casts): f16/bf16 through float, anything to
// bool as != 0.
template <class R, class T> TOCHA_HD inline R convert(T x) {
  if constexpr (std::is_same<R, bool>::value) return opmath_t<T>(x) != opmath_t<T>(0);
  else if constexpr (std::is_same<R, Half>::value || std::is_same<R, BFloat16>::value) return R(float(x));
  else return R(opmath_t<T>(x));
}

// Note [Integer wraparound]: integer arithmetic wraps modulo 2^bits, as in PyTorch and NumPy
// (abs(INT64_MIN) is INT64_MIN, INT32_MAX + 1 is INT32_MIN). Signed overflow is undefined
// behaviour in C++ (UBSan reports it, and the optimizer may assume it never happens), so the
// signed integer cases compute in the unsigned type of at least int's width, where wrapping is
// defined, and convert back (modular since C++20, and on every compiler we build with).
template <class T> constexpr bool wraps_v = std::is_integral<T>::value && !std::is_same<T, bool>::value;
template <class T>
using wrap_t = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <class T> TOCHA_HD inline T wrap_neg(T x) {
  if constexpr (wraps_v<T>) return T(wrap_t<T>(0) - wrap_t<T>(x));
  else return T(-x);
}
template <class T> TOCHA_HD inline T wrap_add(T a, T b) {
  if constexpr (wraps_v<T>) return T(wrap_t<T>(a) + wrap_t<T>(b));
  else return T(a + b);
}
template <class T> TOCHA_HD inline T wrap_sub(T a, T b) {
  if constexpr (wraps_v<T>) return T(wrap_t<T>(a) - wrap_t<T>(b));
  else return T(a - b);
}
template <class T> TOCHA_HD inline T wrap_mul(T a, T b) {
  if constexpr (wraps_v<T>) return T(wrap_t<T>(a) * wrap_t<T>(b));
  else return T(a * b);
}

// ---- unary, same dtype -------------------------------------------------------------------
struct neg_op { template <class T> TOCHA_HD T operator()(T x) const { return wrap_neg(x); } };
struct abs_op {
  template <class T> TOCHA_HD T operator()(T x) const {
    if constexpr (std::is_unsigned<T>::value) return x;
    else return x < T(0) ? wrap_neg(x) : x;
  }
};
struct sign_op {
  template <class T> TOCHA_HD T operator()(T x) const {
    // Selects rather than an early return for NaN, so the loops vectorize (sign runs in every
    // ReLU backward); NaN falls through to x itself.
    if constexpr (is_float_v<T>) return x > T(0) ? T(1) : (x < T(0) ? T(-1) : (x == x ? T(0) : x));
    else if constexpr (std::is_unsigned<T>::value) return T(x != T(0));  // no pointless x < 0 (nvcc warns)
    else return T((T(0) < x) - (x < T(0)));
  }
};
struct floor_op { template <class T> TOCHA_HD T operator()(T x) const { if constexpr (is_float_v<T>) return std::floor(x); else return x; } };
struct ceil_op { template <class T> TOCHA_HD T operator()(T x) const { if constexpr (is_float_v<T>) return std::ceil(x); else return x; } };
// Torch7 rounds halves away from zero (C round), unlike PyTorch's round-half-even.
struct round_op { template <class T> TOCHA_HD T operator()(T x) const { if constexpr (is_float_v<T>) return std::round(x); else return x; } };
struct trunc_op { template <class T> TOCHA_HD T operator()(T x) const { if constexpr (is_float_v<T>) return std::trunc(x); else return x; } };
struct frac_op { template <class T> TOCHA_HD T operator()(T x) const { if constexpr (is_float_v<T>) return x - std::trunc(x); else return T(0); } };
struct square_op { template <class T> TOCHA_HD T operator()(T x) const { return wrap_mul(x, x); } };
struct relu_op { template <class T> TOCHA_HD T operator()(T x) const { return x > T(0) ? x : T(0); } };

// ---- unary, float-valued (T is float or double) --------------------------------------------
struct exp_op { template <class T> TOCHA_HD T operator()(T x) const { return std::exp(x); } };
struct expm1_op { template <class T> TOCHA_HD T operator()(T x) const { return std::expm1(x); } };
struct log_op { template <class T> TOCHA_HD T operator()(T x) const { return std::log(x); } };
struct log1p_op { template <class T> TOCHA_HD T operator()(T x) const { return std::log1p(x); } };
struct log2_op { template <class T> TOCHA_HD T operator()(T x) const { return std::log2(x); } };
struct log10_op { template <class T> TOCHA_HD T operator()(T x) const { return std::log10(x); } };
struct sqrt_op { template <class T> TOCHA_HD T operator()(T x) const { return std::sqrt(x); } };
struct rsqrt_op { template <class T> TOCHA_HD T operator()(T x) const { return T(1) / std::sqrt(x); } };
struct cinv_op { template <class T> TOCHA_HD T operator()(T x) const { return T(1) / x; } };
struct sin_op { template <class T> TOCHA_HD T operator()(T x) const { return std::sin(x); } };
struct cos_op { template <class T> TOCHA_HD T operator()(T x) const { return std::cos(x); } };
struct tan_op { template <class T> TOCHA_HD T operator()(T x) const { return std::tan(x); } };
struct asin_op { template <class T> TOCHA_HD T operator()(T x) const { return std::asin(x); } };
struct acos_op { template <class T> TOCHA_HD T operator()(T x) const { return std::acos(x); } };
struct atan_op { template <class T> TOCHA_HD T operator()(T x) const { return std::atan(x); } };
struct sinh_op { template <class T> TOCHA_HD T operator()(T x) const { return std::sinh(x); } };
struct cosh_op { template <class T> TOCHA_HD T operator()(T x) const { return std::cosh(x); } };
struct tanh_op { template <class T> TOCHA_HD T operator()(T x) const { return std::tanh(x); } };
// Written so that neither branch overflows: exp of a non-positive number only.
struct sigmoid_op {
  template <class T> TOCHA_HD T operator()(T x) const {
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    T e = std::exp(x);
    return e / (T(1) + e);
  }
};
struct erf_op { template <class T> TOCHA_HD T operator()(T x) const { return std::erf(x); } };
struct erfc_op { template <class T> TOCHA_HD T operator()(T x) const { return std::erfc(x); } };
// Inverse error function: Giles' single-precision approximation, refined by Newton steps
// (exact to a few ulp in double).
struct erfinv_op {
  template <class T> TOCHA_HD T operator()(T y) const {
    if (y <= T(-1)) return y == T(-1) ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::quiet_NaN();
    if (y >= T(1)) return y == T(1) ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::quiet_NaN();
    double x = double(y), w = -std::log((1.0 - x) * (1.0 + x)), p;
    if (w < 5.0) {
      w -= 2.5;
      p = 2.81022636e-08; p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w;
      p = -4.39150654e-06 + p * w; p = 0.00021858087 + p * w; p = -0.00125372503 + p * w;
      p = -0.00417768164 + p * w; p = 0.246640727 + p * w; p = 1.50140941 + p * w;
    } else {
      w = std::sqrt(w) - 3.0;
      p = -0.000200214257; p = 0.000100950558 + p * w; p = 0.00134934322 + p * w;
      p = -0.00367342844 + p * w; p = 0.00573950773 + p * w; p = -0.0076224613 + p * w;
      p = 0.00943887047 + p * w; p = 1.00167406 + p * w; p = 2.83297682 + p * w;
    }
    double r = p * x;
    if (std::fabs(x) < 0.5) {
      for (int i = 0; i < 2; ++i)  // Newton on erf(r) - x, erf'(r) = 2/sqrt(pi) exp(-r^2)
        r -= (std::erf(r) - x) / (1.1283791670955126 * std::exp(-r * r));
      return T(r);
    }
    // Near +-1, erf(r) - x keeps only 1e-16 absolute digits (erfinv(1 - 2e-12) was 4.97408 for
    // 4.97413), and the single-precision start is far off (5.29 for 5.676 at x = -1 + 1e-15), where
    // Newton on erfc itself crawls. Newton on log erfc(s) = log t, t = 1 - |x| (exact for |x| >= 0.5),
    // s = |r|: relative digits and about 4 steps from that start.
    const double t = 1.0 - std::fabs(x), log_t = std::log(t);
    double s = std::fabs(r);
    for (int i = 0; i < 8; ++i) {
      double e = std::erfc(s);
      double step = (std::log(e) - log_t) * e / (-1.1283791670955126 * std::exp(-s * s));
      s -= step;
      if (std::fabs(step) <= 1e-15 * s) break;
    }
    r = x < 0 ? -s : s;
    return T(r);
  }
};
struct lgamma_op { template <class T> TOCHA_HD T operator()(T x) const { return std::lgamma(x); } };
// Digamma by recurrence up to x >= 10, then the asymptotic series to x^-14; reflection for x < 0.
// (Up to x >= 6 with the series to x^-10 left ~1e-11 absolute: the next term, 691/32760 x^-12, at 6.)
struct digamma_op {
  template <class T> TOCHA_HD T operator()(T xin) const {
    double x = double(xin), result = 0;
    if (x == 0) return T(std::copysign(std::numeric_limits<double>::infinity(), -x));
    if (x < 0) {
      if (x == std::floor(x)) return std::numeric_limits<T>::quiet_NaN();
      const double pi = 3.14159265358979323846;
      result = -pi / std::tan(pi * x);
      x = 1 - x;
    }
    while (x < 10) { result -= 1 / x; x += 1; }
    double f = 1 / (x * x);
    double t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132 +
               f * (691.0 / 32760 + f * (-1.0 / 12)))))));
    return T(result + std::log(x) - 0.5 / x + t);
  }
};
// Trigamma (the derivative of digamma) by recurrence up to x >= 10, then the asymptotic series to
// x^-15 (up to 6 and x^-9 left ~1e-10); reflection for x < 0.
struct trigamma_op {
  template <class T> TOCHA_HD T operator()(T xin) const {
    double x = double(xin), result = 0;
    const double pi = 3.14159265358979323846;
    if (x == -std::numeric_limits<double>::infinity()) return std::numeric_limits<T>::quiet_NaN();  // PyTorch's
    if (x <= 0 && x == std::floor(x)) return std::numeric_limits<T>::infinity();
    if (x < 0) {
      double s = std::sin(pi * x);
      return T(pi * pi / (s * s) - trigamma_op()(T(1 - x)));
    }
    while (x < 10) { result += 1 / (x * x); x += 1; }
    double f = 1 / (x * x);
    double t = 1 / x + f / 2 + f / x * (1.0 / 6 + f * (-1.0 / 30 + f * (1.0 / 42 + f * (-1.0 / 30 +
               f * (5.0 / 66 + f * (-691.0 / 2730 + f * (7.0 / 6)))))));
    return T(result + t);
  }
};

// ---- binary ----------------------------------------------------------------------------------
struct add_op {
  double alpha;
  explicit add_op(const double* p) : alpha(p[0]) {}
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value) return a || b;
    else return wrap_add(a, wrap_mul(T(alpha), b));
  }
};
struct csub_op {
  double alpha;
  explicit csub_op(const double* p) : alpha(p[0]) {}
  template <class T> TOCHA_HD T operator()(T a, T b) const { return wrap_sub(a, wrap_mul(T(alpha), b)); }
};
struct mul_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (std::is_same<T, bool>::value) return a && b;
    else return wrap_mul(a, b);
  }
};
struct div_op { template <class T> TOCHA_HD T operator()(T a, T b) const { return a / b; } };
struct pow_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      return std::pow(a, b);
    } else {
      if constexpr (std::is_signed<T>::value) {
        if (b < T(0)) {  // integer powers with negative exponents: only 1 and -1 survive
          if (a == T(1)) return T(1);
          if (a == T(-1)) return (b & 1) ? T(-1) : T(1);
          return T(0);
        }
      }
      T r = T(1);
      using U = typename std::make_unsigned<T>::type;
      U e = U(b);
      T base = a;
      while (e) { if (e & 1) r = wrap_mul(r, base); base = wrap_mul(base, base); e >>= 1; }
      return r;
    }
  }
};
struct atan2_op { template <class T> TOCHA_HD T operator()(T a, T b) const { return std::atan2(a, b); } };
// Integer division by zero returns 0 in the kernel (the front-end reports it before running);
// x / -1 is written as a negation so INT_MIN / -1 cannot trap.
struct fmod_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) return std::fmod(a, b);
    else {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed<T>::value) if (b == T(-1)) return T(0);
      return T(a % b);
    }
  }
};
struct remainder_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      T r = std::fmod(a, b);
      return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? T(r + b) : r;
    } else {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed<T>::value) if (b == T(-1)) return T(0);
      T r = T(a % b);
      if constexpr (std::is_signed<T>::value) if (r != 0 && ((r < 0) != (b < 0))) r = wrap_add(r, b);
      return r;
    }
  }
};
// NaN propagates through cmax/cmin (PyTorch's maximum/minimum).
struct cmax_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) { if (a != a) return a; if (b != b) return b; }
    return a > b ? a : b;
  }
};
struct cmin_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) { if (a != a) return a; if (b != b) return b; }
    return a < b ? a : b;
  }
};
// reluBackward(g, y): g where y > 0, else 0; a NaN y passes g through (PyTorch's threshold_backward).
struct reluBackward_op {
  template <class T> TOCHA_HD T operator()(T g, T y) const { return y <= T(0) ? T(0) : g; }
};
// Note [Floor division of floats]: Python's (and PyTorch's) a // b, from the exact remainder
// fmod(a, b) rather than floor(a / b), whose rounded quotient can land on the next integer:
// 5 // 0.1 is 49 (0.1 is a little above 1/10), where floor(5 / 0.1) = floor(50.0) gave 50. The
// quotient is rounded to the nearest integer when (a - mod) / b rounds just below it; 0 keeps the
// sign of a / b; division by 0 is a / b (inf or NaN).
struct floorDivide_op {
  template <class T> TOCHA_HD T operator()(T a, T b) const {
    if constexpr (is_float_v<T>) {
      if (b == T(0)) return a / b;
      const T mod = std::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
      if (div == T(0)) return std::copysign(T(0), a / b);
      T q = std::floor(div);
      if (div - q > T(0.5)) q += T(1);
      return q;
    }
    else {
      if (b == T(0)) return T(0);
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return wrap_neg(a);
        T q = T(a / b);
        if ((a % b != 0) && ((a < 0) != (b < 0))) q = wrap_sub(q, T(1));
        return q;
      } else {
        return T(a / b);
      }
    }
  }
};

// ---- comparisons (result 0/1) ----------------------------------------------------------------
struct lt_op { template <class T> TOCHA_HD bool operator()(T a, T b) const { return a < b; } };
struct le_op { template <class T> TOCHA_HD bool operator()(T a, T b) const { return a <= b; } };
struct gt_op { template <class T> TOCHA_HD bool operator()(T a, T b) const { return a > b; } };
struct ge_op { template <class T> TOCHA_HD bool operator()(T a, T b) const { return a >= b; } };
struct eq_op { template <class T> TOCHA_HD bool operator()(T a, T b) const { return a == b; } };
struct ne_op { template <class T> TOCHA_HD bool operator()(T a, T b) const { return a != b; } };

// ---- other pointwise -------------------------------------------------------------------------
// params: lo, hi, and a bit mask of which bounds are present (1 = lo, 2 = hi).
struct clamp_op {
  double lo, hi;
  int which;
  // The bounds as floats and doubles, +-inf where absent: computed once, so the float loops are
  // two selects per element (the compiler kept `which` tests and conversions inside the loop).
  float lo_f, hi_f;
  double lo_d, hi_d;
  explicit clamp_op(const double* p)
      : lo(p[0]), hi(p[1]), which(int(p[2])), lo_f((which & 1) ? float(lo) : -INFINITY),
        hi_f((which & 2) ? float(hi) : INFINITY), lo_d((which & 1) ? lo : -double(INFINITY)),
        hi_d((which & 2) ? hi : double(INFINITY)) {}
  template <class T> TOCHA_HD T operator()(T x) const {
    if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
      // Selects on the element type, not branches: with data clipped at random the branches
      // mispredicted (256x256 f32: 428 us against 90 unclipped). A NaN fails both compares and
      // passes through. Comparing x with T(lo) decides as comparing double(x) with lo does: no
      // value of T lies strictly between lo and its rounding T(lo).
      const T l = std::is_same<T, float>::value ? T(lo_f) : T(lo_d);
      const T h = std::is_same<T, float>::value ? T(hi_f) : T(hi_d);
      const T r = x < l ? l : x;
      return r > h ? h : r;
    } else {
      if constexpr (is_float_v<T>) if (x != x) return x;
      if ((which & 1) && double(x) < lo) return T(lo);
      if ((which & 2) && double(x) > hi) return T(hi);
      return x;
    }
  }
};
struct addcmul_op {
  double value;
  explicit addcmul_op(const double* p) : value(p[0]) {}
  template <class T> TOCHA_HD T operator()(T a, T b, T c) const { return wrap_add(a, wrap_mul(wrap_mul(T(value), b), c)); }
};
struct addcdiv_op {
  double value;
  explicit addcdiv_op(const double* p) : value(p[0]) {}
  template <class T> TOCHA_HD T operator()(T a, T b, T c) const { return T(a + T(value) * b / c); }
};
// lerp with a tensor weight (three inputs).
struct lerp_op { template <class T> TOCHA_HD T operator()(T a, T b, T w) const { return T(a + w * (b - a)); } };

}  // namespace scalar
}  // namespace tocha

// The ops PyTorch added (kept apart so that neither file passes 500 lines).
#include "kernels/scalar_ops_math.h"
