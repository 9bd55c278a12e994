// CUDA kernels of batch normalization and its backward (core/ops/norm_kernels.h) for f32 and f64,
// the CPU kernels' dtypes. x is N x C x L; for channels of few values one 256-thread block owns a
// channel: it folds the channel's N*L values with cub::BlockReduce (statistics in double, over
// values shifted by the channel's first value as on the CPU, Note [Shifted sums] in
// kernels/cpu/norm_loops.h), then normalizes them, so forward and backward are one launch each.
// Larger channels take nn_batchnorm_split.cu (Note [Batch norm across blocks]).
//
// Note [Batch norm without cuDNN]: cuDNN's batch-norm calls would need eps >= CUDNN_BN_MIN_EPSILON,
// a weight and a bias (nn allows neither), a separate path for the evaluation-mode backward
// (cuDNN's backward always differentiates the batch statistics) and its own saved-statistics
// layout; these kernels keep the CPU kernel's exact contract (null weight/bias/running stats,
// any eps, biased batch variance, unbiased running variance) for every case instead.
#include "core/kernel_registry.h"
#include "core/ops/norm_kernels.h"
#include "kernels/cuda/batch_norm_running.cuh"
#include "kernels/cuda/block_sums.cuh"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/nn_batchnorm_split.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

template <class T> __global__ void __launch_bounds__(kThreads) batch_norm_kernel(BatchNormArgs a) {
  const int64_t C = a.c, L = a.l, M = a.n * a.l;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const T* w = static_cast<const T*>(a.weight);
  const T* b = static_cast<const T*>(a.bias);
  T* rm = static_cast<T*>(a.running_mean);
  T* rv = static_cast<T*>(a.running_var);
  T* sm = static_cast<T*>(a.save_mean);
  T* si = static_cast<T*>(a.save_invstd);
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    double mu, var;
    if (a.training) {
      const double shift = M > 0 ? double(x[c * L]) : 0.0;
      double s = 0, ss = 0;
      for (int64_t j = threadIdx.x; j < M; j += blockDim.x) {
        const int64_t n = j / L, l = j % L;
        const double d = double(x[(n * C + c) * L + l]) - shift;
        s += d;
        ss += d * d;
      }
      block_sums(s, ss, &s, &ss);
      if (M > 0) {
        const double dm = s / double(M), v = ss / double(M) - dm * dm;
        mu = shift + dm;
        var = v > 0 ? v : 0;
      } else {
        mu = 0;
        var = 0;
      }
      if (rm && threadIdx.x == 0) update_running_stats(rm, rv, c, mu, var, M, a.momentum);
    } else {
      mu = double(rm[c]);
      var = double(rv[c]);
    }
    const double invstd = 1 / sqrt(var + a.eps);
    if (threadIdx.x == 0) {
      sm[c] = T(mu);
      si[c] = T(invstd);
    }
    const T mean = T(mu), scale = T(invstd * (w ? double(w[c]) : 1.0)), offset = b ? b[c] : T(0);
    for (int64_t j = threadIdx.x; j < M; j += blockDim.x) {
      const int64_t o = (j / L * C + c) * L + j % L;
      y[o] = (x[o] - mean) * scale + offset;
    }
    // The running-stat update of thread 0 reads rm[c] before any thread of the next channel runs.
    __syncthreads();
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) batch_norm_backward_kernel(BatchNormBackwardArgs a) {
  const int64_t C = a.c, L = a.l, M = a.n * a.l;
  const T* g = static_cast<const T*>(a.grad_out);
  const T* x = static_cast<const T*>(a.x);
  const T* w = static_cast<const T*>(a.weight);
  const T* mean = static_cast<const T*>(a.mean);
  const T* invstd = static_cast<const T*>(a.invstd);
  T* gi = static_cast<T*>(a.grad_input);
  T* gw = static_cast<T*>(a.grad_weight);
  T* gb = static_cast<T*>(a.grad_bias);
  const bool sums = gw || gb || (gi && a.training);
  for (int64_t c = blockIdx.x; c < C; c += gridDim.x) {
    const double m = double(mean[c]), is = double(invstd[c]);
    double sg = 0, sgx = 0;
    if (sums) {
      for (int64_t j = threadIdx.x; j < M; j += blockDim.x) {
        const int64_t o = (j / L * C + c) * L + j % L;
        const double gv = double(g[o]);
        sg += gv;
        sgx += gv * (double(x[o]) - m);
      }
      block_sums(sg, sgx, &sg, &sgx);
    }
    if (threadIdx.x == 0) {
      if (gw) gw[c] = T(double(gw[c]) + a.scale * sgx * is);
      if (gb) gb[c] = T(double(gb[c]) + a.scale * sg);
    }
    if (gi) {
      const T mt = mean[c];
      const T k1 = a.training ? T(sg / double(M)) : T(0);
      const T k2 = a.training ? T(sgx / double(M) * is * is) : T(0);
      const T k3 = T(is * (w ? double(w[c]) : 1.0));
      for (int64_t j = threadIdx.x; j < M; j += blockDim.x) {
        const int64_t o = (j / L * C + c) * L + j % L;
        gi[o] = ((g[o] - k1) - (x[o] - mt) * k2) * k3;
      }
    }
  }
}

unsigned channel_grid(int64_t c) { return unsigned(c < kMaxBlocks ? (c > 0 ? c : 1) : kMaxBlocks); }

template <class T> void batch_norm_cuda(const BatchNormArgs& a) {
  if (a.c == 0) return;
  const int device = device_of(a.save_mean);
  LaunchScope scope(device);
  if (batch_norm_wants_split(a.c, a.n * a.l)) return batch_norm_split<T>(a, device, scope.stream);
  batch_norm_kernel<T><<<channel_grid(a.c), kThreads, 0, scope.stream>>>(a);
  check_launch("batchNorm");
}
template <class T> void batch_norm_backward_cuda(const BatchNormBackwardArgs& a) {
  if (a.c == 0) return;
  const int device = device_of(a.mean);
  LaunchScope scope(device);
  if (batch_norm_wants_split(a.c, a.n * a.l)) return batch_norm_backward_split<T>(a, device, scope.stream);
  batch_norm_backward_kernel<T><<<channel_grid(a.c), kThreads, 0, scope.stream>>>(a);
  check_launch("batchNormBackward");
}

TOCHA_REGISTER_KERNEL(batchNorm, cuda, DType::f32, &batch_norm_cuda<float>);
TOCHA_REGISTER_KERNEL(batchNorm, cuda, DType::f64, &batch_norm_cuda<double>);
TOCHA_REGISTER_KERNEL(batchNormBackward, cuda, DType::f32, &batch_norm_backward_cuda<float>);
TOCHA_REGISTER_KERNEL(batchNormBackward, cuda, DType::f64, &batch_norm_backward_cuda<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
