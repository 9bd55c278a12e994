// CUDA kernels of tril/triu (core/ops/matrix.h, every dtype) and of the rank-1 update ger/addr
// (core/ops/linalg_kernels.h, floating dtypes like the cuBLAS family of blas.cpp), one thread per
// element of the result.
#include "core/kernel_registry.h"
#include "core/ops/linalg_kernels.h"
#include "core/ops/matrix.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Row i keeps column j when j - i <= k (tril) or j - i >= k (triu); out may be in itself (each
// thread reads its element before writing it).
template <class T, bool kLower> __global__ void __launch_bounds__(kThreads) triangle_kernel(TriangleArgs a) {
  const int64_t total = a.batch * a.rows * a.cols;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = e % a.cols, i = (e / a.cols) % a.rows;
    int64_t m = e / (a.cols * a.rows);
    int64_t oo = i * a.out_rs + j * a.out_cs, io = i * a.in_rs + j * a.in_cs;
    for (int d = a.nbatch_dims - 1; d >= 0; --d) {
      const int64_t c = m % a.batch_size[d];
      m /= a.batch_size[d];
      oo += c * a.out_batch_stride[d];
      io += c * a.in_batch_stride[d];
    }
    const bool keep = kLower ? j - i <= a.k : j - i >= a.k;
    const T v = keep ? reinterpret_cast<const T*>(a.in)[io] : T(0);
    reinterpret_cast<T*>(a.out)[oo] = v;
  }
}

template <class T, bool kLower> void triangle_cuda(const TriangleArgs& a) {
  const int64_t total = a.batch * a.rows * a.cols;
  if (total == 0) return;
  LaunchScope scope(device_of(a.out));
  triangle_kernel<T, kLower><<<grid_for(total), kThreads, 0, scope.stream>>>(a);
  check_launch(kLower ? "tril" : "triu");
}

// A = beta * A + alpha * x y^T (A not read when beta == 0, so NaNs in it never leak).
template <class T> __global__ void __launch_bounds__(kThreads) ger_kernel(GerArgs g) {
  using M = opmath_t<T>;
  const T* x = static_cast<const T*>(g.x);
  const T* y = static_cast<const T*>(g.y);
  T* a = static_cast<T*>(g.a);
  const M alpha = M(g.alpha), beta = M(g.beta);
  const int64_t total = g.m * g.n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e / g.n, j = e % g.n;
    T& v = a[i * g.a_rs + j * g.a_cs];
    const M prod = alpha * M(x[i * g.incx]) * M(y[j * g.incy]);
    v = g.beta == 0 ? T(prod) : T(beta * M(v) + prod);
  }
}

template <class T> void ger_cuda(const GerArgs& g) {
  if (g.m == 0 || g.n == 0) return;
  LaunchScope scope(device_of(g.a));
  ger_kernel<T><<<grid_for(g.m * g.n), kThreads, 0, scope.stream>>>(g);
  check_launch("ger");
}

#define REG_TRIANGLE(T)                                                                   \
  TOCHA_REGISTER_KERNEL(tril, cuda, DTypeOf<T>::value, (&triangle_cuda<T, true>));        \
  TOCHA_REGISTER_KERNEL(triu, cuda, DTypeOf<T>::value, (&triangle_cuda<T, false>));
TOCHA_FOR_ALL_TYPES(REG_TRIANGLE)

#define REG_GER(T)                                                    \
  TOCHA_REGISTER_KERNEL(ger, cuda, DTypeOf<T>::value, &ger_cuda<T>);  \
  TOCHA_REGISTER_KERNEL(addr, cuda, DTypeOf<T>::value, &ger_cuda<T>);
REG_GER(float)
REG_GER(double)
REG_GER(Half)
REG_GER(BFloat16)

}  // namespace
}  // namespace cuda
}  // namespace tocha
