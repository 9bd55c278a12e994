// The running steps of cummax, cummin and logcumsumexp, shared by the CPU and CUDA kernels
// (kernels/cpu/stats_scan.cpp, kernels/cuda/stats_scan.cu) so both give the same bits.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include "core/dtype.h"
#include "core/half.h"
#include "kernels/reduce_ops.h"

namespace tocha {
namespace stats_scan {

template <class M> TOCHA_HD inline bool is_nan(M v) {
  if constexpr (std::is_floating_point<M>::value) return v != v;
  else return false;
}

// Note [cummax ties and NaN]: PyTorch's rule: a value equal to the running extreme takes its
// place (the index is the last of ties), and a NaN always does (once a NaN is seen the values
// stay NaN and the index moves to each later NaN).
// Written without branches (a NaN best fails both comparisons, a NaN x passes the second), so
// the CPU loop compiles to conditional moves: random data mispredicted the three-way branch.
template <class M, bool kMax> TOCHA_HD inline bool takes_over(M x, M best) {
  return (kMax ? x >= best : x <= best) | is_nan(x);
}

// log(e^a + e^x) without overflow; -inf with -inf is -inf, +inf with +inf is +inf, NaN stays.
template <class A> TOCHA_HD inline A log_add_exp(A a, A x) {
  if (is_nan(a) || is_nan(x)) return a + x;
  const A mn = a < x ? a : x, mx = a < x ? x : a;
  if (mn == mx && !std::isfinite(mn)) return mx;
  return mx + std::log1p(std::exp(mn - mx));
}

// The accumulator of logcumsumexp: double for f32 and f64, float for f16 and bf16.
template <class T> using lcse_acc_t = std::conditional_t<std::is_same<T, double>::value || std::is_same<T, float>::value,
                                                         double, float>;

// One slice of cummax/cummin: n elements of x (stride sx) into values v (stride sv) and indices
// ix (stride si, counted from base). The CPU kernel runs it per slice on a thread, the CUDA
// kernel per slice on a device thread.
template <class T, bool kMax>
TOCHA_HD inline void cum_extreme_slice(const T* x, T* v, int64_t* ix, int64_t n, int64_t sx, int64_t sv, int64_t si,
                                       int64_t base) {
  using M = opmath_t<T>;
  if (n == 0) return;
  T best = x[0];
  int64_t at = 0;
  for (int64_t r = 0; r < n; ++r) {
    const T xr = x[r * sx];
    const bool take = takes_over<M, kMax>(M(xr), M(best));
    best = take ? xr : best;
    at = take ? r : at;
    v[r * sv] = best;
    ix[r * si] = at + base;
  }
}

// One slice of logcumsumexp: n elements of x (stride sx) into y (stride sy).
template <class T> TOCHA_HD inline void lcse_slice(const T* x, T* y, int64_t n, int64_t sx, int64_t sy) {
  using A = lcse_acc_t<T>;
  A acc = -std::numeric_limits<A>::infinity();
  for (int64_t r = 0; r < n; ++r) {
    acc = log_add_exp(acc, A(opmath_t<T>(x[r * sx])));
    y[r * sy] = reduce::cast_result<T>(acc);
  }
}

}  // namespace stats_scan
}  // namespace tocha
