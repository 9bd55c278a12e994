// CUDA kernels of scatterReduce's prod, amax and amin (Note [scatterReduce kernels]): one thread
// per (outer, inner) position walks the index along the dim in order, as the scatterAdd kernels
// do (Note [CUDA index ops]), so no atomics are needed (no compare-and-swap loops for floating
// max/min) and the results are the CPU's exactly. Bad indices are reported and skipped
// (Note [Deferred device errors]).
#include <cstring>
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
#include "core/ops/scatter_reduce.h"
#include "kernels/cuda/device_errors.h"
#include "kernels/cuda/pointwise.cuh"

namespace tocha {
namespace cuda {
namespace {

struct ReduceIter {
  DimGroup outer, inner;
  int64_t n;
  int64_t dim_stride[kIndexOperands];
  char* data[kIndexOperands];
  int64_t index_base, bound;
  int kind, dim, op;
  DeviceErrorRecord* err;
};

__device__ __forceinline__ void offsets(const DimGroup& g, int64_t linear, int64_t* off) {
  for (int d = g.ndim - 1; d >= 0; --d) {
    const int64_t c = linear % g.size[d];
    linear /= g.size[d];
    for (int k = 0; k < kIndexOperands; ++k) off[k] += c * g.stride[k][d];
  }
}

template <class T> __device__ __forceinline__ T combine(T a, T b, int k) {
  if constexpr (std::is_same<T, bool>::value) {
    return k == int(ScatterReduce::amax) ? (a || b) : (a && b);
  } else {
    using M = opmath_t<T>;
    const M x = M(a), y = M(b);
    if (k == int(ScatterReduce::prod)) return T(x * y);
    if (x != x) return a;  // NaN wins (never true for integers)
    if (y != y) return b;
    if (k == int(ScatterReduce::amax)) return y > x ? b : a;
    return y < x ? b : a;
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) scatter_reduce_kernel(ReduceIter it) {
  const int64_t inner_n = it.inner.numel, total = it.outer.numel * inner_n;
  for (int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kIndexOperands] = {0, 0, 0};
    offsets(it.outer, p / inner_n, off);
    offsets(it.inner, p % inner_n, off);
    T* self = reinterpret_cast<T*>(it.data[0]) + off[0];
    const T* src = reinterpret_cast<const T*>(it.data[1]) + off[1];
    const int64_t* index = reinterpret_cast<const int64_t*>(it.data[2]) + off[2];
    for (int64_t i = 0; i < it.n; ++i) {
      const int64_t v = index[i * it.dim_stride[2]], k = v - it.index_base;
      if (k < 0 || k >= it.bound) {
        report_bad_index(it.err, it.op, it.dim, v, it.index_base, it.bound);
        continue;
      }
      T* s = self + k * it.dim_stride[0];
      *s = combine(*s, src[i * it.dim_stride[1]], it.kind);
    }
  }
}

template <class T> void scatter_reduce_cuda(const IndexIter& h) {
  const int64_t total = h.positions();
  if (total == 0 || h.n == 0) return;
  ReduceIter it;
  it.outer = h.outer;
  it.inner = h.inner;
  it.n = h.n;
  for (int k = 0; k < kIndexOperands; ++k) {
    it.dim_stride[k] = h.dim_stride[k];
    it.data[k] = h.data[k];
  }
  it.index_base = h.index_base;
  it.bound = h.bound;
  it.kind = int(h.value);
  it.dim = h.dim;
  it.op = h.op;
  it.err = device_error_record();
  LaunchScope scope(device_of(h.data[0]));
  scatter_reduce_kernel<T><<<grid_for(total), kThreads, 0, scope.stream>>>(it);
  check_launch("scatterReduce");
}

#define REG_SCATTER_REDUCE(T) \
  TOCHA_REGISTER_KERNEL(scatterReduce, cuda, DTypeOf<T>::value, (&scatter_reduce_cuda<T>));
TOCHA_FOR_ALL_TYPES(REG_SCATTER_REDUCE)

}  // namespace
}  // namespace cuda
}  // namespace tocha
