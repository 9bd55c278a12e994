// CUDA random(a, b) fills from the device's Philox generator, for every dtype the CPU kernel takes
// (bool included): integers in [lo, lo + range) by the CPU's rule, dist::random_in_range on one
// word (range <= 2^32) or two (Torch7's modulo; core/ops/random_dist.h).
#include <type_traits>
#include "core/kernel_registry.h"
#include "core/ops/random_dist.h"
#include "core/ops/random_kernels.h"
#include "core/philox.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// W words per element (dist::words_for_range), E = 4 / W elements per Philox counter block:
// element i takes words (i % E) * W .. of block offset + i / E (Note [Philox streams]); one
// thread computes a block and writes its elements.
template <class T, int W>
__global__ void __launch_bounds__(kThreads) random_kernel(T* out, int64_t n, int64_t blocks, uint64_t seed,
                                                          uint64_t offset, int64_t lo, uint64_t range) {
  constexpr int E = 4 / W;
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += int64_t(gridDim.x) * blockDim.x) {
    const Philox4 r = philox_block(seed, offset + uint64_t(b));
    const int64_t i0 = b * E;
#pragma unroll
    for (int k = 0; k < E; ++k) {
      if (i0 + k >= n) break;
      const uint32_t w[2] = {r.x[k * W], W == 2 ? r.x[k * W + 1] : 0u};
      out[i0 + k] = element_from<T>(dist::random_in_range(w, lo, range));
    }
  }
}

// range 0 means 2^64 (the front-end checked that [lo, lo + range) fits the dtype).
template <class T> void random_cuda(void* out_, int64_t n, int device, int64_t lo, uint64_t range) {
  if (n == 0) return;
  const int words = dist::words_for_range(range), per_block = 4 / words;
  const int64_t blocks = (n + per_block - 1) / per_block;
  uint64_t seed = 0, offset = 0;
  cuda_generator(device).reserve(uint64_t(blocks), &seed, &offset);
  LaunchScope scope(device);
  T* out = static_cast<T*>(out_);
  if (words == 1)
    random_kernel<T, 1><<<grid_for(blocks), kThreads, 0, scope.stream>>>(out, n, blocks, seed, offset, lo, range);
  else
    random_kernel<T, 2><<<grid_for(blocks), kThreads, 0, scope.stream>>>(out, n, blocks, seed, offset, lo, range);
  check_launch("random");
}

#define REG(T) TOCHA_REGISTER_KERNEL(random, cuda, DTypeOf<T>::value, &random_cuda<T>);
TOCHA_FOR_ALL_TYPES(REG)

}  // namespace
}  // namespace cuda
}  // namespace tocha
