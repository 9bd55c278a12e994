// CUDA kernels of the IndexIter ops (Note [Index iteration]: index, gather, indexCopy, indexFill,
// scatter, indexAdd, scatterAdd), of maskedFill, and of cat, for every dtype the CPU kernels take.
//
// Note [CUDA index ops]: reads (index, gather) run one thread per element (o, i, j). Writes and
// accumulations run one thread per position (o, j) that walks the dim in order, as the CPU
// threads do, so repeated indices add up without atomics and the last write wins, and the results
// are the CPU's exactly (same order of additions). The price is less parallelism when there are
// few positions (indexAdd of a long index into a narrow tensor); LookupTable's backward has as
// many positions as embedding columns, enough to fill a GPU at the usual sizes. The kernels check
// the indices themselves (Note [Deferred device errors]): a bad one is skipped, a read gives 0.
#include <cstring>
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
#include "core/ops/join.h"
#include "kernels/cuda/device_errors.h"
#include "kernels/cuda/pointwise.cuh"

namespace tocha {
namespace cuda {
namespace {

// An IndexIter by value (the host iterator cannot be copied: data[1] may point at its own value).
struct DevIndexIter {
  DimGroup outer, inner;
  int64_t n;
  int64_t dim_stride[kIndexOperands];
  char* data[kIndexOperands];
  int64_t index_base;
  uint64_t value;  // the fill value's bits when fill is set (data[1] unused)
  bool fill;
  int64_t bound;  // valid indices: 0 <= index - index_base < bound (Note [Deferred device errors])
  int dim, op;
  DeviceErrorRecord* err;
};

DevIndexIter dev_iter(const IndexIter& it) {
  DevIndexIter d;
  d.outer = it.outer;
  d.inner = it.inner;
  d.n = it.n;
  for (int k = 0; k < kIndexOperands; ++k) {
    d.dim_stride[k] = it.dim_stride[k];
    d.data[k] = it.data[k];
  }
  d.index_base = it.index_base;
  d.value = it.value;
  d.fill = it.data[1] == reinterpret_cast<const char*>(&it.value);
  if (d.fill) d.data[1] = nullptr;
  d.bound = it.bound;
  d.dim = it.dim;
  d.op = it.op;
  d.err = device_error_record();
  return d;
}

// The index minus its base, or -1 (reported) when it is out of range.
__device__ __forceinline__ int64_t checked(const DevIndexIter& it, int64_t index) {
  const int64_t k = index - it.index_base;
  if (k >= 0 && k < it.bound) return k;
  report_bad_index(it.err, it.op, it.dim, index, it.index_base, it.bound);
  return -1;
}

__device__ __forceinline__ void group_offsets(const DimGroup& g, int64_t linear, int64_t* off) {
  for (int d = g.ndim - 1; d >= 0; --d) {
    const int64_t c = linear % g.size[d];
    linear /= g.size[d];
    for (int k = 0; k < kIndexOperands; ++k) off[k] += c * g.stride[k][d];
  }
}

template <class T> __device__ __forceinline__ T add_values(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) return a || b;
  else return T(opmath_t<T>(a) + opmath_t<T>(b));
}

// other[o, i, j] = self[o, index[o, i, j], j]: one thread per element.
template <class T> __global__ void __launch_bounds__(kThreads) index_read_kernel(DevIndexIter it) {
  const int64_t inner_n = it.inner.numel, total = it.outer.numel * it.n * inner_n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t j = e % inner_n, i = (e / inner_n) % it.n, o = e / (inner_n * it.n);
    int64_t off[kIndexOperands] = {0, 0, 0};
    group_offsets(it.outer, o, off);
    group_offsets(it.inner, j, off);
    const int64_t idx = checked(it, reinterpret_cast<const int64_t*>(it.data[2])[off[2] + i * it.dim_stride[2]]);
    reinterpret_cast<T*>(it.data[1])[off[1] + i * it.dim_stride[1]] =
        idx < 0 ? T(0) : reinterpret_cast<const T*>(it.data[0])[off[0] + idx * it.dim_stride[0]];
  }
}

// self[o, index[o, i, j], j] (=|+=) other[o, i, j]: one thread per (o, j), i in order.
template <class T, bool kAdd> __global__ void __launch_bounds__(kThreads) index_write_kernel(DevIndexIter it) {
  const int64_t inner_n = it.inner.numel, total = it.outer.numel * inner_n;
  T fill_value;
  memcpy(&fill_value, &it.value, sizeof(T));
  for (int64_t p = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < total; p += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kIndexOperands] = {0, 0, 0};
    group_offsets(it.outer, p / inner_n, off);
    group_offsets(it.inner, p % inner_n, off);
    T* self = reinterpret_cast<T*>(it.data[0]) + off[0];
    const int64_t* index = reinterpret_cast<const int64_t*>(it.data[2]) + off[2];
    for (int64_t i = 0; i < it.n; ++i) {
      const int64_t k = checked(it, index[i * it.dim_stride[2]]);
      if (k < 0) continue;
      const T v = it.fill ? fill_value : reinterpret_cast<const T*>(it.data[1])[off[1] + i * it.dim_stride[1]];
      T* s = self + k * it.dim_stride[0];
      if constexpr (kAdd) *s = add_values(*s, v);
      else *s = v;
    }
  }
}

template <class T> void index_read_cuda(const IndexIter& it) {
  const int64_t total = it.positions() * it.n;
  if (total == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  index_read_kernel<T><<<grid_for(total), kThreads, 0, scope.stream>>>(dev_iter(it));
  check_launch("index");
}
template <class T, bool kAdd> void index_write_cuda(const IndexIter& it) {
  const int64_t total = it.positions();
  if (total == 0 || it.n == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  index_write_kernel<T, kAdd><<<grid_for(total), kThreads, 0, scope.stream>>>(dev_iter(it));
  check_launch(kAdd ? "indexAdd" : "indexCopy");
}

// maskedFill: operand 0 is self, 1 the u8/bool mask, 2 the value (a number in the iterator).
template <class T> __global__ void __launch_bounds__(kThreads) masked_fill_kernel(DeviceIter it) {
  const T v = load_operand<T>(it, 2, 0);
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < it.numel; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[kMaxOperands];
    element_offsets(it, i, off);
    if (reinterpret_cast<const uint8_t*>(it.data[1])[off[1]]) reinterpret_cast<T*>(it.data[0])[off[0]] = v;
  }
}
template <class T> void masked_fill_cuda(const PointwiseIter& it) {
  if (it.numel == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  masked_fill_kernel<T><<<grid_for(it.numel), kThreads, 0, scope.stream>>>(device_iter(it));
  check_launch("maskedFill");
}

// cat: input k's rows of `row` elements go to column `offset` of the result's rows.
template <class T>
__global__ void __launch_bounds__(kThreads) cat_kernel(T* out, const T* in, int64_t outer, int64_t row,
                                                       int64_t out_row, int64_t offset) {
  const int64_t total = outer * row;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x)
    out[(e / row) * out_row + offset + e % row] = in[e];
}
template <class T> void cat_cuda(const CatArgs& a) {
  if (a.outer == 0 || a.out_row == 0) return;
  LaunchScope scope(device_of(a.out));
  for (int k = 0; k < a.ninputs; ++k) {
    const int64_t total = a.outer * a.in_row[k];
    if (total == 0) continue;
    cat_kernel<T><<<grid_for(total), kThreads, 0, scope.stream>>>(reinterpret_cast<T*>(a.out),
                                                                  reinterpret_cast<const T*>(a.in[k]), a.outer,
                                                                  a.in_row[k], a.out_row, a.in_offset[k]);
    check_launch("cat");
  }
}

#define REG_INDEX(T)                                                                          \
  TOCHA_REGISTER_KERNEL(index, cuda, DTypeOf<T>::value, (&index_read_cuda<T>));              \
  TOCHA_REGISTER_KERNEL(gather, cuda, DTypeOf<T>::value, (&index_read_cuda<T>));             \
  TOCHA_REGISTER_KERNEL(indexCopy, cuda, DTypeOf<T>::value, (&index_write_cuda<T, false>));  \
  TOCHA_REGISTER_KERNEL(indexFill, cuda, DTypeOf<T>::value, (&index_write_cuda<T, false>));  \
  TOCHA_REGISTER_KERNEL(scatter, cuda, DTypeOf<T>::value, (&index_write_cuda<T, false>));    \
  TOCHA_REGISTER_KERNEL(indexAdd, cuda, DTypeOf<T>::value, (&index_write_cuda<T, true>));    \
  TOCHA_REGISTER_KERNEL(scatterAdd, cuda, DTypeOf<T>::value, (&index_write_cuda<T, true>));  \
  TOCHA_REGISTER_KERNEL(maskedFill, cuda, DTypeOf<T>::value, (&masked_fill_cuda<T>));            \
  TOCHA_REGISTER_KERNEL(cat, cuda, DTypeOf<T>::value, (&cat_cuda<T>));
TOCHA_FOR_ALL_TYPES(REG_INDEX)

}  // namespace
}  // namespace cuda
}  // namespace tocha
