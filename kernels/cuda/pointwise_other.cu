// CUDA kernels of the POINTWISE family: copy (dtype conversion), fill, where, clamp, addcmul,
// addcdiv and lerp, with the CPU kernels' dtype lists and functors (kernels/cpu/pointwise_other.cpp).
#include "core/kernel_registry.h"
#include "kernels/cuda/pointwise.cuh"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cuda {
namespace {

template <class R, class T> __global__ void __launch_bounds__(kThreads) copy_kernel(DeviceIter it) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kMaxOperands];
    element_offsets(it, i, off);
    reinterpret_cast<R*>(it.data[0])[off[0]] = scalar::convert<R>(load_operand<T>(it, 1, off[1]));
  }
}

template <class R> void copy_cuda(const PointwiseIter& it) {
  if (it.numel == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  if (it.src_dtype == DTypeOf<R>::value && it.contiguous && it.strides[0][0] == 1 && it.strides[1][0] == 1 &&
      !it.is_scalar(1)) {
    TOCHA_CUDA_CHECK("copy", cudaMemcpyAsync(it.data[0], it.data[1], size_t(it.numel) * sizeof(R),
                                             cudaMemcpyDeviceToDevice, scope.stream));
    return;
  }
  DeviceIter d = device_iter(it);
  visit_dtype(it.src_dtype, [&](auto tag) {
    copy_kernel<R, decltype(tag)><<<grid_for(it.numel), kThreads, 0, scope.stream>>>(d);
  });
  check_launch("copy");
}

template <class T> __global__ void __launch_bounds__(kThreads) fill_kernel(DeviceIter it, T v) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kMaxOperands];
    element_offsets(it, i, off);
    reinterpret_cast<T*>(it.data[0])[off[0]] = v;
  }
}

// Operand 1 is the fill value as a number in the iterator.
template <class T> void fill_cuda(const PointwiseIter& it) {
  if (it.numel == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  T v;
  std::memcpy(&v, it.data[1], sizeof(T));
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  if (bits == 0 && it.contiguous && it.strides[0][0] == 1) {  // all-zero bytes: a memset
    TOCHA_CUDA_CHECK("fill", cudaMemsetAsync(it.data[0], 0, size_t(it.numel) * sizeof(T), scope.stream));
    return;
  }
  fill_kernel<T><<<grid_for(it.numel), kThreads, 0, scope.stream>>>(device_iter(it), v);
  check_launch("fill");
}

// where(cond, a, b): operand 1 is a u8 (or bool, same bytes) mask.
template <class T> __global__ void __launch_bounds__(kThreads) where_kernel(DeviceIter it) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kMaxOperands];
    element_offsets(it, i, off);
    bool c = load_operand<uint8_t>(it, 1, off[1]) != 0;
    reinterpret_cast<T*>(it.data[0])[off[0]] = c ? load_operand<T>(it, 2, off[2]) : load_operand<T>(it, 3, off[3]);
  }
}

template <class T> void where_cuda(const PointwiseIter& it) {
  if (it.numel == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  where_kernel<T><<<grid_for(it.numel), kThreads, 0, scope.stream>>>(device_iter(it));
  check_launch("where");
}


#define REG_COPY(T) TOCHA_REGISTER_KERNEL(copy, cuda, DTypeOf<T>::value, &copy_cuda<T>);
#define REG_FILL(T) TOCHA_REGISTER_KERNEL(fill, cuda, DTypeOf<T>::value, &fill_cuda<T>);
#define REG_WHERE(T) TOCHA_REGISTER_KERNEL(where, cuda, DTypeOf<T>::value, &where_cuda<T>);
#define REG_CLAMP(T) \
  TOCHA_REGISTER_KERNEL(clamp, cuda, DTypeOf<T>::value, (&pointwise_cuda<OpId::clamp, scalar::clamp_op, T, T, 1>));
#define REG_TERNARY(op, T) \
  TOCHA_REGISTER_KERNEL(op, cuda, DTypeOf<T>::value, (&pointwise_cuda<OpId::op, scalar::op##_op, T, T, 3>));
#define REG_ADDCMUL(T) REG_TERNARY(addcmul, T)
#define REG_ADDCDIV(T) REG_TERNARY(addcdiv, T)
#define REG_LERP(T) REG_TERNARY(lerp, T)

TOCHA_FOR_ALL_TYPES(REG_COPY)
TOCHA_FOR_ALL_TYPES(REG_FILL)
TOCHA_FOR_ALL_TYPES(REG_WHERE)
TOCHA_FOR_NUMERIC_TYPES(REG_CLAMP)
TOCHA_FOR_NUMERIC_TYPES(REG_ADDCMUL)
TOCHA_FOR_FLOAT_TYPES(REG_ADDCDIV)
TOCHA_FOR_FLOAT_TYPES(REG_LERP)

}  // namespace
}  // namespace cuda
}  // namespace tocha
