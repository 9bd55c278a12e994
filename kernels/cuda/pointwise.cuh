// CUDA pointwise loops over a PointwiseIter: the iterator is copied into the kernel's parameters
// (numbers that live in the host iterator travel by value), every thread computes the offsets of
// its elements, and the scalar functors of kernels/scalar_ops.h do the math (DESIGN.md
// decision 3). Kernels never validate: core/ already did.
#pragma once
#include <cstring>
#include <type_traits>
#include "core/dtype.h"
#include "core/op_id.h"
#include "core/pointwise_iter.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/driver_launch.h"
#include "kernels/cuda/fast_divide.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {

// A PointwiseIter by value (about 700 bytes of kernel parameters).
struct DeviceIter {
  int ndim;
  int noperands;
  int64_t numel;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims];
  char* data[kMaxOperands];
  uint64_t scalar[kMaxOperands];  // value bits of operands that are numbers
  unsigned scalar_mask;           // bit k: operand k is scalar[k]
  bool contiguous;                // one dim, strides 0 or 1: offset = i * stride
  bool index32;                   // sizes fit 32-bit index math: the dividers below
  // Divider<uint32_t> of each shape[d] (Note [Division by a runtime divisor]), when index32.
  uint32_t div_magic[kMaxDims];
  uint8_t div_shift[kMaxDims];
};

inline DeviceIter device_iter(const PointwiseIter& it) {
  DeviceIter d;
  d.ndim = it.ndim;
  d.noperands = it.noperands;
  d.numel = it.numel;
  d.scalar_mask = 0;
  for (int k = 0; k < it.noperands; ++k) {
    d.data[k] = it.data[k];
    d.scalar[k] = 0;
    if (it.is_scalar(k)) {
      std::memcpy(&d.scalar[k], it.data[k], sizeof(uint64_t));
      d.scalar_mask |= 1u << k;
    }
  }
  for (int i = 0; i < it.ndim; ++i) {
    d.shape[i] = it.shape[i];
    for (int k = 0; k < it.noperands; ++k) d.strides[k][i] = it.strides[k][i];
  }
  d.contiguous = it.contiguous;
  d.index32 = fits_fast_divide(it.numel);
  for (int i = 0; d.index32 && i < it.ndim; ++i) {
    const Divider<uint32_t> dv(it.shape[i] > 0 ? it.shape[i] : 1);
    d.div_magic[i] = dv.magic;
    d.div_shift[i] = uint8_t(dv.shift);
  }
  return d;
}

// Note [Small kernel parameters]: a contiguous iterator (one dim, strides 0 or 1, the common case)
// launches with this ~110-byte struct instead of DeviceIter's ~700 bytes: the driver copies every
// launch's parameters, and tiny ops are launch-bound.
struct ContigIter {
  int64_t numel;
  char* data[kMaxOperands];
  int64_t stride[kMaxOperands];   // 0 (a broadcast one-element operand) or 1
  uint64_t scalar[kMaxOperands];  // value bits of operands that are numbers
  unsigned scalar_mask;
};

inline ContigIter contig_iter(const PointwiseIter& it) {
  ContigIter c;
  c.numel = it.numel;
  c.scalar_mask = 0;
  for (int k = 0; k < kMaxOperands; ++k) {
    const bool used = k < it.noperands;
    c.data[k] = used ? it.data[k] : nullptr;
    c.stride[k] = used && it.ndim > 0 ? it.strides[k][0] : 0;
    c.scalar[k] = 0;
    if (used && it.is_scalar(k)) {
      std::memcpy(&c.scalar[k], it.data[k], sizeof(uint64_t));
      c.scalar_mask |= 1u << k;
    }
  }
  return c;
}

// Offsets (in elements) of every operand at linear element i of the output's shape.
__device__ __forceinline__ void iter_offsets64(const DeviceIter& it, int64_t i, int64_t* off) {
  for (int k = 0; k < kMaxOperands; ++k) off[k] = 0;
  int64_t rem = i;
  for (int d = it.ndim - 1; d >= 0; --d) {
    const int64_t size = it.shape[d];
    const int64_t idx = rem % size;
    rem /= size;
#pragma unroll
    for (int k = 0; k < kMaxOperands; ++k)
      if (k < it.noperands) off[k] += int64_t(idx) * it.strides[k][d];
  }
}

// The same with 32-bit indices and the iterator's dividers: a multiply-high per dim instead of a
// division (element i < 2^31).
__device__ __forceinline__ void iter_offsets32(const DeviceIter& it, int64_t i, int64_t* off) {
  for (int k = 0; k < kMaxOperands; ++k) off[k] = 0;
  uint32_t rem = uint32_t(i);
  for (int d = it.ndim - 1; d >= 0; --d) {
    const uint32_t q = (__umulhi(rem, it.div_magic[d]) + rem) >> it.div_shift[d];
    const uint32_t idx = rem - q * uint32_t(it.shape[d]);
    rem = q;
#pragma unroll
    for (int k = 0; k < kMaxOperands; ++k)
      if (k < it.noperands) off[k] += int64_t(idx) * it.strides[k][d];
  }
}

__device__ __forceinline__ void element_offsets(const DeviceIter& it, int64_t i, int64_t* off) {
  if (it.contiguous) {
#pragma unroll
    for (int k = 0; k < kMaxOperands; ++k) off[k] = k < it.noperands ? i * it.strides[k][0] : 0;
  } else if (it.index32) {
    iter_offsets32(it, i, off);
  } else {
    iter_offsets64(it, i, off);
  }
}

template <class T, class Iter> __device__ __forceinline__ T load_operand(const Iter& it, int k, int64_t off) {
  if (it.scalar_mask & (1u << k)) {
    T v;
    memcpy(&v, &it.scalar[k], sizeof(T));
    return v;
  }
  return reinterpret_cast<const T*>(it.data[k])[off];
}

template <class F, class M, int N> __device__ __forceinline__ M apply(const F& f, const M* in) {
  if constexpr (N == 1) return f(in[0]);
  else if constexpr (N == 2) return f(in[0], in[1]);
  else return f(in[0], in[1], in[2]);
}

// out = f(in1, ..., inN) in the compute type of T (float for f16/bf16), any strides.
template <class F, class T, class R, int N>
__global__ void __launch_bounds__(kThreads) pointwise_kernel(DeviceIter it, F f) {
  using M = opmath_t<T>;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kMaxOperands];
    element_offsets(it, i, off);
    M in[N];
#pragma unroll
    for (int k = 0; k < N; ++k) in[k] = M(load_operand<T>(it, k + 1, off[k + 1]));
    reinterpret_cast<R*>(it.data[0])[off[0]] = R(apply<F, M, N>(f, in));
  }
}

// The same on a contiguous iterator (Note [Small kernel parameters]).
// Note [Pointwise loads in flight]: each thread first loads the operands of kUnroll elements (a
// grid stride apart, so a warp's loads stay coalesced) and then computes and stores them: several
// independent loads per thread keep enough memory requests in flight to reach the GPU's
// bandwidth. Loading before storing is safe because the output aliases an input only element for
// element (core/ops/pointwise.cpp makes a temporary otherwise).
template <class F, class T, class R, int N>
__global__ void __launch_bounds__(kThreads) pointwise_contig_kernel(ContigIter it, F f) {
  using M = opmath_t<T>;
  constexpr int kUnroll = 4;
  const int64_t step = int64_t(gridDim.x) * blockDim.x;
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  R* out = reinterpret_cast<R*>(it.data[0]);
  for (; i + (kUnroll - 1) * step < it.numel; i += kUnroll * step) {
    M in[kUnroll][N];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int k = 0; k < N; ++k) in[u][k] = M(load_operand<T>(it, k + 1, (i + u * step) * it.stride[k + 1]));
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out[(i + u * step) * it.stride[0]] = R(apply<F, M, N>(f, in[u]));
  }
  for (; i < it.numel; i += step) {
    M in[N];
#pragma unroll
    for (int k = 0; k < N; ++k) in[k] = M(load_operand<T>(it, k + 1, i * it.stride[k + 1]));
    out[i * it.stride[0]] = R(apply<F, M, N>(f, in));
  }
}

template <class F> F make_device_functor(const double* params) {
  if constexpr (std::is_constructible<F, const double*>::value) return F(params);
  else return F{};
}

// Launches f over the iterator on the output's device; errors name the op.
template <OpId op, class F, class T, class R, int N> void pointwise_cuda(const PointwiseIter& it) {
  if (it.numel == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  if (it.contiguous && driver_launch_enabled()) {  // Note [Driver launches]
    static void* const function =
        driver_function(op_name(op), reinterpret_cast<const void*>(&pointwise_contig_kernel<F, T, R, N>));
    ContigIter ci = contig_iter(it);
    F f = make_device_functor<F>(it.params);
    void* args[] = {&ci, &f};
    driver_launch(op_name(op), function, grid_for(it.numel), kThreads, scope.stream, args);
  } else if (it.contiguous)
    pointwise_contig_kernel<F, T, R, N><<<grid_for(it.numel), kThreads, 0, scope.stream>>>(
        contig_iter(it), make_device_functor<F>(it.params));
  else
    pointwise_kernel<F, T, R, N><<<grid_for(it.numel), kThreads, 0, scope.stream>>>(device_iter(it),
                                                                                   make_device_functor<F>(it.params));
  check_launch(op_name(op));
}

}  // namespace cuda
}  // namespace tocha
