// CUDA kernels of 2-D max and average pooling and their backward passes (core/ops/pool2d_kernels.h),
// f32 and f64 like the CPU kernels (kernels/cpu/pool2d.cpp), whose window bounds, divisors and
// max tie-breaking they repeat exactly. Plain kernels rather than cuDNN pooling: maxPool2d returns
// the argmax positions (Note [Max-pooling indices]) and its backward scatters through them, which
// cuDNN's pooling API (it recomputes the argmax from x and y) cannot do; Torch7's ceil mode and
// count_include_pad divisors are also not cuDNN's.
#include <algorithm>
#include <cmath>
#include "core/kernel_registry.h"
#include "core/ops/pool2d_kernels.h"
#include "core/op_id.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/device_errors.h"
#include "kernels/cuda/fast_divide.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// One thread per output element (plane, oh, ow). The first maximum wins and NaN propagates, as
// take_max does on the CPU.
template <class T, class Index>
__global__ void __launch_bounds__(kThreads) max_pool_kernel(Pool2dArgs a, PlaneIndex<Index> out_index) {
  const T* in = static_cast<const T*>(a.in);
  T* out = static_cast<T*>(a.out);
  const Index total = Index(a.planes * a.oH * a.oW);
  TOCHA_GRID_STRIDE(Index, i, total) {
    int64_t p, oh, ow;
    out_index.split(i, &p, &oh, &ow);
    const int64_t h0 = max(oh * a.dH - a.padH, int64_t(0)), h1 = min(oh * a.dH - a.padH + a.kH, a.iH);
    const int64_t w0 = max(ow * a.dW - a.padW, int64_t(0)), w1 = min(ow * a.dW - a.padW + a.kW, a.iW);
    const T* x = in + p * a.iH * a.iW;
    int64_t best = h0 * a.iW + w0;
    T m = -INFINITY;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) {
        const T v = x[h * a.iW + w];
        if (v > m || v != v) {
          m = v;
          best = h * a.iW + w;
        }
      }
    out[i] = m;
    a.indices[i] = best + a.index_base;
  }
}

// Whether argmax position `index` lies in the plane; if not, it is reported (Note [Deferred
// device errors]: the host no longer reads the indices back to check them) and skipped.
__device__ __forceinline__ bool position_ok(const Pool2dArgs& a, int64_t index, DeviceErrorRecord* err) {
  const int64_t rel = index - a.index_base;
  if (rel >= 0 && rel < a.iH * a.iW) return true;
  report_bad_position(err, int(OpId::maxPool2dBackward), index, a.index_base, a.iH, a.iW);
  return false;
}

// grad_input was zeroed; windows may overlap, so outputs of one plane add atomically.
template <class T, class Index>
__global__ void __launch_bounds__(kThreads)
    max_pool_backward_kernel(Pool2dArgs a, Divider<Index> by_pout, DeviceErrorRecord* err) {
  const T* g = static_cast<const T*>(a.in);
  T* gi = static_cast<T*>(a.out);
  const Index total = Index(a.planes * a.oH * a.oW);
  TOCHA_GRID_STRIDE(Index, i, total) {
    const int64_t p = int64_t(by_pout.div(i)), index = a.indices[i];
    if (position_ok(a, index, err)) atomicAdd(gi + p * a.iH * a.iW + (index - a.index_base), g[i]);
  }
}

// The gather kernel's dividers: by the plane's size, its width and the two strides.
template <class Index> struct GatherIndex {
  Divider<Index> by_plane, by_iW, by_dH, by_dW;
  explicit GatherIndex(const Pool2dArgs& a) : by_plane(a.iH * a.iW), by_iW(a.iW), by_dH(a.dH), by_dW(a.dW) {}
};

// Known windows that cannot overlap (a.windows, kernel <= stride: the usual 2x2 stride-2 pooling):
// each input element lies in at most one window, so one thread per input element gathers its
// gradient, writing every element once, with no zeroing pass and no atomics.
// A bad position matches no input element (no out-of-bounds access); it is reported all the same.
template <class T, class Index>
__global__ void __launch_bounds__(kThreads)
    max_pool_backward_gather_kernel(Pool2dArgs a, GatherIndex<Index> dv, DeviceErrorRecord* err) {
  const T* g = static_cast<const T*>(a.in);
  T* gi = static_cast<T*>(a.out);
  const Index pin = Index(a.iH * a.iW), total = Index(a.planes) * pin;
  TOCHA_GRID_STRIDE(Index, i, total) {
    const Index plane = dv.by_plane.div(i), pos = i - plane * pin;
    const Index ih = dv.by_iW.div(pos), hh = ih + Index(a.padH), ww = pos - ih * Index(a.iW) + Index(a.padW);
    const Index oh = dv.by_dH.div(hh), ow = dv.by_dW.div(ww);
    T v = T(0);
    if (oh < a.oH && ow < a.oW && hh - oh * a.dH < a.kH && ww - ow * a.dW < a.kW) {
      const int64_t o = (plane * a.oH + oh) * a.oW + ow, index = a.indices[o];
      if (index - a.index_base == int64_t(pos)) v = g[o];
      else position_ok(a, index, err);
    }
    gi[i] = v;
  }
}

// Window [h0, h1) x [w0, w1) of output (oh, ow) and its divisor (avg_window on the CPU).
struct Window {
  int64_t h0, h1, w0, w1, divisor;
};
__device__ __forceinline__ Window avg_window(const Pool2dArgs& a, int64_t oh, int64_t ow) {
  int64_t h0 = oh * a.dH - a.padH, w0 = ow * a.dW - a.padW;
  int64_t h1 = min(h0 + a.kH, a.iH + a.padH), w1 = min(w0 + a.kW, a.iW + a.padW);
  const int64_t padded = (h1 - h0) * (w1 - w0);
  h0 = max(h0, int64_t(0));
  w0 = max(w0, int64_t(0));
  h1 = min(h1, a.iH);
  w1 = min(w1, a.iW);
  return {h0, h1, w0, w1, a.count_include_pad ? padded : (h1 - h0) * (w1 - w0)};
}

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) avg_pool_kernel(Pool2dArgs a, PlaneIndex<Index> out_index) {
  const T* in = static_cast<const T*>(a.in);
  T* out = static_cast<T*>(a.out);
  const Index total = Index(a.planes * a.oH * a.oW);
  TOCHA_GRID_STRIDE(Index, i, total) {
    int64_t p, oh, ow;
    out_index.split(i, &p, &oh, &ow);
    const Window wd = avg_window(a, oh, ow);
    const T* x = in + p * a.iH * a.iW;
    T s = 0;
    for (int64_t h = wd.h0; h < wd.h1; ++h)
      for (int64_t w = wd.w0; w < wd.w1; ++w) s += x[h * a.iW + w];
    out[i] = s / T(wd.divisor);
  }
}

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) avg_pool_backward_kernel(Pool2dArgs a, PlaneIndex<Index> out_index) {
  const T* g = static_cast<const T*>(a.in);
  T* gi = static_cast<T*>(a.out);
  const Index total = Index(a.planes * a.oH * a.oW);
  TOCHA_GRID_STRIDE(Index, i, total) {
    int64_t p, oh, ow;
    out_index.split(i, &p, &oh, &ow);
    const Window wd = avg_window(a, oh, ow);
    const T v = g[i] / T(wd.divisor);
    T* x = gi + p * a.iH * a.iW;
    for (int64_t h = wd.h0; h < wd.h1; ++h)
      for (int64_t w = wd.w0; w < wd.w1; ++w) atomicAdd(x + h * a.iW + w, v);
  }
}

template <class T> void zero_input(const char* op, const Pool2dArgs& a, cudaStream_t s) {
  TOCHA_CUDA_CHECK(op, cudaMemsetAsync(a.out, 0, size_t(a.planes * a.iH * a.iW) * sizeof(T), s));
}

// The largest flat index, window coordinate or divisor (the gather's strides) of a launch over
// `n` elements: 32-bit dividers need all of them below 2^31.
int64_t largest_numerator(const Pool2dArgs& a, int64_t n) {
  return std::max({n, a.planes * a.oH * a.oW, a.planes * a.iH * a.iW, a.iH + a.padH, a.iW + a.padW, a.dH, a.dW});
}

template <class T> void max_pool_cuda(const Pool2dArgs& a) {
  const int64_t n = a.planes * a.oH * a.oW;
  if (n == 0) return;
  LaunchScope scope(device_of(a.out));
  with_index_type(largest_numerator(a, n), [&](auto index) {
    using Index = decltype(index);
    max_pool_kernel<T, Index><<<grid_for(n), kThreads, 0, scope.stream>>>(a, PlaneIndex<Index>(a.oH, a.oW));
  });
  check_launch("maxPool2d");
}
template <class T> void max_pool_backward_cuda(const Pool2dArgs& a) {
  const char* op = "maxPool2dBackward";
  LaunchScope scope(device_of(a.out));
  if (a.windows && a.kH <= a.dH && a.kW <= a.dW) {
    const int64_t n = a.planes * a.iH * a.iW;
    if (n == 0) return;
    with_index_type(largest_numerator(a, n), [&](auto index) {
      using Index = decltype(index);
      max_pool_backward_gather_kernel<T, Index>
          <<<grid_for(n), kThreads, 0, scope.stream>>>(a, GatherIndex<Index>(a), device_error_record());
    });
    check_launch(op);
    return;
  }
  zero_input<T>(op, a, scope.stream);
  const int64_t n = a.planes * a.oH * a.oW;
  if (n == 0) return;
  with_index_type(largest_numerator(a, n), [&](auto index) {
    using Index = decltype(index);
    max_pool_backward_kernel<T, Index>
        <<<grid_for(n), kThreads, 0, scope.stream>>>(a, Divider<Index>(a.oH * a.oW), device_error_record());
  });
  check_launch(op);
}
template <class T> void avg_pool_cuda(const Pool2dArgs& a) {
  const int64_t n = a.planes * a.oH * a.oW;
  if (n == 0) return;
  LaunchScope scope(device_of(a.out));
  with_index_type(largest_numerator(a, n), [&](auto index) {
    using Index = decltype(index);
    avg_pool_kernel<T, Index><<<grid_for(n), kThreads, 0, scope.stream>>>(a, PlaneIndex<Index>(a.oH, a.oW));
  });
  check_launch("avgPool2d");
}
template <class T> void avg_pool_backward_cuda(const Pool2dArgs& a) {
  const char* op = "avgPool2dBackward";
  LaunchScope scope(device_of(a.out));
  zero_input<T>(op, a, scope.stream);
  const int64_t n = a.planes * a.oH * a.oW;
  if (n == 0) return;
  with_index_type(largest_numerator(a, n), [&](auto index) {
    using Index = decltype(index);
    avg_pool_backward_kernel<T, Index>
        <<<grid_for(n), kThreads, 0, scope.stream>>>(a, PlaneIndex<Index>(a.oH, a.oW));
  });
  check_launch(op);
}

#define REG_POOL(T, dt)                                                          \
  TOCHA_REGISTER_KERNEL(maxPool2d, cuda, dt, &max_pool_cuda<T>);                  \
  TOCHA_REGISTER_KERNEL(maxPool2dBackward, cuda, dt, &max_pool_backward_cuda<T>); \
  TOCHA_REGISTER_KERNEL(avgPool2d, cuda, dt, &avg_pool_cuda<T>);                  \
  TOCHA_REGISTER_KERNEL(avgPool2dBackward, cuda, dt, &avg_pool_backward_cuda<T>);

REG_POOL(float, DType::f32)
REG_POOL(double, DType::f64)

}  // namespace
}  // namespace cuda
}  // namespace tocha
