// CUDA kernels of constant/reflect/replicate padding and its backward (core/ops/resample.h), for
// the CPU kernels' dtypes (kernels/cpu/pad.cpp) and with their index mapping.
//
// Note [CUDA pad backward]: several output cells can read one input cell (reflect, replicate), so
// the backward gathers instead of scattering: for each dim the wrapper builds on the host the
// inverse of the source map (for each input index, the output indices that read it, ascending)
// and uploads it; one thread per input cell then sums the product of its three lists in (d, h, w)
// order in opmath, which is the CPU loop's order: results are deterministic and equal the CPU's.
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

// The input index output index o reads along one dim (-1: the constant), as on the CPU.
__host__ __device__ __forceinline__ int64_t source_of(int64_t o, int64_t in, int64_t before, PadMode mode) {
  int64_t j = o - before;
  if (j < 0 || j >= in) {
    if (mode == PadMode::constant) j = -1;
    else if (mode == PadMode::reflect) j = j < 0 ? -j : 2 * (in - 1) - j;
    else j = j < 0 ? 0 : in - 1;
  }
  return j;
}

// Flat element e of outer x D x H x W -> (o, d, h, w), with the launch's dividers (Note [Division
// by a runtime divisor]): (plane, h, w) of planes of H x W, then plane -> (o, d).
template <class Index> struct VolumeIndex {
  PlaneIndex<Index> hw;
  Divider<Index> by_depth;
  Index depth;
  VolumeIndex(const int64_t* size) : hw(size[1], size[2]), by_depth(size[0]), depth(Index(size[0])) {}
  __device__ void split(Index e, int64_t* o, int64_t* d, int64_t* h, int64_t* w) const {
    int64_t plane;
    hw.split(e, &plane, h, w);
    const Index q = by_depth.div(Index(plane));
    *d = plane - int64_t(q) * int64_t(depth);
    *o = int64_t(q);
  }
};

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) pad_kernel(PadArgs a, T value, VolumeIndex<Index> out_index) {
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const int64_t xD = a.x_size[0], xH = a.x_size[1], xW = a.x_size[2];
  const Index total = Index(a.outer * a.y_size[0] * a.y_size[1] * a.y_size[2]);
  TOCHA_GRID_STRIDE(Index, e, total) {
    int64_t o, od, oh, ow;
    out_index.split(e, &o, &od, &oh, &ow);
    const int64_t sd = source_of(od, xD, a.before[0], a.mode), sh = source_of(oh, xH, a.before[1], a.mode),
                  sw = source_of(ow, xW, a.before[2], a.mode);
    y[e] = (sd < 0 || sh < 0 || sw < 0) ? value : x[((o * xD + sd) * xH + sh) * xW + sw];
  }
}

// Per dim: the output indices reading input index j are list[start[j] .. start[j + 1]).
struct Inverse {
  const int64_t* start[3];
  const int64_t* list[3];
};

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) pad_backward_kernel(PadArgs a, Inverse inv, VolumeIndex<Index> in_index) {
  using M = opmath_t<T>;
  T* x = static_cast<T*>(a.x);
  const T* y = static_cast<const T*>(a.y);
  const int64_t yD = a.y_size[0], yH = a.y_size[1], yW = a.y_size[2];
  const Index total = Index(a.outer * a.x_size[0] * a.x_size[1] * a.x_size[2]);
  TOCHA_GRID_STRIDE(Index, e, total) {
    int64_t o, jd, jh, jw;
    in_index.split(e, &o, &jd, &jh, &jw);
    const T* yb = y + o * yD * yH * yW;
    M acc = M(0);
    for (int64_t pd = inv.start[0][jd]; pd < inv.start[0][jd + 1]; ++pd)
      for (int64_t ph = inv.start[1][jh]; ph < inv.start[1][jh + 1]; ++ph)
        for (int64_t pw = inv.start[2][jw]; pw < inv.start[2][jw + 1]; ++pw)
          acc += M(yb[(inv.list[0][pd] * yH + inv.list[1][ph]) * yW + inv.list[2][pw]]);
    x[e] = T(acc);
  }
}

template <class T> T from_double(double v) {
  if constexpr (std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value) return T(float(v));
  else return static_cast<T>(v);
}

template <class T> void pad_cuda(const PadArgs& a) {
  const int64_t total = a.outer * a.y_size[0] * a.y_size[1] * a.y_size[2];
  if (total == 0) return;
  LaunchScope scope(device_of(a.y));
  with_index_type(total, [&](auto index) {
    using Index = decltype(index);
    pad_kernel<T, Index><<<grid_for(total), kThreads, 0, scope.stream>>>(a, from_double<T>(a.value),
                                                                         VolumeIndex<Index>(a.y_size));
  });
  check_launch("pad");
}

template <class T> void pad_backward_cuda(const PadArgs& a) {
  const char* op = "padBackward";
  const int64_t total = a.outer * a.x_size[0] * a.x_size[1] * a.x_size[2];
  if (total == 0) return;
  const int device = device_of(a.x);
  LaunchScope scope(device);
  // Host inverse maps: [start (in + 1) | list (out)] per dim, in one buffer.
  std::vector<int64_t> host;
  size_t offs[3][2];
  for (int d = 0; d < 3; ++d) {
    const int64_t in = a.x_size[d], out = a.y_size[d];
    std::vector<std::vector<int64_t>> readers(size_t(in > 0 ? in : 0));
    for (int64_t o = 0; o < out; ++o) {
      const int64_t j = source_of(o, in, a.before[d], a.mode);
      if (j >= 0) readers[size_t(j)].push_back(o);
    }
    offs[d][0] = host.size();
    int64_t at = 0;
    for (int64_t j = 0; j <= in; ++j) {
      host.push_back(at);
      if (j < in) at += int64_t(readers[size_t(j)].size());
    }
    offs[d][1] = host.size();
    for (const auto& r : readers) host.insert(host.end(), r.begin(), r.end());
  }
  Ref<Storage> buf = Storage::allocate(host.size() * sizeof(int64_t), Device{DeviceType::cuda, device});
  int64_t* dev = static_cast<int64_t*>(buf->data());
  // Pageable host memory: the driver has staged the copy when the call returns (Note [Copies and
  // streams] in allocator.cpp), so `host` may go away after it.
  TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(dev, host.data(), host.size() * sizeof(int64_t), cudaMemcpyHostToDevice,
                                       scope.stream));
  Inverse inv;
  for (int d = 0; d < 3; ++d) {
    inv.start[d] = dev + offs[d][0];
    inv.list[d] = dev + offs[d][1];
  }
  with_index_type(total, [&](auto index) {
    using Index = decltype(index);
    pad_backward_kernel<T, Index><<<grid_for(total), kThreads, 0, scope.stream>>>(a, inv, VolumeIndex<Index>(a.x_size));
  });
  check_launch(op);
}

#define REG_PAD(T) TOCHA_REGISTER_KERNEL(pad, cuda, DTypeOf<T>::value, &pad_cuda<T>);
#define REG_PAD_BACKWARD(T) TOCHA_REGISTER_KERNEL(padBackward, cuda, DTypeOf<T>::value, &pad_backward_cuda<T>);
TOCHA_FOR_ALL_TYPES(REG_PAD)
REG_PAD_BACKWARD(float) REG_PAD_BACKWARD(double) REG_PAD_BACKWARD(Half) REG_PAD_BACKWARD(BFloat16)

}  // namespace
}  // namespace cuda
}  // namespace tocha
