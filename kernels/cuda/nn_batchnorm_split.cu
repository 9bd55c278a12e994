// Batch normalization across blocks (kernels/cuda/nn_batchnorm_split.h).
//
// Note [Batch norm across blocks]: nn_batchnorm.cu gives each channel one 256-thread block that
// reads the channel's N*L values one load per thread at a time. With the 32 channels of a CNN's
// first layer at batch 1024 that is 32 blocks on a 132-SM GPU, each with about 1 KB of loads in
// flight: a few GB/s where the GPU has 3 TB/s. Here a channel's values are cut into splits of
// whole 2048-value chunks and each (split, channel) block folds its part with four loads in
// flight per thread, writing a partial (sum, sum of squares) in double; one thread per channel
// then adds its partials in order and derives the channel's constants (with the same shifted
// sums, formulas and rounding points as the one-block kernels, Note [Shifted sums]), and an
// elementwise pass over all N*C*L values applies them (channel = (i / L) % C with the launch's
// dividers, Note [Division by a runtime divisor]). The backward is the same three steps.
#include <algorithm>
#include "core/storage.h"
#include "kernels/cuda/batch_norm_running.cuh"
#include "kernels/cuda/block_sums.cuh"
#include "kernels/cuda/check.h"
#include "kernels/cuda/fast_divide.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/nn_batchnorm_split.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

constexpr int64_t kChunk = kThreads * 8;  // values per split are a multiple of this
constexpr int kInFlight = 4;              // loads per thread before they are added

// The splits of one launch: channel c's values j = n*L + l in [split*per_split, ...) belong to
// block (split, c).
template <class Index> struct Splits {
  Index m, l, c, per_split;
  Divider<Index> by_l;
  int count;
};

template <class Index> Splits<Index> splits_for(int64_t n, int64_t c, int64_t l, int device) {
  const int64_t m = n * l;
  const int64_t target = 4 * int64_t(properties(device).multiProcessorCount) * 2;  // blocks in all
  int64_t count = std::max<int64_t>(1, (target + c - 1) / c);
  count = std::min<int64_t>(count, (m + kChunk - 1) / kChunk);
  const int64_t per = (m + count - 1) / count, per_split = (per + kChunk - 1) / kChunk * kChunk;
  count = int((m + per_split - 1) / per_split);
  return Splits<Index>{Index(m), Index(l), Index(c), Index(per_split), Divider<Index>(l), int(count)};
}

// Element j of channel c (j = n*L + l) in the N x C x L layout.
template <class Index> __device__ __forceinline__ int64_t at(const Splits<Index>& sp, Index j, int64_t c) {
  const Index n = sp.by_l.div(j);
  return (int64_t(n) * int64_t(sp.c) + c) * int64_t(sp.l) + int64_t(j - n * sp.l);
}

// Sums f(value index) of block (split, channel) into partial[channel * count + split].
template <class Index, class F>
__device__ void fold_split(const Splits<Index>& sp, double2* partial, F f) {
  const int64_t c = blockIdx.y;
  const Index begin = Index(blockIdx.x) * sp.per_split;
  const Index end = begin + sp.per_split < sp.m ? begin + sp.per_split : sp.m;
  double s1 = 0, s2 = 0;
  Index j = begin + threadIdx.x;
  for (; j + (kInFlight - 1) * kThreads < end; j += kInFlight * kThreads) {
    double2 v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) v[u] = f(at(sp, Index(j + u * kThreads), c));
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      s1 += v[u].x;
      s2 += v[u].y;
    }
  }
  for (; j < end; j += kThreads) {
    const double2 v = f(at(sp, j, c));
    s1 += v.x;
    s2 += v.y;
  }
  block_sums(s1, s2, &s1, &s2);
  if (threadIdx.x == 0) partial[c * sp.count + blockIdx.x] = make_double2(s1, s2);
}

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) batch_norm_stats_kernel(Splits<Index> sp, const T* x, double2* partial) {
  const double shift = double(x[int64_t(blockIdx.y) * int64_t(sp.l)]);  // the channel's first value
  fold_split(sp, partial, [&](int64_t o) {
    const double d = double(x[o]) - shift;
    return make_double2(d, d * d);
  });
}

// Per channel: statistics, running stats, saved mean/invstd and (mean, scale, offset) in coef.
template <class T>
__global__ void __launch_bounds__(kThreads) batch_norm_finalize_kernel(BatchNormArgs a, const double2* partial, int count,
                                                            T* coef) {
  const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, C = a.c, M = a.n * a.l;
  if (c >= C) return;
  const T* x = static_cast<const T*>(a.x);
  T* rm = static_cast<T*>(a.running_mean);
  T* rv = static_cast<T*>(a.running_var);
  double mu, var;
  if (a.training) {
    double s = 0, ss = 0;
    for (int k = 0; k < count; ++k) {
      s += partial[c * count + k].x;
      ss += partial[c * count + k].y;
    }
    const double shift = double(x[c * a.l]), dm = s / double(M), v = ss / double(M) - dm * dm;
    mu = shift + dm;
    var = v > 0 ? v : 0;
    if (rm) update_running_stats(rm, rv, c, mu, var, M, a.momentum);
  } else {
    mu = double(rm[c]);
    var = double(rv[c]);
  }
  const double invstd = 1 / sqrt(var + a.eps);
  static_cast<T*>(a.save_mean)[c] = T(mu);
  static_cast<T*>(a.save_invstd)[c] = T(invstd);
  const T* w = static_cast<const T*>(a.weight);
  const T* b = static_cast<const T*>(a.bias);
  coef[c] = T(mu);
  coef[C + c] = T(invstd * (w ? double(w[c]) : 1.0));
  coef[2 * C + c] = b ? b[c] : T(0);
}

// Element i of the N x C x L tensor -> its channel.
template <class Index> struct ChannelOf {
  Divider<Index> by_l, by_c;
  Index c;
  __device__ __forceinline__ int64_t operator()(Index i) const {
    const Index q = by_l.div(i);
    return int64_t(q - by_c.div(q) * c);
  }
};

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) batch_norm_apply_kernel(const T* x, T* y, const T* coef, Index total,
                                                         ChannelOf<Index> channel) {
  const int64_t C = int64_t(channel.c);
  TOCHA_GRID_STRIDE(Index, i, total) {
    const int64_t c = channel(i);
    y[i] = (x[i] - coef[c]) * coef[C + c] + coef[2 * C + c];
  }
}

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) batch_norm_grad_sums_kernel(Splits<Index> sp, const T* g, const T* x, const T* mean,
                                                             double2* partial) {
  const double m = double(mean[blockIdx.y]);
  fold_split(sp, partial, [&](int64_t o) {
    const double gv = double(g[o]);
    return make_double2(gv, gv * (double(x[o]) - m));
  });
}

// Per channel: weight and bias gradients, and (mean, k1, k2, k3) for the input gradient in coef.
template <class T>
__global__ void __launch_bounds__(kThreads) batch_norm_finalize_backward_kernel(BatchNormBackwardArgs a, const double2* partial,
                                                                     int count, T* coef) {
  const int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, C = a.c, M = a.n * a.l;
  if (c >= C) return;
  const double is = double(static_cast<const T*>(a.invstd)[c]);
  double sg = 0, sgx = 0;
  for (int k = 0; partial && k < count; ++k) {
    sg += partial[c * count + k].x;
    sgx += partial[c * count + k].y;
  }
  T* gw = static_cast<T*>(a.grad_weight);
  T* gb = static_cast<T*>(a.grad_bias);
  if (gw) gw[c] = T(double(gw[c]) + a.scale * sgx * is);
  if (gb) gb[c] = T(double(gb[c]) + a.scale * sg);
  const T* w = static_cast<const T*>(a.weight);
  coef[c] = static_cast<const T*>(a.mean)[c];
  coef[C + c] = a.training ? T(sg / double(M)) : T(0);
  coef[2 * C + c] = a.training ? T(sgx / double(M) * is * is) : T(0);
  coef[3 * C + c] = T(is * (w ? double(w[c]) : 1.0));
}

template <class T, class Index>
__global__ void __launch_bounds__(kThreads) batch_norm_apply_backward_kernel(const T* g, const T* x, T* gi, const T* coef,
                                                                  Index total, ChannelOf<Index> channel) {
  const int64_t C = int64_t(channel.c);
  TOCHA_GRID_STRIDE(Index, i, total) {
    const int64_t c = channel(i);
    gi[i] = ((g[i] - coef[C + c]) - (x[i] - coef[c]) * coef[2 * C + c]) * coef[3 * C + c];
  }
}

// Workspace: count partials per channel, then `per_channel` constants of type T per channel.
struct Workspace {
  Ref<Storage> buf;
  double2* partial;
  void* coef;
  Workspace(int64_t c, int count, int per_channel, size_t elsize, int device) {
    const size_t pbytes = size_t(c) * size_t(count) * sizeof(double2);
    buf = Storage::allocate(pbytes + size_t(c) * size_t(per_channel) * elsize, Device{DeviceType::cuda, device});
    partial = static_cast<double2*>(buf->data());
    coef = static_cast<char*>(buf->data()) + pbytes;
  }
};

}  // namespace

bool batch_norm_wants_split(int64_t c, int64_t m) { return m >= 2 * kChunk && c <= 65535; }

template <class T> void batch_norm_split(const BatchNormArgs& a, int device, cudaStream_t s) {
  const char* op = "batchNorm";
  const int64_t total = a.n * a.c * a.l;
  with_index_type(total, [&](auto index) {
    using Index = decltype(index);
    const Splits<Index> sp = splits_for<Index>(a.n, a.c, a.l, device);
    Workspace ws(a.c, sp.count, 3, sizeof(T), device);
    if (a.training) {
      batch_norm_stats_kernel<T, Index><<<dim3(unsigned(sp.count), unsigned(a.c)), kThreads, 0, s>>>(
          sp, static_cast<const T*>(a.x), ws.partial);
      check_launch(op);
    }
    batch_norm_finalize_kernel<T><<<grid_for(a.c), kThreads, 0, s>>>(a, ws.partial, sp.count, static_cast<T*>(ws.coef));
    check_launch(op);
    batch_norm_apply_kernel<T, Index><<<grid_for(total), kThreads, 0, s>>>(
        static_cast<const T*>(a.x), static_cast<T*>(a.y), static_cast<const T*>(ws.coef), Index(total),
        ChannelOf<Index>{Divider<Index>(a.l), Divider<Index>(a.c), Index(a.c)});
    check_launch(op);
  });
}

template <class T> void batch_norm_backward_split(const BatchNormBackwardArgs& a, int device, cudaStream_t s) {
  const char* op = "batchNormBackward";
  const int64_t total = a.n * a.c * a.l;
  const bool sums = a.grad_weight || a.grad_bias || (a.grad_input && a.training);
  with_index_type(total, [&](auto index) {
    using Index = decltype(index);
    const Splits<Index> sp = splits_for<Index>(a.n, a.c, a.l, device);
    Workspace ws(a.c, sp.count, 4, sizeof(T), device);
    if (sums) {
      batch_norm_grad_sums_kernel<T, Index><<<dim3(unsigned(sp.count), unsigned(a.c)), kThreads, 0, s>>>(
          sp, static_cast<const T*>(a.grad_out), static_cast<const T*>(a.x), static_cast<const T*>(a.mean),
          ws.partial);
      check_launch(op);
    }
    batch_norm_finalize_backward_kernel<T><<<grid_for(a.c), kThreads, 0, s>>>(a, sums ? ws.partial : nullptr, sp.count,
                                                                        static_cast<T*>(ws.coef));
    check_launch(op);
    if (!a.grad_input) return;
    batch_norm_apply_backward_kernel<T, Index><<<grid_for(total), kThreads, 0, s>>>(
        static_cast<const T*>(a.grad_out), static_cast<const T*>(a.x), static_cast<T*>(a.grad_input),
        static_cast<const T*>(ws.coef), Index(total), ChannelOf<Index>{Divider<Index>(a.l), Divider<Index>(a.c), Index(a.c)});
    check_launch(op);
  });
}

template void batch_norm_split<float>(const BatchNormArgs&, int, cudaStream_t);
template void batch_norm_split<double>(const BatchNormArgs&, int, cudaStream_t);
template void batch_norm_backward_split<float>(const BatchNormBackwardArgs&, int, cudaStream_t);
template void batch_norm_backward_split<double>(const BatchNormBackwardArgs&, int, cudaStream_t);

}  // namespace cuda
}  // namespace tocha
