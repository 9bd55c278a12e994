// CUDA kernel of searchsorted (core/ops/search.h's SearchArgs): one thread per value runs the
// binary search the CPU kernel runs (kernels/search_ops.h), so both give the same positions.
#include "core/kernel_registry.h"
#include "core/ops/search.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"
#include "kernels/search_ops.h"

namespace tocha {
namespace cuda {
namespace {

template <class T, class O, bool kRight, bool kSorter>
__global__ void __launch_bounds__(kThreads) search_kernel(SearchArgs a) {
  using K = opmath_t<T>;
  const T* seq = static_cast<const T*>(a.seq);
  const T* values = static_cast<const T*>(a.values);
  O* out = static_cast<O*>(a.out);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < a.n_values;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t row = a.row_stride ? i / a.per_row : 0;
    const int64_t* s = kSorter ? a.sorter + row * a.row_stride : nullptr;
    out[i] = O(search_position<kRight, kSorter>(seq + row * a.row_stride, s, a.seq_len, K(values[i])) + a.base);
  }
}

template <class T, class O, bool kRight> void launch(const SearchArgs& a, cudaStream_t stream) {
  if (a.sorter) search_kernel<T, O, kRight, true><<<grid_for(a.n_values), kThreads, 0, stream>>>(a);
  else search_kernel<T, O, kRight, false><<<grid_for(a.n_values), kThreads, 0, stream>>>(a);
}

template <class T> void searchsorted_cuda(const SearchArgs& a) {
  if (a.n_values == 0) return;
  LaunchScope scope(device_of(a.out));
  if (a.out_int32) a.right ? launch<T, int32_t, true>(a, scope.stream) : launch<T, int32_t, false>(a, scope.stream);
  else a.right ? launch<T, int64_t, true>(a, scope.stream) : launch<T, int64_t, false>(a, scope.stream);
  check_launch("searchsorted");
}

#define REG(T) TOCHA_REGISTER_KERNEL(searchsorted, cuda, DTypeOf<T>::value, &searchsorted_cuda<T>);
TOCHA_FOR_ALL_TYPES(REG)

}  // namespace
}  // namespace cuda
}  // namespace tocha
