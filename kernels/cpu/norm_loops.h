// Inner loops shared by the normalization kernels (kernels/cpu/norm_*.cpp).
#pragma once
#include <cstdint>
#include "kernels/cpu/loops.h"

namespace tocha {
namespace cpu {

// Note [Shifted sums]: sum(x - k) and sum((x - k)^2) with k a value of the same set give the
// mean and variance in one pass without the cancellation of sum(x^2) - n * mean^2 when the mean
// is large against the spread: the shifted values are of the order of the spread.
template <class T> TOCHA_SIMD_CLONES void shifted_sums(const T* p, int64_t n, double k, double* s, double* ss) {
  double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
  for (int64_t i = 0; i < n; ++i) {
    double d = double(p[i]) - k;
    a += d;
    b += d * d;
  }
  *s += a;
  *ss += b;
}

// Mean and biased variance from n values' shifted sums.
inline void moments(double k, double s, double ss, int64_t n, double* mean, double* var) {
  double d = s / double(n);
  *mean = k + d;
  double v = ss / double(n) - d * d;
  *var = v > 0 ? v : 0;
}

}  // namespace cpu
}  // namespace tocha
