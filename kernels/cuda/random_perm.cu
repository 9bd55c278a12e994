// CUDA randperm from the device's Philox generator: a random 64-bit key per index, the (key,
// index) pairs sorted on the device by cub::DeviceRadixSort, then base + index written in the
// output's dtype (Note [Device randperm]).
#include <cstdint>
#include <type_traits>
#include <cub/device/device_radix_sort.cuh>
#include "core/kernel_registry.h"
#include "core/ops/random_kernels.h"
#include "core/philox.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// Note [Device randperm]
// A permutation sorted by random keys: index i gets the 64-bit key made of the two word pairs of
// Philox counter block offset + i / 2 (words 0-1 for even i, 2-3 for odd i: Note [Philox
// streams]), and sorting the (key, index) pairs by key gives the indices in a uniformly random
// order, as long as no two keys are equal. With 64-bit keys a tie among n indices has
// probability about n^2 / 2^65 (below 3e-8 for n = 2^20); a tie keeps the two indices in their
// original order (the radix sort is stable), a bias nobody can measure. The sort is CUB's
// DeviceRadixSort on a double buffer, its temporary storage from the caching allocator, so the
// op is three launches' worth of device work and no host round trip: values differ from the CPU's
// Fisher-Yates (Torch7's stream), reproducibly per torch.cuda.manualSeed. n above INT32_MAX
// (64 GiB of keys and indices, two buffers each) goes back to the host path.

__global__ void __launch_bounds__(kThreads) perm_keys_kernel(uint64_t* keys, int64_t* idx, int64_t n, uint64_t seed,
                                                             uint64_t offset) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const Philox4 r = philox_block(seed, offset + uint64_t(i / 2));
    const int w = int(i % 2) * 2;
    keys[i] = (uint64_t(r.x[w]) << 32) | r.x[w + 1];
    idx[i] = i;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) perm_write_kernel(T* out, const int64_t* idx, int64_t n, int64_t base) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = element_from<T>(idx[i] + base);
}

template <class T> bool randperm_cuda(void* out, int64_t n, int device, int64_t base) {
  if (n <= 0) return true;
  if (n > INT32_MAX) return false;  // CUB's item count is an int here; the host path serves it
  uint64_t seed = 0, offset = 0;
  cuda_generator(device).reserve(uint64_t((n + 1) / 2), &seed, &offset);
  LaunchScope scope(device);
  const Device dev{DeviceType::cuda, device};
  // keys (2 buffers) and indices (2 buffers), then CUB's temporary storage.
  Ref<Storage> pairs = Storage::allocate(size_t(n) * 4 * sizeof(uint64_t), dev);
  uint64_t* k0 = static_cast<uint64_t*>(pairs->data());
  uint64_t* k1 = k0 + n;
  int64_t* v0 = reinterpret_cast<int64_t*>(k1 + n);
  int64_t* v1 = v0 + n;
  perm_keys_kernel<<<grid_for(n), kThreads, 0, scope.stream>>>(k0, v0, n, seed, offset);
  check_launch("randperm");
  cub::DoubleBuffer<uint64_t> keys(k0, k1);
  cub::DoubleBuffer<int64_t> vals(v0, v1);
  size_t temp_bytes = 0;
  TOCHA_CUDA_CHECK("randperm", cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, vals, int(n), 0, 64,
                                                               scope.stream));
  Ref<Storage> temp = Storage::allocate(temp_bytes ? temp_bytes : 1, dev);
  TOCHA_CUDA_CHECK("randperm", cub::DeviceRadixSort::SortPairs(temp->data(), temp_bytes, keys, vals, int(n), 0, 64,
                                                               scope.stream));
  perm_write_kernel<T><<<grid_for(n), kThreads, 0, scope.stream>>>(static_cast<T*>(out), vals.Current(), n, base);
  check_launch("randperm");
  return true;
}

#define REG(T) TOCHA_REGISTER_KERNEL(randperm, cuda, DTypeOf<T>::value, &randperm_cuda<T>);
TOCHA_FOR_NUMERIC_TYPES(REG)

}  // namespace
}  // namespace cuda
}  // namespace tocha
