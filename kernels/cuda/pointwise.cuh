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
  bool index32;                   // sizes fit 32-bit index math (cheaper division)
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
  d.index32 = it.numel <= int64_t(INT32_MAX);
  return d;
}

// Offsets (in elements) of every operand at linear element i of the output's shape.
template <class I>
__device__ __forceinline__ void iter_offsets(const DeviceIter& it, int64_t i, int64_t* off) {
  for (int k = 0; k < kMaxOperands; ++k) off[k] = 0;
  I rem = I(i);
  for (int d = it.ndim - 1; d >= 0; --d) {
    I size = I(it.shape[d]);
    I idx = rem % size;
    rem /= size;
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
    iter_offsets<uint32_t>(it, i, off);
  } else {
    iter_offsets<int64_t>(it, i, off);
  }
}

template <class T> __device__ __forceinline__ T load_operand(const DeviceIter& it, int k, int64_t off) {
  if (it.scalar_mask & (1u << k)) {
    T v;
    memcpy(&v, &it.scalar[k], sizeof(T));
    return v;
  }
  return reinterpret_cast<const T*>(it.data[k])[off];
}

// out = f(in1, ..., inN) in the compute type of T (float for f16/bf16).
template <class F, class T, class R, int N>
__global__ void __launch_bounds__(kThreads) pointwise_kernel(DeviceIter it, F f) {
  using M = opmath_t<T>;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kMaxOperands];
    element_offsets(it, i, off);
    R* out = reinterpret_cast<R*>(it.data[0]) + off[0];
    if constexpr (N == 1) {
      *out = R(f(M(load_operand<T>(it, 1, off[1]))));
    } else if constexpr (N == 2) {
      *out = R(f(M(load_operand<T>(it, 1, off[1])), M(load_operand<T>(it, 2, off[2]))));
    } else {
      *out = R(f(M(load_operand<T>(it, 1, off[1])), M(load_operand<T>(it, 2, off[2])), M(load_operand<T>(it, 3, off[3]))));
    }
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
  pointwise_kernel<F, T, R, N><<<grid_for(it.numel), kThreads, 0, scope.stream>>>(device_iter(it),
                                                                                 make_device_functor<F>(it.params));
  check_launch(op_name(op));
}

}  // namespace cuda
}  // namespace tocha
