// CUDA kernels of layer normalization and its backward (core/ops/norm_kernels.h) for f32 and f64,
// the CPU kernels' dtypes and formulas (kernels/cpu/norm_layer.cpp): x is M rows of K values; one
// 256-thread block owns a row (shifted sums in double, then the normalized row). The weight and
// bias gradients are column sums over the rows in a fixed order (one thread per column, or split
// across blocks for many rows: Note [Layer-norm parameter gradients across blocks]), so they are
// deterministic and need no atomics.
#include <algorithm>
#include "core/kernel_registry.h"
#include "core/ops/norm_kernels.h"
#include "core/storage.h"
#include "kernels/cuda/block_sums.cuh"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

template <class T> __global__ void __launch_bounds__(kThreads) layer_norm_kernel(LayerNormArgs a) {
  const int64_t K = a.k;
  const T* w = static_cast<const T*>(a.weight);
  const T* b = static_cast<const T*>(a.bias);
  for (int64_t r = blockIdx.x; r < a.m; r += gridDim.x) {
    const T* p = static_cast<const T*>(a.x) + r * K;
    T* y = static_cast<T*>(a.y) + r * K;
    const double shift = K > 0 ? double(p[0]) : 0.0;
    double s = 0, ss = 0;
    for (int64_t i = threadIdx.x; i < K; i += blockDim.x) {
      const double d = double(p[i]) - shift;
      s += d;
      ss += d * d;
    }
    block_sums(s, ss, &s, &ss);
    double mu = 0, var = 0;
    if (K > 0) {
      const double dm = s / double(K), v = ss / double(K) - dm * dm;
      mu = shift + dm;
      var = v > 0 ? v : 0;
    }
    const double is = 1 / sqrt(var + a.eps);
    if (threadIdx.x == 0) {
      static_cast<T*>(a.save_mean)[r] = T(mu);
      static_cast<T*>(a.save_invstd)[r] = T(is);
    }
    const T m = T(mu), st = T(is);
    for (int64_t i = threadIdx.x; i < K; i += blockDim.x) {
      T v = (p[i] - m) * st;
      if (w) v = v * w[i];
      if (b) v = v + b[i];
      y[i] = v;
    }
  }
}

// grad_input rows: gi = (g * w - k1 - (x - m) * k2) * is with k1 = mean(g * w) and
// k2 = mean(g * w * (x - m)) * is^2.
template <class T> __global__ void __launch_bounds__(kThreads) layer_norm_grad_input_kernel(LayerNormBackwardArgs a) {
  const int64_t K = a.k;
  const T* w = static_cast<const T*>(a.weight);
  for (int64_t r = blockIdx.x; r < a.m; r += gridDim.x) {
    const T* g = static_cast<const T*>(a.grad_out) + r * K;
    const T* x = static_cast<const T*>(a.x) + r * K;
    T* gi = static_cast<T*>(a.grad_input) + r * K;
    const double m = double(static_cast<const T*>(a.mean)[r]), is = double(static_cast<const T*>(a.invstd)[r]);
    double s1 = 0, s2 = 0;
    for (int64_t i = threadIdx.x; i < K; i += blockDim.x) {
      const double gy = w ? double(g[i]) * double(w[i]) : double(g[i]);
      s1 += gy;
      s2 += gy * (double(x[i]) - m);
    }
    block_sums(s1, s2, &s1, &s2);
    const T mt = T(m), k1 = T(s1 / double(K)), k2 = T(s2 / double(K) * is * is), ist = T(is);
    for (int64_t i = threadIdx.x; i < K; i += blockDim.x) {
      const T gy = w ? g[i] * w[i] : g[i];
      gi[i] = (gy - k1 - (x[i] - mt) * k2) * ist;
    }
  }
}

// grad_weight[c] += scale * sum_r g * (x - m) * is; grad_bias[c] += scale * sum_r g.
template <class T> __global__ void __launch_bounds__(kThreads) layer_norm_params_kernel(LayerNormBackwardArgs a) {
  const T* g = static_cast<const T*>(a.grad_out);
  const T* x = static_cast<const T*>(a.x);
  const T* mean = static_cast<const T*>(a.mean);
  const T* invstd = static_cast<const T*>(a.invstd);
  T* gw = static_cast<T*>(a.grad_weight);
  T* gb = static_cast<T*>(a.grad_bias);
  for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < a.k; c += int64_t(gridDim.x) * blockDim.x) {
    double sw = 0, sb = 0;
    for (int64_t r = 0; r < a.m; ++r) {
      const double gv = double(g[r * a.k + c]);
      sw += gv * (double(x[r * a.k + c]) - double(mean[r])) * double(invstd[r]);
      sb += gv;
    }
    if (gw) gw[c] = T(double(gw[c]) + a.scale * sw);
    if (gb) gb[c] = T(double(gb[c]) + a.scale * sb);
  }
}

// Note [Layer-norm parameter gradients across blocks]: one thread per column walking all M rows
// gave a transformer's K = 512 columns two blocks for the whole GPU, each thread with one load in
// flight. With many rows, block (column block, split) sums one split of the rows per column in
// row order, four rows' loads in flight, into double partials; a second pass adds each column's
// partials in split order. The order is fixed, so the result stays deterministic.
constexpr int64_t kMinRowsPerSplit = 64;

template <class T>
__global__ void __launch_bounds__(kThreads)
    layer_norm_params_partial_kernel(LayerNormBackwardArgs a, int64_t rows_per_split, double2* partial) {
  const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= a.k) return;
  const T* g = static_cast<const T*>(a.grad_out);
  const T* x = static_cast<const T*>(a.x);
  const T* mean = static_cast<const T*>(a.mean);
  const T* invstd = static_cast<const T*>(a.invstd);
  const int64_t r0 = int64_t(blockIdx.y) * rows_per_split;
  const int64_t r1 = r0 + rows_per_split < a.m ? r0 + rows_per_split : a.m;
  double sw = 0, sb = 0;
  int64_t r = r0;
  for (; r + 3 < r1; r += 4) {
    double gv[4], xv[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      gv[u] = double(g[(r + u) * a.k + c]);
      xv[u] = double(x[(r + u) * a.k + c]);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      sw += gv[u] * (xv[u] - double(mean[r + u])) * double(invstd[r + u]);
      sb += gv[u];
    }
  }
  for (; r < r1; ++r) {
    const double gv = double(g[r * a.k + c]);
    sw += gv * (double(x[r * a.k + c]) - double(mean[r])) * double(invstd[r]);
    sb += gv;
  }
  partial[int64_t(blockIdx.y) * a.k + c] = make_double2(sw, sb);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    layer_norm_params_finalize_kernel(LayerNormBackwardArgs a, int splits, const double2* partial) {
  T* gw = static_cast<T*>(a.grad_weight);
  T* gb = static_cast<T*>(a.grad_bias);
  for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < a.k; c += int64_t(gridDim.x) * blockDim.x) {
    double sw = 0, sb = 0;
    for (int s = 0; s < splits; ++s) {
      sw += partial[s * a.k + c].x;
      sb += partial[s * a.k + c].y;
    }
    if (gw) gw[c] = T(double(gw[c]) + a.scale * sw);
    if (gb) gb[c] = T(double(gb[c]) + a.scale * sb);
  }
}

template <class T> void layer_norm_params_split(const char* op, const LayerNormBackwardArgs& a, int device,
                                                cudaStream_t stream) {
  const int64_t col_blocks = (a.k + kThreads - 1) / kThreads;
  const int64_t target = 8 * int64_t(properties(device).multiProcessorCount);
  int64_t splits = std::max<int64_t>(1, std::min((target + col_blocks - 1) / col_blocks, a.m / kMinRowsPerSplit));
  splits = std::min<int64_t>(splits, 65535);
  const int64_t rows_per_split = (a.m + splits - 1) / splits;
  splits = (a.m + rows_per_split - 1) / rows_per_split;
  Ref<Storage> ws = Storage::allocate(size_t(splits * a.k) * sizeof(double2), Device{DeviceType::cuda, device});
  double2* partial = static_cast<double2*>(ws->data());
  layer_norm_params_partial_kernel<T>
      <<<dim3(unsigned(col_blocks), unsigned(splits)), kThreads, 0, stream>>>(a, rows_per_split, partial);
  check_launch(op);
  layer_norm_params_finalize_kernel<T><<<grid_for(a.k), kThreads, 0, stream>>>(a, int(splits), partial);
  check_launch(op);
}

unsigned row_grid(int64_t m) { return unsigned(m < kMaxBlocks ? (m > 0 ? m : 1) : kMaxBlocks); }

template <class T> void layer_norm_cuda(const LayerNormArgs& a) {
  if (a.m == 0) return;
  LaunchScope scope(device_of(a.save_mean));
  layer_norm_kernel<T><<<row_grid(a.m), kThreads, 0, scope.stream>>>(a);
  check_launch("layerNorm");
}
template <class T> void layer_norm_backward_cuda(const LayerNormBackwardArgs& a) {
  if (a.m == 0 || a.k == 0) return;
  const char* op = "layerNormBackward";
  LaunchScope scope(device_of(a.mean));
  if (a.grad_input) {
    layer_norm_grad_input_kernel<T><<<row_grid(a.m), kThreads, 0, scope.stream>>>(a);
    check_launch(op);
  }
  if ((a.grad_weight || a.grad_bias) && a.m >= 2 * kMinRowsPerSplit) {
    layer_norm_params_split<T>(op, a, device_of(a.mean), scope.stream);
  } else if (a.grad_weight || a.grad_bias) {
    layer_norm_params_kernel<T><<<grid_for(a.k), kThreads, 0, scope.stream>>>(a);
    check_launch(op);
  }
}

TOCHA_REGISTER_KERNEL(layerNorm, cuda, DType::f32, &layer_norm_cuda<float>);
TOCHA_REGISTER_KERNEL(layerNorm, cuda, DType::f64, &layer_norm_cuda<double>);
TOCHA_REGISTER_KERNEL(layerNormBackward, cuda, DType::f32, &layer_norm_backward_cuda<float>);
TOCHA_REGISTER_KERNEL(layerNormBackward, cuda, DType::f64, &layer_norm_backward_cuda<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
