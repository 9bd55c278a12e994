// CUDA kernels of the mask-scan ops (Note [Mask scan]: nonzero, maskedSelect, maskedCopy) for
// every dtype, with the CPU kernels' element order (kernels/cpu/index_mask.cpp). One thread owns
// a chunk of the scan and walks its elements in order: the count pass writes each chunk's count
// to the device and copies them to the host array the front-end scans (one synchronization, as
// the result's size must be known on the host anyway); the write pass uploads the chunks' first
// places and writes every chunk in parallel.
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
#include "core/storage.h"
#include "kernels/cuda/device_errors.h"
#include "kernels/cuda/pointwise.cuh"

namespace tocha {
namespace cuda {
namespace {

template <class T> __device__ __forceinline__ bool is_nonzero(T x) {
  if constexpr (std::is_same<T, bool>::value) return x;
  else return opmath_t<T>(x) != opmath_t<T>(0);  // NaN counts as non-zero
}

// Elements [b, e) of chunk c.
__device__ __forceinline__ void chunk_range(const DeviceIter& it, const MaskScan& sc, int64_t c, int64_t* b,
                                            int64_t* e) {
  *b = c * sc.chunk;
  *e = min(it.numel, (c + 1) * sc.chunk);
}

// kind 0: count pass (counts[c] = true elements of operand 0); 1: nonzero's coordinates;
// 2: maskedSelect (flat[place] = operand 1); 3: maskedCopy (operand 1 = flat[place]).
template <class T, int kKind> __global__ void __launch_bounds__(kThreads) scan_kernel(DeviceIter it, MaskScan sc) {
  for (int64_t c = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < sc.nchunks; c += int64_t(gridDim.x) * blockDim.x) {
    int64_t b, e;
    chunk_range(it, sc, c, &b, &e);
    int64_t place = kKind == 0 ? 0 : sc.counts[c];
    for (int64_t i = b; i < e; ++i) {
      int64_t off[kMaxOperands];
      element_offsets(it, i, off);
      bool on;
      if constexpr (kKind <= 1) on = is_nonzero(reinterpret_cast<const T*>(it.data[0])[off[0]]);
      else on = reinterpret_cast<const uint8_t*>(it.data[0])[off[0]] != 0;
      if (!on) continue;
      if constexpr (kKind == 1) {
        int64_t* out = reinterpret_cast<int64_t*>(sc.flat) + place * sc.ndim;
        int64_t rem = i;
        for (int d = sc.ndim - 1; d >= 0; --d) {
          out[d] = rem % sc.shape[d] + sc.index_base;
          rem /= sc.shape[d];
        }
      } else if constexpr (kKind == 2) {
        reinterpret_cast<T*>(sc.flat)[place] = reinterpret_cast<const T*>(it.data[1])[off[1]];
      } else if constexpr (kKind == 3) {
        reinterpret_cast<T*>(it.data[1])[off[1]] = reinterpret_cast<const T*>(sc.flat)[place];
      }
      ++place;
    }
    if constexpr (kKind == 0) sc.counts[c] = place;
  }
}

template <class T, int kKind> void run_scan(const char* op, const PointwiseIter& it, const MaskScan& sc) {
  if (sc.nchunks == 0 || it.numel == 0) return;
  const int device = device_of(it.data[0]);
  LaunchScope scope(device);
  const size_t bytes = size_t(sc.nchunks) * sizeof(int64_t);
  Ref<Storage> buf = Storage::allocate(bytes, Device{DeviceType::cuda, device});
  MaskScan d = sc;
  d.counts = static_cast<int64_t*>(buf->data());
  if (kKind != 0) {
    // Pageable host memory: staged by the driver when the call returns (Note [Copies and streams]).
    TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(d.counts, sc.counts, bytes, cudaMemcpyHostToDevice, scope.stream));
  }
  scan_kernel<T, kKind><<<grid_for(sc.nchunks), kThreads, 0, scope.stream>>>(device_iter(it), d);
  check_launch(op);
  if (kKind == 0) {
    TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(sc.counts, d.counts, bytes, cudaMemcpyDeviceToHost, scope.stream));
    TOCHA_CUDA_CHECK(op, cudaStreamSynchronize(scope.stream));
    raise_device_errors();  // what kernels before it found (Note [Deferred device errors])
  }
}

template <class T> void nonzero_cuda(const PointwiseIter& it, const MaskScan& sc) {
  if (sc.count_only) run_scan<T, 0>("nonzero", it, sc);
  else run_scan<T, 1>("nonzero", it, sc);
}
template <class T> void masked_select_cuda(const PointwiseIter& it, const MaskScan& sc) {
  run_scan<T, 2>("maskedSelect", it, sc);
}
template <class T> void masked_copy_cuda(const PointwiseIter& it, const MaskScan& sc) {
  run_scan<T, 3>("maskedCopy", it, sc);
}

#define REG_MASK(T)                                                                          \
  TOCHA_REGISTER_KERNEL(nonzero, cuda, DTypeOf<T>::value, &nonzero_cuda<T>);                  \
  TOCHA_REGISTER_KERNEL(maskedSelect, cuda, DTypeOf<T>::value, &masked_select_cuda<T>);       \
  TOCHA_REGISTER_KERNEL(maskedCopy, cuda, DTypeOf<T>::value, &masked_copy_cuda<T>);
TOCHA_FOR_ALL_TYPES(REG_MASK)

}  // namespace
}  // namespace cuda
}  // namespace tocha
