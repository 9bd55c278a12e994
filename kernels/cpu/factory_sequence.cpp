// CPU kernels of range/arange, linspace and logspace: values computed in double (exact int64
// arithmetic for integer ranges with integer parameters), in parallel over the elements.
#include <cmath>
#include <type_traits>
#include "core/kernel_registry.h"
#include "core/ops/factory.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

// range {start, step}: start + i * step.
template <class T> void range_kernel(void* out_, int64_t n, const double* p) {
  T* out = static_cast<T*>(out_);
  const double start = p[0], step = p[1];
  if constexpr (std::is_integral<T>::value) {
    if (start == std::floor(start) && step == std::floor(step)) {  // exact beyond 2^53
      const int64_t s0 = int64_t(start), st = int64_t(step);
      parallel_for(n, kGrainSize, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) out[i] = T(s0 + i * st);
      });
      return;
    }
  }
  parallel_for(n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = element_from<T>(start + double(i) * step);
  });
}

// i-th of n points from a to b, computed from the nearer end so that both ends are exact.
inline double linspace_at(double a, double b, double step, int64_t i, int64_t n) {
  return i < n / 2 ? a + double(i) * step : b - double(n - 1 - i) * step;
}

// linspace {a, b}.
template <class T> void linspace_kernel(void* out_, int64_t n, const double* p) {
  T* out = static_cast<T*>(out_);
  const double a = p[0], b = p[1];
  if (n == 1) { out[0] = element_from<T>(a); return; }
  const double step = (b - a) / double(n - 1);
  parallel_for(n, kGrainSize, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) out[i] = element_from<T>(linspace_at(a, b, step, i, n));
  });
}

// logspace {a, b, base}.
template <class T> void logspace_kernel(void* out_, int64_t n, const double* p) {
  T* out = static_cast<T*>(out_);
  const double a = p[0], b = p[1], base = p[2];
  if (n == 1) { out[0] = element_from<T>(std::pow(base, a)); return; }
  const double step = (b - a) / double(n - 1);
  parallel_for(n, kGrainSize, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) out[i] = element_from<T>(std::pow(base, linspace_at(a, b, step, i, n)));
  });
}

#define REG_SEQUENCE(T)                                                             \
  TOCHA_REGISTER_KERNEL(range, cpu, DTypeOf<T>::value, &range_kernel<T>);           \
  TOCHA_REGISTER_KERNEL(linspace, cpu, DTypeOf<T>::value, &linspace_kernel<T>);     \
  TOCHA_REGISTER_KERNEL(logspace, cpu, DTypeOf<T>::value, &logspace_kernel<T>);
TOCHA_FOR_NUMERIC_TYPES(REG_SEQUENCE)

}  // namespace
}  // namespace cpu
}  // namespace tocha
