// CPU kernels of the floating reductions: norm (p = 0, 1, 2, inf, -inf or any p), var and std
// (Welford's algorithm, merged with Chan's formula), logsumexp (online, one pass). The front-end
// converts integer inputs to a float dtype first. Functors follow Note [Reduction functors].
#include <cmath>
#include <limits>
#include "core/kernel_registry.h"
#include "kernels/cpu/reduce_loops.h"
#include "kernels/cpu/simd_math.h"

namespace tocha {
namespace cpu {
namespace {

template <class A> constexpr A kInf = std::numeric_limits<A>::infinity();

// The common shape of the p-norms: acc = fold(acc, |x|), result = finish(acc).
template <class T, class A, class Derived> struct NormBase {
  using acc_t = A;
  static constexpr bool kIndex = false;
  A identity() const { return A(0); }
  A reduce(A a, T x, int64_t) const { return static_cast<const Derived*>(this)->fold(a, std::abs(A(opmath_t<T>(x)))); }
  A combine(A a, A b) const { return a + b; }
  A project(A a) const { return a; }
};
template <class T, class A> struct Norm0Op : NormBase<T, A, Norm0Op<T, A>> {
  A fold(A a, A v) const { return a + A(v != A(0)); }
};
// The 1- and 2-norms of a contiguous run: wide_sum's lanes in the SIMD clones (Note [Wide sum
// lanes]); reduce_contiguous's generic lanes ran 256-long rows at 1.6x PyTorch's time.
struct AbsMap {
  template <class A> A operator()(A v) const { return std::abs(v); }
};
struct SquareMap {
  template <class A> A operator()(A v) const { return v * v; }
};
template <class T, class A> struct Norm1Op : NormBase<T, A, Norm1Op<T, A>> {
  A fold(A a, A v) const { return a + v; }
  A reduce_segment(const T* p, int64_t n, int64_t) const { return wide_sum<A>(p, n, AbsMap{}); }
};
template <class T, class A> struct Norm2Op : NormBase<T, A, Norm2Op<T, A>> {
  A fold(A a, A v) const { return a + v * v; }
  A reduce_segment(const T* p, int64_t n, int64_t) const { return wide_sum<A>(p, n, SquareMap{}); }
  A project(A a) const { return std::sqrt(a); }
};
template <class T, class A> struct NormPOp : NormBase<T, A, NormPOp<T, A>> {
  A p;
  explicit NormPOp(A pp) : p(pp) {}
  A fold(A a, A v) const { return a + std::pow(v, p); }
  A project(A a) const { return std::pow(a, A(1) / p); }
};
// max |x| and min |x|; NaN wins (v != v) so it propagates.
template <class T, class A> struct NormInfOp : NormBase<T, A, NormInfOp<T, A>> {
  A fold(A a, A v) const { return (v > a || v != v) ? v : a; }
  A combine(A a, A b) const { return fold(a, b); }
};
template <class T, class A> struct NormNegInfOp : NormBase<T, A, NormNegInfOp<T, A>> {
  A identity() const { return kInf<A>; }
  A fold(A a, A v) const { return (v < a || v != v) ? v : a; }
  A combine(A a, A b) const { return fold(a, b); }
};

template <class T> void norm_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  const double p = it.params[0];
  if (p == 2) reduce_kernel<Norm2Op<T, A>, T, T>(it, Norm2Op<T, A>{});
  else if (p == 1) reduce_kernel<Norm1Op<T, A>, T, T>(it, Norm1Op<T, A>{});
  else if (p == 0) reduce_kernel<Norm0Op<T, A>, T, T>(it, Norm0Op<T, A>{});
  else if (p == kInf<double>) reduce_kernel<NormInfOp<T, A>, T, T>(it, NormInfOp<T, A>{});
  else if (p == -kInf<double>) reduce_kernel<NormNegInfOp<T, A>, T, T>(it, NormNegInfOp<T, A>{});
  else reduce_kernel<NormPOp<T, A>, T, T>(it, NormPOp<T, A>(A(p)));
}

template <class A> struct Moments {
  A n, mean, m2;
};
// Welford: one pass, no catastrophic cancellation. params[0] is the correction (1: unbiased).
template <class T, class A, bool kSqrt> struct VarOp {
  using acc_t = Moments<A>;
  static constexpr bool kIndex = false;
  A correction;
  explicit VarOp(double c) : correction(A(c)) {}
  acc_t identity() const { return {A(0), A(0), A(0)}; }
  acc_t reduce(acc_t a, T x, int64_t) const {
    A v = A(opmath_t<T>(x));
    A n = a.n + A(1);
    A d = v - a.mean;
    A mean = a.mean + d / n;
    return {n, mean, a.m2 + d * (v - mean)};
  }
  // A contiguous run in two vectorized passes: the mean, then the squared deviations from it.
  acc_t reduce_segment(const T* p, int64_t n, int64_t) const {
    if (n == 0) return identity();
    auto plus = [](A a, A b) { return a + b; };
    A mean = lane_fold<A>(p, n, A(0), [](A v) { return v; }, plus) / A(n);
    A m2 = lane_fold<A>(p, n, A(0), [mean](A v) { return (v - mean) * (v - mean); }, plus);
    return {A(n), mean, m2};
  }
  acc_t combine(acc_t a, acc_t b) const {
    if (a.n == A(0)) return b;
    if (b.n == A(0)) return a;
    A n = a.n + b.n;
    A d = b.mean - a.mean;
    return {n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n)};
  }
  A project(acc_t a) const {
    A denom = a.n - correction;
    A v = denom > A(0) ? a.m2 / denom : std::numeric_limits<A>::quiet_NaN();
    return kSqrt ? std::sqrt(v) : v;
  }
};

template <class T> void var_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_kernel<VarOp<T, A, false>, T, T>(it, VarOp<T, A, false>(it.params[0]));
}
template <class T> void std_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_kernel<VarOp<T, A, true>, T, T>(it, VarOp<T, A, true>(it.params[0]));
}

// log(sum(exp(x))) as a running (max m, sum s of exp(x - m)); NaN sticks, -inf adds nothing.
template <class A> struct LseAcc {
  A m, s;
};
// exp runs in the input's compute type (float for f32: twice as fast as double, and exact enough
// for a float result); the sum accumulates in A.
inline float exp_m(float v) { return expf(v); }  // libmvec's in vector loops (simd_math.h)
inline double exp_m(double v) { return exp(v); }
template <class T, class A> A exp_of_diff(A d) { return A(exp_m(opmath_t<T>(d))); }

// Note [Branch-free logsumexp]: the running (m, s) update has no branches, so the column case
// (fold_rows4: logsumexp along a leading dim) vectorizes with libmvec's exp (256x256 along dim 1:
// 223 -> 48 us; branches kept one scalar expf per element). One exponential serves both cases:
// e = exp(-|v - m|) is exp(v - m) when v <= m (s += e) and exp(m - v) when v > m (s = s * e + 1,
// m = v), the same values the two-branch form computed. Equal v and m give e = 1 without
// subtracting, so +inf twice or -inf twice (inf - inf) adds 1 instead of NaN, as before (the
// extra 1 beside an m of -inf is harmless: m + log(s) stays -inf, and a later finite value
// scales s by exp(-inf) = 0). Contiguous runs (along the last dim) take two vector passes in the
// SIMD clones instead: the max, then the sum of exp(x - max).
template <class T, class A> inline LseAcc<A> lse_step(LseAcc<A> a, A v) {
  const A d = v == a.m ? A(0) : std::abs(v - a.m);
  const A e = exp_of_diff<T>(-d);
  const bool up = v > a.m;
  A m = up ? v : a.m, s = up ? a.s * e + A(1) : a.s + e;
  const bool vnan = v != v, anan = a.m != a.m;  // NaN sticks: per field, selects vectorize
  m = vnan ? v : m;
  s = vnan ? A(1) : s;
  return {anan ? a.m : m, anan ? a.s : s};
}
// The sum of exp(x - m) over a contiguous run (its max: extreme_run, reduce_loops.h).
template <class T, class A> TOCHA_SIMD_CLONES A lse_exp_sum(const T* __restrict p, int64_t n, A m) {
  A s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < n; ++i) s += exp_of_diff<T>(A(opmath_t<T>(p[i])) - m);
  return s;
}

template <class T, class A> struct LogSumExpOp {
  using acc_t = LseAcc<A>;
  static constexpr bool kIndex = false;
  acc_t identity() const { return {-kInf<A>, A(0)}; }
  acc_t reduce(acc_t a, T x, int64_t) const { return lse_step<T>(a, A(opmath_t<T>(x))); }
  // A contiguous run in two passes: the (NaN-propagating) max, then the sum of exp(x - max).
  acc_t reduce_segment(const T* p, int64_t n, int64_t) const {
    int64_t nans = 0;
    const A m = A(extreme_run<true>(p, n, &nans));
    if (nans) return {std::numeric_limits<A>::quiet_NaN(), A(1)};
    if (m == -kInf<A>) return identity();  // empty, or only -inf: adds nothing
    if (m == kInf<A>) {
      auto plus = [](A a, A b) { return a + b; };
      return {m, lane_fold<A>(p, n, A(0), [](A v) { return A(v == kInf<A>); }, plus)};
    }
    return {m, lse_exp_sum<T, A>(p, n, m)};
  }
  acc_t combine(acc_t a, acc_t b) const {
    if (a.m != a.m) return a;
    if (b.m != b.m) return b;
    if (a.s == A(0)) return b;
    if (b.s == A(0)) return a;
    if (a.m == b.m) return {a.m, a.s + b.s};
    if (a.m > b.m) return {a.m, a.s + b.s * exp_of_diff<T>(b.m - a.m)};
    return {b.m, b.s + a.s * exp_of_diff<T>(a.m - b.m)};
  }
  A project(acc_t a) const { return a.m + std::log(a.s); }
};

template <class T> void logsumexp_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_kernel<LogSumExpOp<T, A>, T, T>(it, LogSumExpOp<T, A>{});
}

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_NORM(T) REG(norm, T)
#define REG_VAR(T) REG(var, T)
#define REG_STD(T) REG(std, T)
#define REG_LSE(T) REG(logsumexp, T)

TOCHA_FOR_FLOAT_TYPES(REG_NORM)
TOCHA_FOR_FLOAT_TYPES(REG_VAR)
TOCHA_FOR_FLOAT_TYPES(REG_STD)
TOCHA_FOR_FLOAT_TYPES(REG_LSE)

}  // namespace
}  // namespace cpu
}  // namespace tocha
