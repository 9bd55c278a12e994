// CPU kernel of the fused softmax and logSoftmax (core/ops/softmax_kernels.h), f32 and f64: per
// row, the max, then the sum of exp(x - max) accumulated in double, then the output. Rows along
// the last dim (inner == 1) are contiguous; otherwise the inner elements of a block are treated
// as independent rows side by side, so every pass runs along contiguous memory. parallel_for
// splits the outer blocks.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/softmax_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/simd_math.h"

namespace tocha {
namespace cpu {
namespace {

inline float vexp(float v) { return expf(v); }  // vectorized by libmvec (simd_math.h)
inline double vexp(double v) { return exp(v); }
inline float vlog(float v) { return logf(v); }
inline double vlog(double v) { return log(v); }

// The max of a row, NaN if the row holds one (as the composite gave).
template <class T> T row_max(const T* x, int64_t n) {
  T m = x[0];
  int nan = 0;
#pragma omp simd reduction(max : m) reduction(| : nan)
  for (int64_t k = 0; k < n; ++k) {
    m = x[k] > m ? x[k] : m;
    nan |= x[k] != x[k];
  }
  return nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

// exp(x - max) goes through y first, so that the exp loop is a plain call loop that libmvec
// vectorizes; the sum in double then reads y back from the cache.
// In the SIMD clones (loops.h): the baseline build's loops used 4-wide libmvec calls.
template <class T> TOCHA_SIMD_CLONES void contiguous_row(const T* x, T* y, int64_t n, bool log) {
  const T m = row_max(x, n);
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) y[k] = vexp(T(x[k] - m));
  double s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t k = 0; k < n; ++k) s += double(y[k]);
  if (log) {
    const T ls = T(std::log(s));
#pragma omp simd
    for (int64_t k = 0; k < n; ++k) y[k] = (x[k] - m) - ls;
    return;
  }
  const T r = T(1 / s);
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) y[k] *= r;
}

// One block of n x inner: `inner` rows with stride inner, processed a whole line of inner at a
// time so that every loop runs along contiguous memory.
template <class T>
TOCHA_SIMD_CLONES void strided_block(const T* x, T* y, int64_t n, int64_t inner, bool log, std::vector<T>& m,
                                      std::vector<double>& s) {
  m.assign(x, x + inner);
  T* mp = m.data();
  for (int64_t k = 1; k < n; ++k) {
    const T* xk = x + k * inner;
#pragma omp simd
    for (int64_t i = 0; i < inner; ++i) mp[i] = (xk[i] > mp[i] || xk[i] != xk[i]) && mp[i] == mp[i] ? xk[i] : mp[i];
  }
  s.assign(size_t(inner), 0.0);
  double* sp = s.data();
  for (int64_t k = 0; k < n; ++k) {
    const T* xk = x + k * inner;
    T* yk = y + k * inner;
    if (log) {
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) sp[i] += double(vexp(T(xk[i] - mp[i])));
    } else {
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) {
        const T e = vexp(T(xk[i] - mp[i]));
        yk[i] = e;
        sp[i] += double(e);
      }
    }
  }
  // The row constants in the sums' place: log(sum) for logSoftmax, 1 / sum for softmax.
#pragma omp simd
  for (int64_t i = 0; i < inner; ++i) sp[i] = log ? vlog(sp[i]) : 1 / sp[i];
  for (int64_t k = 0; k < n; ++k) {
    const T* xk = x + k * inner;
    T* yk = y + k * inner;
    if (log) {
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) yk[i] = (xk[i] - mp[i]) - T(sp[i]);
    } else {
#pragma omp simd
      for (int64_t i = 0; i < inner; ++i) yk[i] *= T(sp[i]);
    }
  }
}

template <class T> void softmax_kernel(const SoftmaxArgs& a) {
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const int64_t n = a.n, inner = a.inner, block = n * inner;
  parallel_for(a.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, block)), [&](int64_t o0, int64_t o1) {
    std::vector<T> m;
    std::vector<double> s;
    for (int64_t o = o0; o < o1; ++o) {
      if (inner == 1) contiguous_row(x + o * n, y + o * n, n, a.log);
      else strided_block(x + o * block, y + o * block, n, inner, a.log, m, s);
    }
  });
}

}  // namespace

TOCHA_REGISTER_KERNEL(softmax, cpu, DType::f32, softmax_kernel<float>);
TOCHA_REGISTER_KERNEL(softmax, cpu, DType::f64, softmax_kernel<double>);
TOCHA_REGISTER_KERNEL(logSoftmax, cpu, DType::f32, softmax_kernel<float>);
TOCHA_REGISTER_KERNEL(logSoftmax, cpu, DType::f64, softmax_kernel<double>);

}  // namespace cpu
}  // namespace tocha
