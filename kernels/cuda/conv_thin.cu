// Direct kernels for thin-filter 2-D convolutions, f32 (kernels/cuda/conv_thin.h).
//
// Note [Thin-filter convolutions]: a first convolution layer has few taps per filter (a 3x3
// filter over 1 or 3 channels: 9 or 27) and writes or reads a large output (the CNN bench's conv1:
// 1024x32x28x28, 103 MB). cuDNN spent 93 us on its forward without the bias (another 93 us) and
// about 190 us on its weight gradient on an H100 (third session), where moving the output once
// takes ~35 us. Its algorithms are GEMMs whose reduction (taps) is too short to pay for their
// tiling, or whose output (out_channels x taps = 288 values) is too small to spread over the GPU.
// Here each thread takes output positions (n, oh, ow) and keeps the input values under the taps
// of its position in registers (they are read from L1/L2: the input is 1/out_channels of the
// output's size), then:
// - forward: for every output channel, the dot product with that channel's filter (all filters
//   and biases sit in shared memory, zero-padded to 12, 16 or 32 taps and read as float4
//   broadcasts: a quarter of the shared-memory loads of one per tap) plus the bias, one coalesced
//   store each: the bias costs nothing extra and the output is written once;
// - weight gradient: blocks own a tile of OT output channels and accumulate dy * input for
//   OT x taps weights in registers over their positions; warp shuffles and shared memory fold a
//   block into one partial per weight, and a second kernel adds the blocks' partials in a fixed
//   order (deterministic, like the CPU) and applies alpha and beta. dy is read once in all, for the
//   bias gradient too when asked (Note [Fused bias gradient]).
// Sums run in f32 in a different order than cuDNN's or the CPU's (ulp-level differences).
// Taken for f32, one group, 2-D, at most kThinMaxTaps taps and kThinMaxWeights weights and biases;
// TOCHA_CUDA_THIN_CONV=0 sends every convolution to cuDNN.
#include <algorithm>
#include <type_traits>
#include "core/device.h"
#include "core/device_runtime.h"
#include "core/error.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/conv_thin.h"
#include "kernels/cuda/conv_thin_math.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Filters and biases of all output channels, in floats (16 KiB of shared memory in the forward).
constexpr int64_t kThinMaxWeights = 4096;
constexpr int kWarps = kThreads / 32;

bool thin_enabled() {
  static const bool on = env_flag("TOCHA_CUDA_THIN_CONV", true);
  return on;
}

// The taps of a position, in registers (R >= t.taps; the rest are 0).
template <int R>
__device__ __forceinline__ void gather_taps(const ThinConv& t, const float* __restrict__ x, const ThinPosition& q,
                                            float (&in)[R]) {
#pragma unroll
  for (int k = 0; k < R; ++k) in[k] = k < t.taps ? thin_tap(t, x, q, k) : 0.f;
}

// R = thin_filter_stride(taps): filter o sits at filters[o * R], zero-padded, read as R / 4 float4s.
template <int R>
__global__ void __launch_bounds__(kThreads)
    thin_forward_kernel(float* __restrict__ y, const float* __restrict__ x, const float* __restrict__ w,
                        const float* __restrict__ b, ThinConv t) {
  static_assert(R % 4 == 0, "filters are read as float4");
  extern __shared__ float4 filters4[];  // out_channels padded filters, then out_channels biases
  float* filters = reinterpret_cast<float*>(filters4);
  const uint32_t nw = t.out_channels * uint32_t(R);
  float* bias = filters + nw;
  for (uint32_t i = threadIdx.x; i < nw; i += blockDim.x) {
    const uint32_t o = i / R, k = i - o * R;
    filters[i] = k < uint32_t(t.taps) ? w[o * uint32_t(t.taps) + k] : 0.f;
  }
  for (uint32_t i = threadIdx.x; i < t.out_channels; i += blockDim.x) bias[i] = b ? b[i] : 0.f;
  __syncthreads();
  TOCHA_GRID_STRIDE(uint32_t, p, t.positions) {
    const ThinPosition q = thin_position(t, p);
    float in[R];
    gather_taps(t, x, q, in);  // 0 past the taps, where the filters hold 0 too
    const float4* f = filters4;
    for (uint32_t o = 0; o < t.out_channels; ++o, f += R / 4) {
      float acc = bias[o];
#pragma unroll
      for (int k = 0; k < R / 4; ++k) {
        const float4 v = f[k];
        acc = fmaf(v.x, in[4 * k], acc);
        acc = fmaf(v.y, in[4 * k + 1], acc);
        acc = fmaf(v.z, in[4 * k + 2], acc);
        acc = fmaf(v.w, in[4 * k + 3], acc);
      }
      y[q.y_index + o * t.out_plane] = acc;
    }
  }
}

// Block (bx, by): positions bx, bx + gridDim.x, ... for output channels by*OT .. by*OT + OT - 1;
// writes partial[bx * width + o * taps + k], and with a bias partial[bx * width + out_channels *
// taps + o] (the sum of dy: Note [Fused bias gradient]), width = out_channels * (taps + bias).
template <int R, int OT, bool Bias>
__global__ void __launch_bounds__(kThreads)
    thin_weight_kernel(float* __restrict__ partial, const float* __restrict__ x, const float* __restrict__ dy,
                       ThinConv t) {
  const uint32_t o0 = blockIdx.y * OT;
  float acc[OT][R], bacc[OT];
#pragma unroll
  for (int j = 0; j < OT; ++j) {
    bacc[j] = 0.f;
#pragma unroll
    for (int k = 0; k < R; ++k) acc[j][k] = 0.f;
  }
  TOCHA_GRID_STRIDE(uint32_t, p, t.positions) {
    const ThinPosition q = thin_position(t, p);
    float in[R];
    gather_taps(t, x, q, in);
#pragma unroll
    for (int j = 0; j < OT; ++j) {
      if (o0 + j < t.out_channels) {
        const float g = dy[q.y_index + (o0 + j) * t.out_plane];
        if (Bias) bacc[j] += g;
#pragma unroll
        for (int k = 0; k < R; ++k) acc[j][k] = fmaf(g, in[k], acc[j][k]);  // taps >= t.taps never leave
      }
    }
  }
  __shared__ float folded[kWarps][OT * (R + 1)];  // per warp: OT x R weights, then OT biases
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int j = 0; j < OT; ++j) {
#pragma unroll
    for (int k = 0; k < R; ++k) {
      float v = acc[j][k];
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
      if (lane == 0) folded[warp][j * R + k] = v;
    }
    if (Bias) {
      float v = bacc[j];
#pragma unroll
      for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
      if (lane == 0) folded[warp][OT * R + j] = v;
    }
  }
  __syncthreads();
  const uint32_t taps = uint32_t(t.taps), weights = t.out_channels * taps;
  const size_t row = size_t(blockIdx.x) * (weights + (Bias ? t.out_channels : 0u));
  const int items = OT * (t.taps + (Bias ? 1 : 0));
  for (int i = threadIdx.x; i < items; i += blockDim.x) {
    const bool is_bias = i >= OT * t.taps;
    const int j = is_bias ? i - OT * t.taps : i / t.taps, k = is_bias ? 0 : i - j * t.taps;
    if (o0 + j >= t.out_channels) continue;
    float s = 0.f;
    for (int v = 0; v < kWarps; ++v) s += folded[v][is_bias ? OT * R + j : j * R + k];
    partial[row + (is_bias ? weights + o0 + j : (o0 + j) * taps + uint32_t(k))] = s;
  }
}

// r = beta * r + alpha * (sum of the blocks' partials), the blocks in order, for r = w[i] (i < n)
// or the bias gradient b[i - n] (n <= i < width).
__global__ void __launch_bounds__(kThreads)
    thin_weight_finish(float* __restrict__ w, float* __restrict__ b, const float* __restrict__ partial,
                       uint32_t blocks, uint32_t n, uint32_t width, float alpha, float beta) {
  TOCHA_GRID_STRIDE(uint32_t, i, width) {
    float s = 0.f;
    for (uint32_t k = 0; k < blocks; ++k) s += partial[size_t(k) * width + i];
    float& r = i < n ? w[i] : b[i - n];
    r = beta == 0.f ? alpha * s : fmaf(beta, r, alpha * s);  // r unread when beta == 0
  }
}

// Calls launch(std::integral_constant<int, R>{}) with R = width, which must be one of Widths (the
// register widths a kernel is compiled for).
template <int... Widths, class Launch> void with_width(int width, Launch&& launch) {
  const bool found = ((width == Widths && (launch(std::integral_constant<int, Widths>{}), true)) || ...);
  TOCHA_ASSERT(found);
}

}  // namespace

bool thin_conv_applies(DType dt, const ConvGeometry& g) {
  return dt == DType::f32 && thin_enabled() && thin_conv_fits(g, kThinMaxWeights);
}

void thin_conv_forward(const ConvArgs& a) {
  const ThinConv t = thin_conv_of(a.g);
  const int device = device_of(a.out);
  cudaStream_t s = stream(device);
  const int stride = thin_filter_stride(t.taps);
  const size_t shared = (size_t(t.out_channels) * size_t(stride + 1)) * sizeof(float);
  // Every block copies all filters to shared memory: a few waves of blocks, not one per 256 positions.
  const int64_t waves = 16 * int64_t(properties(device).multiProcessorCount);
  const unsigned blocks = unsigned(std::min<int64_t>(grid_for(t.positions), waves));
  with_width<12, 16, kThinMaxTaps>(stride, [&](auto width) {
    constexpr int R = decltype(width)::value;
    thin_forward_kernel<R><<<blocks, kThreads, shared, s>>>(
        static_cast<float*>(a.out), static_cast<const float*>(a.x), static_cast<const float*>(a.w),
        static_cast<const float*>(a.b), t);
  });
  check_launch("conv");
}

void thin_conv_weight(const ConvArgs& a) {
  const ThinConv t = thin_conv_of(a.g);
  const int device = device_of(a.out);
  cudaStream_t s = stream(device);
  const uint32_t n = t.out_channels * uint32_t(t.taps);
  const bool bias = a.bias_grad != nullptr;
  const uint32_t row = n + (bias ? t.out_channels : 0u);  // a block's partials
  // Register width: taps rounded up to 9, 16 or 32.
  with_width<9, 16, kThinMaxTaps>(t.taps <= 9 ? 9 : t.taps <= 16 ? 16 : kThinMaxTaps, [&](auto width) {
    constexpr int R = decltype(width)::value;
    // OT x R accumulators per thread (64-72 registers), and OT more for a bias
    constexpr int OT = R == 9 ? 8 : R == 16 ? 4 : 2;
    const unsigned tiles = unsigned((t.out_channels + OT - 1) / OT);
    // Enough blocks for about four per SM in all, each thread taking several positions.
    const int64_t target = 4 * int64_t(properties(device).multiProcessorCount);
    int64_t bx = (target + tiles - 1) / tiles;
    bx = std::max<int64_t>(1, std::min<int64_t>(bx, int64_t(grid_for(t.positions))));
    Ref<Storage> buf = Storage::allocate(size_t(bx) * row * sizeof(float), Device{DeviceType::cuda, device});
    float* partial = static_cast<float*>(buf->data());
    const dim3 grid(unsigned(bx), tiles);
    const float* x = static_cast<const float*>(a.x);
    const float* dy = static_cast<const float*>(a.y);
    if (bias) thin_weight_kernel<R, OT, true><<<grid, kThreads, 0, s>>>(partial, x, dy, t);
    else thin_weight_kernel<R, OT, false><<<grid, kThreads, 0, s>>>(partial, x, dy, t);
    thin_weight_finish<<<grid_for(row), kThreads, 0, s>>>(static_cast<float*>(a.out),
                                                           static_cast<float*>(a.bias_grad), partial, uint32_t(bx),
                                                           n, row, float(a.alpha), float(a.beta));
  });
  check_launch("convWeight");
  a.bias_written = bias;
}

}  // namespace cuda
}  // namespace tocha
