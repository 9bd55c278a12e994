// Reduction functors shared by the CPU and CUDA reduction kernels (DESIGN.md decision 3): sum,
// prod, mean, all/any, max/min (with or without the index), the p-norms, var/std (Welford with
// Chan's merge) and logsumexp. The CPU kernels add vectorized reduce_segment hooks on top
// (kernels/cpu/reduce_*.cpp); the protocol is Note [Reduction functors] in
// kernels/cpu/reduce_loops.h: identity, reduce(acc, x, i), combine(a, b), project(acc), kIndex.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include "core/dtype.h"
#include "core/half.h"

namespace tocha {
namespace reduce {

// Integer sums and products wrap around (two's complement, like PyTorch) instead of overflowing,
// which would be undefined behaviour for signed types.
template <class A> TOCHA_HD inline A wrap_add(A a, A b) {
  if constexpr (std::is_integral<A>::value && std::is_signed<A>::value) {
    using U = std::make_unsigned_t<A>;
    return A(U(a) + U(b));
  } else {
    return A(a + b);
  }
}
template <class A> TOCHA_HD inline A wrap_sub(A a, A b) {
  if constexpr (std::is_integral<A>::value && std::is_signed<A>::value) {
    using U = std::make_unsigned_t<A>;
    return A(U(a) - U(b));
  } else {
    return A(a - b);
  }
}
template <class A> TOCHA_HD inline A wrap_mul(A a, A b) {
  if constexpr (std::is_integral<A>::value && std::is_signed<A>::value) {
    using U = std::make_unsigned_t<A>;
    return A(U(a) * U(b));
  } else {
    return A(a * b);
  }
}

// Accumulator and result types of sums and products: f32 sums in double, f16/bf16 in float,
// integers and bools in int64 (and their results are int64).
template <class T> struct SumTypes {
  static constexpr bool kFloat = std::is_floating_point<opmath_t<T>>::value;
  using acc = std::conditional_t<kFloat, std::conditional_t<std::is_same<T, float>::value, double, opmath_t<T>>, int64_t>;
  using out = std::conditional_t<kFloat, T, int64_t>;
};

template <class R, class V> TOCHA_HD inline R cast_result(V v) {
  if constexpr (std::is_same<R, Half>::value || std::is_same<R, BFloat16>::value) return R(float(v));
  else return R(v);
}

// ---- sum, prod, mean, all, any ---------------------------------------------------------------
template <class T, class A> struct SumOp {
  using acc_t = A;
  static constexpr bool kIndex = false;
  TOCHA_HD A identity() const { return A(0); }
  TOCHA_HD A reduce(A a, T x, int64_t) const { return wrap_add(a, A(opmath_t<T>(x))); }
  TOCHA_HD A combine(A a, A b) const { return wrap_add(a, b); }
  TOCHA_HD A project(A a) const { return a; }
};

template <class T, class A> struct ProdOp {
  using acc_t = A;
  static constexpr bool kIndex = false;
  TOCHA_HD A identity() const { return A(1); }
  TOCHA_HD A reduce(A a, T x, int64_t) const { return wrap_mul(a, A(opmath_t<T>(x))); }
  TOCHA_HD A combine(A a, A b) const { return wrap_mul(a, b); }
  TOCHA_HD A project(A a) const { return a; }
};

// mean = sum / n (n = 0 gives NaN, like PyTorch).
template <class T, class A> struct MeanOp : SumOp<T, A> {
  A n;
  explicit MeanOp(int64_t count) : n(A(count)) {}
  TOCHA_HD A project(A a) const { return a / n; }
};

// all/any accumulate in uint8 (0/1) so the CPU lanes vectorize like integer sums.
template <class T, bool kAll> struct LogicalOp {
  using acc_t = uint8_t;
  static constexpr bool kIndex = false;
  TOCHA_HD uint8_t identity() const { return kAll ? 1 : 0; }
  TOCHA_HD uint8_t reduce(uint8_t a, T x, int64_t) const {
    uint8_t nz = opmath_t<T>(x) != opmath_t<T>(0);
    return kAll ? uint8_t(a & nz) : uint8_t(a | nz);
  }
  TOCHA_HD uint8_t combine(uint8_t a, uint8_t b) const { return kAll ? uint8_t(a & b) : uint8_t(a | b); }
  TOCHA_HD bool project(uint8_t a) const { return a != 0; }
};
// The result of all/any is a ByteTensor for a ByteTensor (Torch7's masks), else a BoolTensor.
template <class T> using LogicalResult = std::conditional_t<std::is_same<T, uint8_t>::value, uint8_t, bool>;

// ---- max, min ---------------------------------------------------------------------------------
// NaN propagates: a NaN beats every number, and the first NaN's index is returned (PyTorch).
template <class M> TOCHA_HD inline bool is_nan(M v) {
  if constexpr (std::is_floating_point<M>::value) return v != v;
  else return false;
}
// Whether v should replace cur: larger (smaller) or a NaN replacing a number.
template <bool kMax, class M> TOCHA_HD inline bool better(M v, M cur) {
  return (kMax ? v > cur : v < cur) || (is_nan(v) && !is_nan(cur));
}
template <class M, bool kMax> TOCHA_HD constexpr M worst() {
  if constexpr (std::numeric_limits<M>::has_infinity)
    return kMax ? -std::numeric_limits<M>::infinity() : std::numeric_limits<M>::infinity();
  else return kMax ? std::numeric_limits<M>::lowest() : std::numeric_limits<M>::max();
}

template <class T, bool kMax> struct MinMaxOp {
  using M = opmath_t<T>;
  using acc_t = M;
  static constexpr bool kIndex = false;
  TOCHA_HD M identity() const { return worst<M, kMax>(); }
  TOCHA_HD M reduce(M a, T x, int64_t) const {
    M v = M(x);
    return better<kMax>(v, a) ? v : a;
  }
  TOCHA_HD M combine(M a, M b) const { return better<kMax>(b, a) ? b : a; }
  TOCHA_HD M project(M a) const { return a; }
};

template <class M> struct ValueIndex {
  M v;
  int64_t i;  // -1: nothing seen yet
};
template <class T, bool kMax> struct ArgMinMaxOp {
  using M = opmath_t<T>;
  using acc_t = ValueIndex<M>;
  static constexpr bool kIndex = true;
  TOCHA_HD acc_t identity() const { return {M(0), -1}; }
  // Strictly better only: among equal values the first index stays.
  TOCHA_HD acc_t reduce(acc_t a, T x, int64_t i) const {
    M v = M(x);
    return (a.i < 0 || better<kMax>(v, a.v)) ? acc_t{v, i} : a;
  }
  TOCHA_HD acc_t combine(acc_t a, acc_t b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    if (better<kMax>(b.v, a.v)) return b;
    if (better<kMax>(a.v, b.v)) return a;
    return b.i < a.i ? b : a;  // equal values (or both NaN): the earlier index
  }
  TOCHA_HD M project(acc_t a) const { return a.v; }
};

// ---- p-norms ----------------------------------------------------------------------------------
template <class A> TOCHA_HD constexpr A infinity() { return std::numeric_limits<A>::infinity(); }

// The common shape of the p-norms: acc = fold(acc, |x|), result = finish(acc).
template <class T, class A, class Derived> struct NormBase {
  using acc_t = A;
  static constexpr bool kIndex = false;
  TOCHA_HD A identity() const { return A(0); }
  TOCHA_HD A reduce(A a, T x, int64_t) const {
    return static_cast<const Derived*>(this)->fold(a, std::abs(A(opmath_t<T>(x))));
  }
  TOCHA_HD A combine(A a, A b) const { return a + b; }
  TOCHA_HD A project(A a) const { return a; }
};
template <class T, class A> struct Norm0Op : NormBase<T, A, Norm0Op<T, A>> {
  TOCHA_HD A fold(A a, A v) const { return a + A(v != A(0)); }
};
template <class T, class A> struct Norm1Op : NormBase<T, A, Norm1Op<T, A>> {
  TOCHA_HD A fold(A a, A v) const { return a + v; }
};
template <class T, class A> struct Norm2Op : NormBase<T, A, Norm2Op<T, A>> {
  TOCHA_HD A fold(A a, A v) const { return a + v * v; }
  TOCHA_HD A project(A a) const { return std::sqrt(a); }
};
template <class T, class A> struct NormPOp : NormBase<T, A, NormPOp<T, A>> {
  A p;
  explicit NormPOp(A pp) : p(pp) {}
  TOCHA_HD A fold(A a, A v) const { return a + std::pow(v, p); }
  TOCHA_HD A project(A a) const { return std::pow(a, A(1) / p); }
};
// max |x| and min |x|; NaN wins (v != v) so it propagates.
template <class T, class A> struct NormInfOp : NormBase<T, A, NormInfOp<T, A>> {
  TOCHA_HD A fold(A a, A v) const { return (v > a || v != v) ? v : a; }
  TOCHA_HD A combine(A a, A b) const { return fold(a, b); }
};
template <class T, class A> struct NormNegInfOp : NormBase<T, A, NormNegInfOp<T, A>> {
  TOCHA_HD A identity() const { return infinity<A>(); }
  TOCHA_HD A fold(A a, A v) const { return (v < a || v != v) ? v : a; }
  TOCHA_HD A combine(A a, A b) const { return fold(a, b); }
};

// ---- var, std ---------------------------------------------------------------------------------
template <class A> struct Moments {
  A n, mean, m2;
};
// Welford: one pass, no catastrophic cancellation. The correction is 1 for unbiased estimates.
template <class T, class A, bool kSqrt> struct VarOp {
  using acc_t = Moments<A>;
  static constexpr bool kIndex = false;
  A correction;
  explicit VarOp(double c) : correction(A(c)) {}
  TOCHA_HD acc_t identity() const { return {A(0), A(0), A(0)}; }
  TOCHA_HD acc_t reduce(acc_t a, T x, int64_t) const {
    A v = A(opmath_t<T>(x));
    A n = a.n + A(1);
    A d = v - a.mean;
    A mean = a.mean + d / n;
    return {n, mean, a.m2 + d * (v - mean)};
  }
  TOCHA_HD acc_t combine(acc_t a, acc_t b) const {
    if (a.n == A(0)) return b;
    if (b.n == A(0)) return a;
    A n = a.n + b.n;
    A d = b.mean - a.mean;
    return {n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};
  }
  TOCHA_HD A project(acc_t a) const {
    A denom = a.n - correction;
    A v = denom > A(0) ? a.m2 / denom : std::numeric_limits<A>::quiet_NaN();
    return kSqrt ? std::sqrt(v) : v;
  }
};

// ---- logsumexp --------------------------------------------------------------------------------
// log(sum(exp(x))) as a running (max m, sum s of exp(x - m)); NaN sticks, -inf adds nothing.
template <class A> struct LseAcc {
  A m, s;
};
// exp runs in the input's compute type (float for f32: twice as fast as double, and exact enough
// for a float result); the sum accumulates in A.
template <class T, class A> struct LogSumExpOp {
  using acc_t = LseAcc<A>;
  using M = opmath_t<T>;
  static constexpr bool kIndex = false;
  static TOCHA_HD A expm(A d) { return A(std::exp(M(d))); }
  TOCHA_HD acc_t identity() const { return {-infinity<A>(), A(0)}; }
  TOCHA_HD acc_t reduce(acc_t a, T x, int64_t) const {
    A v = A(opmath_t<T>(x));
    if (a.m != a.m) return a;
    if (v != v) return {v, A(1)};
    if (v == a.m) return {a.m, a.s + A(1)};  // also +inf twice (inf - inf would be NaN)
    if (v < a.m) return v == -infinity<A>() ? a : acc_t{a.m, a.s + expm(v - a.m)};
    return {v, a.s * expm(a.m - v) + A(1)};
  }
  TOCHA_HD acc_t combine(acc_t a, acc_t b) const {
    if (a.m != a.m) return a;
    if (b.m != b.m) return b;
    if (a.s == A(0)) return b;
    if (b.s == A(0)) return a;
    if (a.m == b.m) return {a.m, a.s + b.s};
    if (a.m > b.m) return {a.m, a.s + b.s * expm(b.m - a.m)};
    return {b.m, b.s + a.s * expm(a.m - b.m)};
  }
  TOCHA_HD A project(acc_t a) const { return a.m + std::log(a.s); }
};

}  // namespace reduce
}  // namespace tocha
