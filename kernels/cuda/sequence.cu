// CUDA kernels of range/arange, linspace and logspace (Note [Device sequences], core/ops/factory.cpp):
// element i computed by the CPU kernel's formula (kernels/cpu/factory_sequence.cpp), so range and
// linspace give the CPU's bits, for every dtype the CPU kernel takes.
#include <cmath>
#include <type_traits>
#include "core/kernel_registry.h"
#include "core/ops/factory.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Note [Sequences without FMA]
// The CPU computes start + i * step (and linspace's b - (n - 1 - i) * step) as a rounded product
// then a rounded sum (the default build targets x86-64 without FMA); nvcc would contract each
// into one fused multiply-add, whose single rounding differs from the CPU's in the last bit. The
// intrinsics __dmul_rn, __dadd_rn and __dsub_rn are never contracted, so every element is the
// CPU's double bit for bit, and so is its conversion to the tensor's dtype. (A CPU build with
// TOCHA_NATIVE=ON may contract on its side.) logspace's pow is the one step whose bits can
// differ: CUDA's pow is within 2 ulp of the exact power, glibc's within 1, so f64 logspace values
// may differ from the CPU's in the last bit (f32 and integer results, rounded from them, match
// but for a power that lands within an ulp of a rounding boundary).


// i-th of n points from a to b (n > 1), from the nearer end so that both ends are exact.
__device__ __forceinline__ double linspace_at(double a, double b, double step, int64_t i, int64_t n) {
  return i < n / 2 ? __dadd_rn(a, __dmul_rn(double(i), step)) : __dsub_rn(b, __dmul_rn(double(n - 1 - i), step));
}

// range {start, step}: start + i * step, in int64 for integer dtypes with integer parameters
// (exact beyond 2^53).
template <class T, bool kExactInt>
__global__ void __launch_bounds__(kThreads) range_kernel(T* out, int64_t n, double start, double step, int64_t s0,
                                                         int64_t st) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    if constexpr (kExactInt) out[i] = T(s0 + i * st);
    else out[i] = element_from<T>(__dadd_rn(start, __dmul_rn(double(i), step)));
  }
}

// linspace {a, b} and, kLog, logspace {a, b, base}: base ^ linspace(a, b, n); n = 1 gives a
// (base ^ a).
template <class T, bool kLog>
__global__ void __launch_bounds__(kThreads) linspace_kernel(T* out, int64_t n, double a, double b, double step,
                                                            double base) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const double x = n == 1 ? a : linspace_at(a, b, step, i, n);
    if constexpr (kLog) out[i] = element_from<T>(pow(base, x));
    else out[i] = element_from<T>(x);
  }
}

template <class T> void range_cuda(void* out_, int64_t n, const double* p) {
  if (n == 0) return;
  T* out = static_cast<T*>(out_);
  const double start = p[0], step = p[1];
  LaunchScope scope(device_of(out));
  if constexpr (std::is_integral<T>::value) {
    if (start == std::floor(start) && step == std::floor(step)) {
      range_kernel<T, true><<<grid_for(n), kThreads, 0, scope.stream>>>(out, n, start, step, int64_t(start),
                                                                         int64_t(step));
      check_launch("range");
      return;
    }
  }
  range_kernel<T, false><<<grid_for(n), kThreads, 0, scope.stream>>>(out, n, start, step, 0, 0);
  check_launch("range");
}

template <class T, bool kLog> void linspace_cuda(void* out_, int64_t n, const double* p) {
  if (n == 0) return;
  T* out = static_cast<T*>(out_);
  const double a = p[0], b = p[1], base = kLog ? p[2] : 0.0;
  const double step = n > 1 ? (b - a) / double(n - 1) : 0.0;  // the CPU's step, rounded once
  LaunchScope scope(device_of(out));
  linspace_kernel<T, kLog><<<grid_for(n), kThreads, 0, scope.stream>>>(out, n, a, b, step, base);
  check_launch(kLog ? "logspace" : "linspace");
}

#define REG_SEQUENCE(T)                                                                   \
  TOCHA_REGISTER_KERNEL(range, cuda, DTypeOf<T>::value, &range_cuda<T>);                  \
  TOCHA_REGISTER_KERNEL(linspace, cuda, DTypeOf<T>::value, (&linspace_cuda<T, false>));   \
  TOCHA_REGISTER_KERNEL(logspace, cuda, DTypeOf<T>::value, (&linspace_cuda<T, true>));
TOCHA_FOR_NUMERIC_TYPES(REG_SEQUENCE)

}  // namespace
}  // namespace cuda
}  // namespace tocha
