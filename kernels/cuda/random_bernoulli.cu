// CUDA bernoulli fill with a scalar probability (Dropout's mask), for every dtype the CPU kernel
// takes: element i is 1 when word i of the device's Philox stream, as a uniform w / 2^32 (the
// CPU's transform, core/ops/random_dist.h), is below p (Note [Philox streams]: 4 elements per
// counter block, values independent of the launch).
#include "core/kernel_registry.h"
#include "core/ops/random_kernels.h"
#include "core/philox.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

template <class T>
__global__ void __launch_bounds__(kThreads) bernoulli_kernel(T* out, int64_t n, uint64_t seed, uint64_t offset,
                                                             double p) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const Philox4 r = philox_block(seed, offset + uint64_t(i / 4));
    const double u = double(r.x[i % 4]) * (1.0 / 4294967296.0);
    out[i] = T(int(u < p));
  }
}

// params[0] = p (checked in [0, 1] by the front-end).
template <class T> void bernoulli_cuda(void* out, int64_t n, int device, const double* params) {
  if (n == 0) return;
  uint64_t seed = 0, offset = 0;
  cuda_generator(device).reserve(uint64_t((n + 3) / 4), &seed, &offset);
  LaunchScope scope(device);
  bernoulli_kernel<T><<<grid_for(n), kThreads, 0, scope.stream>>>(static_cast<T*>(out), n, seed, offset, params[0]);
  check_launch("bernoulli");
}

#define REG(T) TOCHA_REGISTER_KERNEL(bernoulli, cuda, DTypeOf<T>::value, &bernoulli_cuda<T>);
TOCHA_FOR_ALL_TYPES(REG)

}  // namespace
}  // namespace cuda
}  // namespace tocha
