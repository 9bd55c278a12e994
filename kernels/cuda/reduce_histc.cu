// CUDA kernel of histc (kernels/cpu/reduce_minmax.cpp's contract: every dim reduced, nbins equal
// bins over [lo, hi], values outside and NaN ignored, hi in the last bin; params = {nbins, lo,
// hi}) for the floating dtypes: one thread per element adds to an int64 count with atomicAdd
// (integer counts: the order does not matter, results equal the CPU's), then the counts are
// converted to the histogram's dtype.
#include "core/kernel_registry.h"
#include "core/ops/reduce_iter.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"
#include "kernels/reduce_ops.h"

namespace tocha {
namespace cuda {
namespace {

// Offset in operand 0 of reduced element i (row-major over the reduced dims).
__device__ __forceinline__ int64_t element_offset(const ReduceIter& it, int64_t i) {
  int64_t off = 0;
  for (int d = it.rdim - 1; d >= 0; --d) {
    off += (i % it.rshape[d]) * it.rstrides[0][d];
    i /= it.rshape[d];
  }
  return off;
}

template <class T>
__global__ void __launch_bounds__(kThreads) count_kernel(ReduceIter it, unsigned long long* counts) {
  const int64_t nbins = int64_t(it.params[0]);
  const double lo = it.params[1], hi = it.params[2], width = hi - lo;
  const T* in = reinterpret_cast<const T*>(it.data[0]);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < it.n_red; i += int64_t(gridDim.x) * blockDim.x) {
    const double v = double(opmath_t<T>(in[element_offset(it, i)]));
    if (!(v >= lo && v <= hi)) continue;
    const int64_t bin = int64_t((v - lo) / width * double(nbins));
    atomicAdd(counts + (bin < nbins ? bin : nbins - 1), 1ull);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) store_kernel(T* hist, const unsigned long long* counts, int64_t nbins) {
  for (int64_t j = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < nbins; j += int64_t(gridDim.x) * blockDim.x)
    hist[j] = reduce::cast_result<T>(double(counts[j]));
}

template <class T> void histc_cuda(const ReduceIter& it) {
  const char* op = "histc";
  const int64_t nbins = int64_t(it.params[0]);
  if (nbins <= 0) return;
  const int device = device_of(it.data[1]);
  LaunchScope scope(device);
  Ref<Storage> buf = Storage::allocate(size_t(nbins) * sizeof(unsigned long long), Device{DeviceType::cuda, device});
  auto* counts = static_cast<unsigned long long*>(buf->data());
  TOCHA_CUDA_CHECK(op, cudaMemsetAsync(counts, 0, size_t(nbins) * sizeof(unsigned long long), scope.stream));
  if (it.n_red > 0) {
    count_kernel<T><<<grid_for(it.n_red), kThreads, 0, scope.stream>>>(it, counts);
    check_launch(op);
  }
  store_kernel<T><<<grid_for(nbins), kThreads, 0, scope.stream>>>(reinterpret_cast<T*>(it.data[1]), counts, nbins);
  check_launch(op);
}

TOCHA_REGISTER_KERNEL(histc, cuda, DType::f32, &histc_cuda<float>);
TOCHA_REGISTER_KERNEL(histc, cuda, DType::f64, &histc_cuda<double>);
TOCHA_REGISTER_KERNEL(histc, cuda, DType::f16, &histc_cuda<Half>);
TOCHA_REGISTER_KERNEL(histc, cuda, DType::bf16, &histc_cuda<BFloat16>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
