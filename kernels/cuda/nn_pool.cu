// CUDA kernels of the poolings that share core/ops/pool.h's PoolArgs (adaptive max/avg 2-D,
// volumetric max/avg, temporal max; Note [Pooling layouts] in core/ops/pool.cpp), for the CPU
// kernels' dtypes, with their windows, divisors and max tie-breaking (kernels/cpu/pool.cpp).
// Forward: one thread per output cell. The average backward gathers: one thread per input cell
// finds, per dim, the outputs whose windows hold it and sums their contributions in the CPU's
// (t, h, w) order, so it is deterministic and matches the CPU without atomics.
#include "core/kernel_registry.h"
#include "core/ops/pool.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Window of output o along pooled dim `dim`: input cells [s, e) and its span counting padding.
struct Win {
  int64_t s, e, span;
};
__device__ __forceinline__ Win window(const PoolArgs& a, int dim, int64_t o) {
  const int64_t in = a.x_size[dim], out = a.y_size[dim];
  Win w;
  if (a.adaptive) {
    w.s = o * in / out;
    w.e = ((o + 1) * in + out - 1) / out;
    w.span = w.e - w.s;
  } else {
    int64_t s = o * a.d[dim] - a.pad[dim];
    int64_t e = min(s + a.k[dim], in + a.pad[dim]);
    w.span = e - s;
    w.s = max(s, int64_t(0));
    w.e = min(e, in);
  }
  return w;
}

__device__ __forceinline__ int64_t divisor(const PoolArgs& a, const Win& t, const Win& h, const Win& w) {
  if (a.count_include_pad) return t.span * h.span * w.span;
  return (t.e - t.s) * (h.e - h.s) * (w.e - w.s);
}

// Output cell u of (batch, channels, oT, oH, ow) in row-major order -> its coordinates.
struct Cell {
  int64_t n, c, t, h, w;
};
__device__ __forceinline__ Cell cell(const PoolArgs& a, const int64_t* size, int64_t u) {
  Cell k;
  k.w = u % size[2];
  u /= size[2];
  k.h = u % size[1];
  u /= size[1];
  k.t = u % size[0];
  u /= size[0];
  k.c = u % a.channels;
  k.n = u / a.channels;
  return k;
}

template <class T> __global__ void __launch_bounds__(kThreads) max_kernel(PoolArgs a) {
  using M = opmath_t<T>;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const int64_t H = a.x_size[1], W = a.x_size[2];
  const int64_t* xs = a.x_stride;
  const int64_t* ys = a.y_stride;
  const int64_t total = a.batch * a.channels * a.y_size[0] * a.y_size[1] * a.y_size[2];
  for (int64_t u = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; u < total; u += int64_t(gridDim.x) * blockDim.x) {
    const Cell k = cell(a, a.y_size, u);
    const Win wt = window(a, 0, k.t), wh = window(a, 1, k.h), ww = window(a, 2, k.w);
    const T* xp = x + k.n * xs[0] + k.c * xs[1];
    M best = -INFINITY;
    int64_t best_at = (wt.s * H + wh.s) * W + ww.s;
    for (int64_t t = wt.s; t < wt.e; ++t)
      for (int64_t h = wh.s; h < wh.e; ++h)
        for (int64_t w = ww.s; w < ww.e; ++w) {
          const M v = M(xp[t * xs[2] + h * xs[3] + w * xs[4]]);
          if (v > best || v != v) {
            best = v;
            best_at = (t * H + h) * W + w;
          }
        }
    const int64_t at = k.n * ys[0] + k.c * ys[1] + k.t * ys[2] + k.h * ys[3] + k.w * ys[4];
    y[at] = T(best);
    a.indices[at] = best_at + a.index_base;
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) avg_kernel(PoolArgs a) {
  using M = opmath_t<T>;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const int64_t* xs = a.x_stride;
  const int64_t* ys = a.y_stride;
  const int64_t total = a.batch * a.channels * a.y_size[0] * a.y_size[1] * a.y_size[2];
  for (int64_t u = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; u < total; u += int64_t(gridDim.x) * blockDim.x) {
    const Cell k = cell(a, a.y_size, u);
    const Win wt = window(a, 0, k.t), wh = window(a, 1, k.h), ww = window(a, 2, k.w);
    const T* xp = x + k.n * xs[0] + k.c * xs[1];
    M sum = 0;
    for (int64_t t = wt.s; t < wt.e; ++t)
      for (int64_t h = wh.s; h < wh.e; ++h)
        for (int64_t w = ww.s; w < ww.e; ++w) sum += M(xp[t * xs[2] + h * xs[3] + w * xs[4]]);
    y[k.n * ys[0] + k.c * ys[1] + k.t * ys[2] + k.h * ys[3] + k.w * ys[4]] = T(sum / M(divisor(a, wt, wh, ww)));
  }
}

// The outputs [lo, hi) along a dim whose windows contain input index i (windows are monotonic).
__device__ __forceinline__ void readers(const PoolArgs& a, int dim, int64_t i, int64_t* lo, int64_t* hi) {
  const int64_t out = a.y_size[dim];
  int64_t o = 0;
  while (o < out && window(a, dim, o).e <= i) ++o;
  *lo = o;
  while (o < out && window(a, dim, o).s <= i) ++o;
  *hi = o;
}

template <class T> __global__ void __launch_bounds__(kThreads) avg_backward_kernel(PoolArgs a) {
  using M = opmath_t<T>;
  T* x = static_cast<T*>(a.x);
  const T* y = static_cast<const T*>(a.y);
  const int64_t* xs = a.x_stride;
  const int64_t* ys = a.y_stride;
  const int64_t total = a.batch * a.channels * a.x_size[0] * a.x_size[1] * a.x_size[2];
  for (int64_t u = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; u < total; u += int64_t(gridDim.x) * blockDim.x) {
    const Cell k = cell(a, a.x_size, u);
    int64_t t0, t1, h0, h1, w0, w1;
    readers(a, 0, k.t, &t0, &t1);
    readers(a, 1, k.h, &h0, &h1);
    readers(a, 2, k.w, &w0, &w1);
    const T* yp = y + k.n * ys[0] + k.c * ys[1];
    M acc = 0;
    for (int64_t ot = t0; ot < t1; ++ot) {
      const Win wt = window(a, 0, ot);
      for (int64_t oh = h0; oh < h1; ++oh) {
        const Win wh = window(a, 1, oh);
        for (int64_t ow = w0; ow < w1; ++ow) {
          const Win ww = window(a, 2, ow);
          // Padding windows can end before i though later ones hold it: check the cell is inside.
          if (k.t < wt.s || k.t >= wt.e || k.h < wh.s || k.h >= wh.e || k.w < ww.s || k.w >= ww.e) continue;
          acc += M(yp[ot * ys[2] + oh * ys[3] + ow * ys[4]]) / M(divisor(a, wt, wh, ww));
        }
      }
    }
    x[k.n * xs[0] + k.c * xs[1] + k.t * xs[2] + k.h * xs[3] + k.w * xs[4]] = T(acc);
  }
}

int64_t cells(const PoolArgs& a, const int64_t* size) { return a.batch * a.channels * size[0] * size[1] * size[2]; }

template <class T> void max_cuda(const PoolArgs& a) {
  const int64_t n = cells(a, a.y_size);
  if (n == 0) return;
  LaunchScope scope(device_of(a.y));
  max_kernel<T><<<grid_for(n), kThreads, 0, scope.stream>>>(a);
  check_launch("maxPool");
}
template <class T> void avg_cuda(const PoolArgs& a) {
  const int64_t n = cells(a, a.y_size);
  if (n == 0) return;
  LaunchScope scope(device_of(a.y));
  avg_kernel<T><<<grid_for(n), kThreads, 0, scope.stream>>>(a);
  check_launch("avgPool");
}
template <class T> void avg_backward_cuda(const PoolArgs& a) {
  const int64_t n = cells(a, a.x_size);
  if (n == 0) return;
  LaunchScope scope(device_of(a.x));
  avg_backward_kernel<T><<<grid_for(n), kThreads, 0, scope.stream>>>(a);
  check_launch("avgPoolBackward");
}

#define REG_POOL(T)                                                                           \
  TOCHA_REGISTER_KERNEL(adaptiveMaxPool2d, cuda, DTypeOf<T>::value, &max_cuda<T>);            \
  TOCHA_REGISTER_KERNEL(maxPool3d, cuda, DTypeOf<T>::value, &max_cuda<T>);                    \
  TOCHA_REGISTER_KERNEL(temporalMaxPool, cuda, DTypeOf<T>::value, &max_cuda<T>);              \
  TOCHA_REGISTER_KERNEL(adaptiveAvgPool2d, cuda, DTypeOf<T>::value, &avg_cuda<T>);            \
  TOCHA_REGISTER_KERNEL(avgPool3d, cuda, DTypeOf<T>::value, &avg_cuda<T>);                    \
  TOCHA_REGISTER_KERNEL(adaptiveAvgPool2dBackward, cuda, DTypeOf<T>::value, &avg_backward_cuda<T>); \
  TOCHA_REGISTER_KERNEL(avgPool3dBackward, cuda, DTypeOf<T>::value, &avg_backward_cuda<T>);
REG_POOL(float)
REG_POOL(double)
REG_POOL(Half)
REG_POOL(BFloat16)

}  // namespace
}  // namespace cuda
}  // namespace tocha
