// CUDA kernels of the fused class losses (core/ops/loss.h): NLL over log-probabilities and
// cross-entropy over raw scores, f32 and f64 like the CPU kernels (kernels/cpu/loss.cpp).
//
// Note [CUDA class-loss sums]: the forward writes each row's weighted loss and weight to a scratch
// buffer (one thread per row), then one block folds them in a fixed order, so the loss does not
// depend on timing, and writes the loss into the result tensor on the device. The backward
// computes the size_average divisor on the device the same way. Neither synchronizes: targets are
// checked by the kernels themselves (Note [Deferred device errors], device_errors.h). One thread
// owns a row of C scores when C is small (a classifier head: a row's max and exp-sum then need no
// inter-thread step), a warp when it is not (Note [Wide class rows]).
#include <cub/block/block_reduce.cuh>
#include "core/kernel_registry.h"
#include "core/ops/loss.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/device_errors.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

template <class T> __device__ __forceinline__ double weight_of(const ClassLossArgs& a, int64_t t) {
  return a.weight ? double(static_cast<const T*>(a.weight)[t]) : 1.0;
}

// max_j x[j] and sum_j exp(x[j] - max) of one row, in T as on the CPU.
template <class T> __device__ __forceinline__ void row_stats(const T* r, int64_t c, T* m, T* s) {
  T mx = r[0];
  for (int64_t j = 1; j < c; ++j) mx = r[j] > mx ? r[j] : mx;
  T sum = 0;
  for (int64_t j = 0; j < c; ++j) sum += exp(r[j] - mx);
  *m = mx;
  *s = sum;
}

template <bool kCE> constexpr int op_of() { return int(kCE ? OpId::crossEntropy : OpId::nllLoss); }

// Sets *t to sample i's class (0-based) and returns true, or returns false for an ignored sample
// and for one whose target is out of range, which is reported (Note [Deferred device errors]).
template <bool kCE>
__device__ __forceinline__ bool class_of(const ClassLossArgs& a, DeviceErrorRecord* err, int64_t i, int64_t* t) {
  const int64_t target = a.target[i];
  if (target == a.ignore_index) return false;
  *t = target - a.base;
  if (*t >= 0 && *t < a.c) return true;
  report_bad_target(err, op_of<kCE>(), i, target, a.base, a.c);
  return false;
}

// rows[2i] = weighted loss of row i, rows[2i+1] = its weight (0, 0 for an ignored row).
template <class T, bool kCE>
__global__ void __launch_bounds__(kThreads) row_loss_kernel(ClassLossArgs a, double* rows, DeviceErrorRecord* err) {
  const T* x = static_cast<const T*>(a.input);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += int64_t(gridDim.x) * blockDim.x) {
    double l = 0, w = 0;
    int64_t t;
    if (class_of<kCE>(a, err, i, &t)) {
      const T* r = x + i * a.c;
      w = weight_of<T>(a, t);
      if constexpr (kCE) {
        T m, s;
        row_stats(r, a.c, &m, &s);
        l = w * (double(m) + log(double(s)) - double(r[t]));
      } else {
        l = -w * double(r[t]);
      }
    }
    rows[2 * i] = l;
    rows[2 * i + 1] = w;
  }
}

// Note [Wide class rows]: one thread per row reads its row alone, C values away from its
// neighbours' rows (no coalescing) and one value after another: fine for a classifier head of 10
// classes, slow for 1000 (ImageNet) or a vocabulary of 50000, where 256 rows made one block.
// From kWideRow classes on, a warp owns a row: its lanes read the row together, and the max and
// the exp-sum are folded across lanes with shuffles in a fixed pattern, then taken from lane 0,
// so every lane uses the same values. Deterministic, but not the CPU's summation order: equal to
// the CPU's result within rounding rather than bit for bit.
constexpr int64_t kWideRow = 32;
constexpr unsigned kFullMask = 0xffffffffu;

template <class T> __device__ __forceinline__ void warp_row_stats(const T* r, int64_t c, int lane, T* m, T* s) {
  T mx = r[lane];  // c >= kWideRow: every lane has a value
  for (int64_t j = lane + 32; j < c; j += 32) mx = r[j] > mx ? r[j] : mx;
  for (int o = 16; o > 0; o >>= 1) {
    const T v = __shfl_xor_sync(kFullMask, mx, o);
    mx = v > mx ? v : mx;
  }
  mx = __shfl_sync(kFullMask, mx, 0);
  T sum = 0;
  for (int64_t j = lane; j < c; j += 32) sum += exp(r[j] - mx);
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(kFullMask, sum, o);
  *m = mx;
  *s = __shfl_sync(kFullMask, sum, 0);
}

// Row i's class from lane 0 (which reports a bad target once), shared with the warp.
template <bool kCE>
__device__ __forceinline__ bool warp_class_of(const ClassLossArgs& a, DeviceErrorRecord* err, int64_t i, int lane,
                                              int64_t* t) {
  int ok = 0;
  long long cls = 0;
  if (lane == 0) {
    int64_t c = 0;
    ok = class_of<kCE>(a, err, i, &c);
    cls = c;
  }
  ok = __shfl_sync(kFullMask, ok, 0);
  *t = __shfl_sync(kFullMask, cls, 0);
  return ok != 0;
}

// The rows of the launch, one per warp: for (i = first; i < n; i += step).
#define TOCHA_WARP_ROWS(i, n)                                                                        \
  for (int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5; i < (n);                   \
       i += (int64_t(gridDim.x) * blockDim.x) >> 5)

template <class T>
__global__ void __launch_bounds__(kThreads) ce_row_loss_warp_kernel(ClassLossArgs a, double* rows,
                                                                    DeviceErrorRecord* err) {
  const T* x = static_cast<const T*>(a.input);
  const int lane = int(threadIdx.x & 31);
  TOCHA_WARP_ROWS(i, a.n) {
    int64_t t;
    double l = 0, w = 0;
    if (warp_class_of<true>(a, err, i, lane, &t)) {
      const T* r = x + i * a.c;
      T m, s;
      warp_row_stats(r, a.c, lane, &m, &s);
      w = weight_of<T>(a, t);
      l = w * (double(m) + log(double(s)) - double(r[t]));
    }
    if (lane == 0) {
      rows[2 * i] = l;
      rows[2 * i + 1] = w;
    }
  }
}

// The weight of each row only (the divisor of the backward).
template <class T, bool kCE>
__global__ void __launch_bounds__(kThreads) row_weight_kernel(ClassLossArgs a, double* rows, DeviceErrorRecord* err) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t t;
    rows[2 * i] = 0;
    rows[2 * i + 1] = class_of<kCE>(a, err, i, &t) ? weight_of<T>(a, t) : 0.0;
  }
}

// sums[0] = sum of rows[2i], sums[1] = sum of rows[2i+1]: one block, fixed order. With a result
// (the forward), also the loss: sums[0] / sums[1] when size_average and sums[1] != 0, else sums[0].
template <class T>
__global__ void __launch_bounds__(kThreads) fold_rows_kernel(const double* rows, int64_t n, double* sums, T* result,
                                                             bool size_average) {
  using BlockSum = cub::BlockReduce<double, kThreads>;
  __shared__ typename BlockSum::TempStorage tmp;
  double l = 0, w = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    l += rows[2 * i];
    w += rows[2 * i + 1];
  }
  double tl = BlockSum(tmp).Sum(l);
  __syncthreads();
  double tw = BlockSum(tmp).Sum(w);
  if (threadIdx.x == 0) {
    sums[0] = tl;
    sums[1] = tw;
    if (result) result[0] = T(size_average && tw != 0 ? tl / tw : tl);
  }
}

// scale / norm from the device sums (Note [CUDA class-loss sums]).
__device__ __forceinline__ double grad_factor(const ClassLossArgs& a, const double* sums) {
  const double norm = a.size_average ? sums[1] : 1.0;
  return a.scale / (norm != 0 ? norm : 1.0);
}

template <class T, bool kCE>
__global__ void __launch_bounds__(kThreads) grad_kernel(ClassLossArgs a, const double* sums, DeviceErrorRecord* err) {
  const T* x = static_cast<const T*>(a.input);
  T* g = static_cast<T*>(a.grad_input);
  const double k = grad_factor(a, sums);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n; i += int64_t(gridDim.x) * blockDim.x) {
    T* gr = g + i * a.c;
    int64_t t;
    if (!class_of<kCE>(a, err, i, &t)) {
      for (int64_t j = 0; j < a.c; ++j) gr[j] = T(0);
      continue;
    }
    const double kw = k * weight_of<T>(a, t);
    if constexpr (kCE) {
      const T* r = x + i * a.c;
      T m, s;
      row_stats(r, a.c, &m, &s);
      const T f = T(kw / double(s));
      for (int64_t j = 0; j < a.c; ++j) gr[j] = f * exp(r[j] - m);
      gr[t] = T(double(gr[t]) - kw);
    } else {
      for (int64_t j = 0; j < a.c; ++j) gr[j] = T(0);
      gr[t] = T(-kw);
    }
  }
}

template <class T, bool kCE>
__global__ void __launch_bounds__(kThreads) grad_warp_kernel(ClassLossArgs a, const double* sums,
                                                             DeviceErrorRecord* err) {
  const T* x = static_cast<const T*>(a.input);
  T* g = static_cast<T*>(a.grad_input);
  const double k = grad_factor(a, sums);
  const int lane = int(threadIdx.x & 31);
  TOCHA_WARP_ROWS(i, a.n) {
    T* gr = g + i * a.c;
    int64_t t;
    if (!warp_class_of<kCE>(a, err, i, lane, &t)) {
      for (int64_t j = lane; j < a.c; j += 32) gr[j] = T(0);
      continue;
    }
    const double kw = k * weight_of<T>(a, t);
    if constexpr (kCE) {
      const T* r = x + i * a.c;
      T m, s;
      warp_row_stats(r, a.c, lane, &m, &s);
      const T f = T(kw / double(s));
      for (int64_t j = lane; j < a.c; j += 32) gr[j] = f * exp(r[j] - m);
      __syncwarp();
      if (lane == 0) gr[t] = T(double(gr[t]) - kw);
    } else {
      for (int64_t j = lane; j < a.c; j += 32) gr[j] = T(0);
      __syncwarp();
      if (lane == 0) gr[t] = T(-kw);
    }
    __syncwarp();  // lane 0's write lands before the warp's next row
  }
}
#undef TOCHA_WARP_ROWS

// Scratch of 2n row values plus the 2 sums, on the input's device (freed in stream order).
Ref<Storage> scratch(const ClassLossArgs& a, int device) {
  return Storage::allocate(size_t(2 * a.n + 2) * sizeof(double), Device{DeviceType::cuda, device});
}

template <class T, bool kCE> void forward_cuda(const ClassLossArgs& a) {
  const char* op = kCE ? "crossEntropy" : "nllLoss";
  const int device = device_of(a.input);
  LaunchScope scope(device);
  Ref<Storage> buf = scratch(a, device);
  double* rows = static_cast<double*>(buf->data());
  double* sums = rows + 2 * a.n;
  if (a.n > 0 && kCE && a.c >= kWideRow) {  // Note [Wide class rows]
    ce_row_loss_warp_kernel<T><<<grid_for(a.n * 32), kThreads, 0, scope.stream>>>(a, rows, device_error_record());
    check_launch(op);
  } else if (a.n > 0) {
    row_loss_kernel<T, kCE><<<grid_for(a.n), kThreads, 0, scope.stream>>>(a, rows, device_error_record());
    check_launch(op);
  }
  fold_rows_kernel<T><<<1, kThreads, 0, scope.stream>>>(rows, a.n, sums, static_cast<T*>(a.result), a.size_average);
  check_launch(op);
}

template <class T, bool kCE> void backward_cuda(const ClassLossArgs& a) {
  const char* op = kCE ? "crossEntropy" : "nllLoss";
  if (a.n == 0) return;
  const int device = device_of(a.input);
  LaunchScope scope(device);
  Ref<Storage> buf = scratch(a, device);
  double* rows = static_cast<double*>(buf->data());
  double* sums = rows + 2 * a.n;
  DeviceErrorRecord* err = device_error_record();
  row_weight_kernel<T, kCE><<<grid_for(a.n), kThreads, 0, scope.stream>>>(a, rows, err);
  check_launch(op);
  fold_rows_kernel<T><<<1, kThreads, 0, scope.stream>>>(rows, a.n, sums, nullptr, false);
  check_launch(op);
  if (a.c >= kWideRow) grad_warp_kernel<T, kCE><<<grid_for(a.n * 32), kThreads, 0, scope.stream>>>(a, sums, err);
  else grad_kernel<T, kCE><<<grid_for(a.n), kThreads, 0, scope.stream>>>(a, sums, err);
  check_launch(op);
}

ClassLossKernels nll_f32{&forward_cuda<float, false>, &backward_cuda<float, false>};
ClassLossKernels nll_f64{&forward_cuda<double, false>, &backward_cuda<double, false>};
ClassLossKernels ce_f32{&forward_cuda<float, true>, &backward_cuda<float, true>};
ClassLossKernels ce_f64{&forward_cuda<double, true>, &backward_cuda<double, true>};

TOCHA_REGISTER_KERNEL(nllLoss, cuda, DType::f32, &nll_f32);
TOCHA_REGISTER_KERNEL(nllLoss, cuda, DType::f64, &nll_f64);
TOCHA_REGISTER_KERNEL(crossEntropy, cuda, DType::f32, &ce_f32);
TOCHA_REGISTER_KERNEL(crossEntropy, cuda, DType::f64, &ce_f64);

}  // namespace
}  // namespace cuda
}  // namespace tocha
