// CUDA kernels of 2-D nearest/bilinear resampling and its backward (core/ops/resample.h) for the
// CPU kernels' dtypes, with their source taps (kernels/cpu/upsample.cpp): the taps (two source
// indices and a weight per output row and column) are computed on the host exactly as there and
// uploaded. The forward runs one thread per output cell. The backward scatters each output
// gradient into its (up to 4) source cells with atomicAdd into an opmath (f32, or f64 for f64)
// scratch plane, converted to the dtype at the end: the additions' order depends on timing, so
// results may differ from the CPU's in the last bits (PyTorch's CUDA backward does the same).
#include <algorithm>
#include <cstring>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/resample.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/fast_divide.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Taps of one dim on the device: i0, i1 (int64) and lambda (double), `out` of each.
struct DevTaps {
  const int64_t* i0;
  const int64_t* i1;
  const double* lambda;
};

// Host taps, laid out [i0 | i1] as int64 and [lambda] as double, for both dims in one buffer.
struct Uploaded {
  Ref<Storage> buf;
  DevTaps h, w;
};

void host_taps(int64_t in, int64_t out, UpsampleMode mode, bool align_corners, std::vector<int64_t>* idx,
               std::vector<double>* lam) {
  for (int64_t o = 0; o < out; ++o) {
    int64_t i0;
    double l = 0;
    if (mode == UpsampleMode::nearest) {
      i0 = std::min(o * in / out, in - 1);
    } else {
      double src;
      if (align_corners) src = out > 1 ? double(o) * double(in - 1) / double(out - 1) : 0.0;
      else src = std::max(0.0, (double(o) + 0.5) * double(in) / double(out) - 0.5);
      i0 = std::min(int64_t(src), in - 1);
      l = src - double(i0);
    }
    idx[0].push_back(i0);
    idx[1].push_back(std::min(i0 + 1, in - 1));
    lam->push_back(l);
  }
}

Uploaded upload_taps(const char* op, const UpsampleArgs& a, int device, cudaStream_t s) {
  std::vector<int64_t> ih[2], iw[2];
  std::vector<double> lh, lw;
  host_taps(a.xh, a.yh, a.mode, a.align_corners, ih, &lh);
  host_taps(a.xw, a.yw, a.mode, a.align_corners, iw, &lw);
  std::vector<char> host(size_t(3 * (a.yh + a.yw)) * 8);
  char* p = host.data();
  auto put = [&](const void* src, size_t n) {
    std::memcpy(p, src, n);
    p += n;
  };
  const size_t H = size_t(a.yh) * 8, W = size_t(a.yw) * 8;
  put(ih[0].data(), H);
  put(ih[1].data(), H);
  put(lh.data(), H);
  put(iw[0].data(), W);
  put(iw[1].data(), W);
  put(lw.data(), W);
  Uploaded u;
  u.buf = Storage::allocate(host.size(), Device{DeviceType::cuda, device});
  char* d = static_cast<char*>(u.buf->data());
  // Pageable memory: staged by the driver when the call returns (Note [Copies and streams]).
  TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(d, host.data(), host.size(), cudaMemcpyHostToDevice, s));
  u.h = DevTaps{reinterpret_cast<const int64_t*>(d), reinterpret_cast<const int64_t*>(d + H),
                reinterpret_cast<const double*>(d + 2 * H)};
  d += 3 * H;
  u.w = DevTaps{reinterpret_cast<const int64_t*>(d), reinterpret_cast<const int64_t*>(d + W),
                reinterpret_cast<const double*>(d + 2 * W)};
  return u;
}

// Output element e -> (plane, oh, ow) with the launch's dividers (Note [Division by a runtime divisor]).
template <class T, class Index>
__global__ void __launch_bounds__(kThreads)
    upsample_kernel(UpsampleArgs a, DevTaps th, DevTaps tw, PlaneIndex<Index> out_index) {
  using M = opmath_t<T>;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const bool nearest = a.mode == UpsampleMode::nearest;
  const Index total = Index(a.planes * a.yh * a.yw);
  TOCHA_GRID_STRIDE(Index, e, total) {
    int64_t p, oh, ow;
    out_index.split(e, &p, &oh, &ow);
    const T* r0 = x + (p * a.xh + th.i0[oh]) * a.xw;
    if (nearest) {
      y[e] = r0[tw.i0[ow]];
      continue;
    }
    const T* r1 = x + (p * a.xh + th.i1[oh]) * a.xw;
    const M lh = M(th.lambda[oh]), kh = M(1) - lh, lw = M(tw.lambda[ow]), kw = M(1) - lw;
    const int64_t w0 = tw.i0[ow], w1 = tw.i1[ow];
    y[e] = T(kh * (kw * M(r0[w0]) + lw * M(r0[w1])) + lh * (kw * M(r1[w0]) + lw * M(r1[w1])));
  }
}

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) upsample_backward_kernel(UpsampleArgs a, DevTaps th, DevTaps tw,
                                                                     opmath_t<T>* acc, PlaneIndex<Index> out_index) {
  using M = opmath_t<T>;
  const T* y = static_cast<const T*>(a.y);
  const bool nearest = a.mode == UpsampleMode::nearest;
  const Index total = Index(a.planes * a.yh * a.yw);
  TOCHA_GRID_STRIDE(Index, e, total) {
    int64_t p, oh, ow;
    out_index.split(e, &p, &oh, &ow);
    const M g = M(y[e]);
    M* a0 = acc + (p * a.xh + th.i0[oh]) * a.xw;
    const int64_t w0 = tw.i0[ow];
    if (nearest) {
      atomicAdd(a0 + w0, g);
      continue;
    }
    M* a1 = acc + (p * a.xh + th.i1[oh]) * a.xw;
    const int64_t w1 = tw.i1[ow];
    const M lh = M(th.lambda[oh]), kh = M(1) - lh, lw = M(tw.lambda[ow]), kw = M(1) - lw;
    atomicAdd(a0 + w0, kh * kw * g);
    atomicAdd(a0 + w1, kh * lw * g);
    atomicAdd(a1 + w0, lh * kw * g);
    atomicAdd(a1 + w1, lh * lw * g);
  }
}

template <class T, class M> __global__ void __launch_bounds__(kThreads) store_kernel(T* x, const M* acc, int64_t n) {
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += int64_t(gridDim.x) * blockDim.x)
    x[e] = T(acc[e]);
}

template <class T> void upsample_cuda(const UpsampleArgs& a) {
  const char* op = "upsample2d";
  const int64_t total = a.planes * a.yh * a.yw;
  if (total == 0) return;
  const int device = device_of(a.y);
  LaunchScope scope(device);
  Uploaded u = upload_taps(op, a, device, scope.stream);
  with_index_type(total, [&](auto index) {
    using Index = decltype(index);
    upsample_kernel<T, Index><<<grid_for(total), kThreads, 0, scope.stream>>>(a, u.h, u.w,
                                                                              PlaneIndex<Index>(a.yh, a.yw));
  });
  check_launch(op);
}

template <class T> void upsample_backward_cuda(const UpsampleArgs& a) {
  using M = opmath_t<T>;
  const char* op = "upsample2dBackward";
  const int64_t xn = a.planes * a.xh * a.xw, total = a.planes * a.yh * a.yw;
  if (xn == 0) return;
  const int device = device_of(a.x);
  LaunchScope scope(device);
  Ref<Storage> acc = Storage::allocate(size_t(xn) * sizeof(M), Device{DeviceType::cuda, device});
  TOCHA_CUDA_CHECK(op, cudaMemsetAsync(acc->data(), 0, size_t(xn) * sizeof(M), scope.stream));
  if (total > 0) {
    Uploaded u = upload_taps(op, a, device, scope.stream);
    with_index_type(total, [&](auto index) {
      using Index = decltype(index);
      upsample_backward_kernel<T, Index><<<grid_for(total), kThreads, 0, scope.stream>>>(
          a, u.h, u.w, static_cast<M*>(acc->data()), PlaneIndex<Index>(a.yh, a.yw));
    });
    check_launch(op);
  }
  store_kernel<T, M><<<grid_for(xn), kThreads, 0, scope.stream>>>(static_cast<T*>(a.x), static_cast<const M*>(acc->data()), xn);
  check_launch(op);
}

#define REG_UPSAMPLE(T)                                                                   \
  TOCHA_REGISTER_KERNEL(upsample2d, cuda, DTypeOf<T>::value, &upsample_cuda<T>);          \
  TOCHA_REGISTER_KERNEL(upsample2dBackward, cuda, DTypeOf<T>::value, &upsample_backward_cuda<T>);
REG_UPSAMPLE(float)
REG_UPSAMPLE(double)
REG_UPSAMPLE(Half)
REG_UPSAMPLE(BFloat16)

}  // namespace
}  // namespace cuda
}  // namespace tocha
