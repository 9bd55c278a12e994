// The channel bias add of convolutions (kernels/cuda/channel_bias.h). One flat pass, a vector of
// four f32 per thread when the planes allow it; the channel of element i is (i / inner) % channels
// with the launch's dividers (Note [Division by a runtime divisor]).
//
// Note [Convolution bias]: cuDNN's cudnnAddTensor did this at 2.2 TB/s on an H100 (93 us of the
// 186 us forward of a 1024x32x28x28 convolution), below what a plain pass over the same bytes
// reaches (our contiguous add: 2.7-2.8 TB/s). PyTorch adds the bias with its own broadcasting
// kernel too.
#include "core/dtype.h"
#include "core/error.h"
#include "core/half.h"
#include "kernels/cuda/channel_bias.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/fast_divide.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Element runs of kVec (one vector load and store each) never cross a plane: inner % kVec == 0.
template <class T, int kVec> struct alignas(sizeof(T) * kVec) Run {
  T v[kVec];
};

template <class T, int kVec, class Index>
__global__ void __launch_bounds__(kThreads)
    channel_bias_kernel(T* out, const T* bias, Index runs, Divider<Index> by_plane_runs, Divider<Index> by_channels,
                        Index channels) {
  using M = opmath_t<T>;
  Run<T, kVec>* o = reinterpret_cast<Run<T, kVec>*>(out);
  TOCHA_GRID_STRIDE(Index, r, runs) {
    const Index plane = by_plane_runs.div(r), c = plane - by_channels.div(plane) * channels;
    const M b = M(bias[c]);
    Run<T, kVec> x = o[r];
#pragma unroll
    for (int k = 0; k < kVec; ++k) x.v[k] = T(M(x.v[k]) + b);
    o[r] = x;
  }
}

template <class T, int kVec, class Index>
void launch(T* out, const T* bias, int64_t n, int64_t channels, int64_t inner, cudaStream_t s) {
  const int64_t runs = n / kVec;
  channel_bias_kernel<T, kVec, Index><<<grid_for(runs), kThreads, 0, s>>>(
      out, bias, Index(runs), Divider<Index>(inner / kVec), Divider<Index>(channels), Index(channels));
}

template <class T>
void add_typed(T* out, const T* bias, int64_t outer, int64_t channels, int64_t inner, cudaStream_t s) {
  const int64_t n = outer * channels * inner;
  const bool vec4 = sizeof(T) == 4 && inner % 4 == 0 && reinterpret_cast<uintptr_t>(out) % 16 == 0;
  with_index_type(n, [&](auto index) {
    using Index = decltype(index);
    if constexpr (sizeof(T) == 4) {
      if (vec4) return launch<T, 4, Index>(out, bias, n, channels, inner, s);
    }
    launch<T, 1, Index>(out, bias, n, channels, inner, s);
  });
}

}  // namespace

void add_channel_bias(const char* op, DType dt, void* out, const void* bias, int64_t outer, int64_t channels,
                      int64_t inner) {
  if (outer * channels * inner == 0) return;
  cudaStream_t s = stream(device_of(out));
  switch (dt) {
    case DType::f32: add_typed(static_cast<float*>(out), static_cast<const float*>(bias), outer, channels, inner, s); break;
    case DType::f64: add_typed(static_cast<double*>(out), static_cast<const double*>(bias), outer, channels, inner, s); break;
    case DType::f16: add_typed(static_cast<Half*>(out), static_cast<const Half*>(bias), outer, channels, inner, s); break;
    case DType::bf16:
      add_typed(static_cast<BFloat16*>(out), static_cast<const BFloat16*>(bias), outer, channels, inner, s);
      break;
    default: fail(op, "no CUDA bias kernel for ", dtype_name(dt));
  }
  check_launch(op);
}

}  // namespace cuda
}  // namespace tocha
