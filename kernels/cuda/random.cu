// CUDA random fills from the device's Philox generator (core/philox.h, Note [Philox streams]):
// uniform and normal for the floating dtypes. Element i uses words of counter block
// offset + i / per_block, so the values depend only on (seed, offset, i). The other fills have
// their own files (random_bernoulli.cu; random_dist.cu: exponential, cauchy, logNormal,
// geometric; random_int.cu: random; random_perm.cu: randperm; random_multinomial.cu:
// multinomial). Fills with an explicit torch.Generator and bernoulli with a tensor of
// probabilities run on the CPU generator and are copied over (Note [Device random fills],
// core/ops/random.cpp).
#include "core/kernel_registry.h"
#include "core/ops/random_kernels.h"
#include "core/philox.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

// A uniform in [0, 1) from 24 (f32) or 53 (f64) random bits.
__device__ __forceinline__ float u24(uint32_t w) { return float(w >> 8) * (1.0f / 16777216.0f); }
__device__ __forceinline__ double u53(uint32_t hi, uint32_t lo) {
  return double((uint64_t(hi) << 21) ^ (lo >> 11)) * (1.0 / 9007199254740992.0);
}

// W random words per element: 1 (f32-precision uniform), 2 (f64 uniform, f32 normal), 4 (f64 normal).
template <class T, bool kNormal> struct Draw {
  static constexpr bool kDouble = std::is_same<T, double>::value;
  static constexpr int W = kNormal ? (kDouble ? 4 : 2) : (kDouble ? 2 : 1);
  __device__ static T make(const uint32_t* w, double a, double b) {
    if constexpr (!kNormal) {
      if constexpr (kDouble) return T(a + (b - a) * u53(w[0], w[1]));
      else return T(float(a) + float(b - a) * u24(w[0]));
    } else {  // Box-Muller; u1 in (0, 1] so the log is finite
      if constexpr (kDouble) {
        double u1 = 1.0 - u53(w[0], w[1]), u2 = u53(w[2], w[3]);
        return T(a + b * sqrt(-2.0 * log(u1)) * cospi(2.0 * u2));
      } else {
        float u1 = 1.0f - u24(w[0]), u2 = u24(w[1]);
        return T(float(a) + float(b) * sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2));
      }
    }
  }
};

template <class T, bool kNormal>
__global__ void __launch_bounds__(kThreads) fill_kernel(T* out, int64_t n, uint64_t seed, uint64_t offset, double a,
                                                        double b) {
  using D = Draw<T, kNormal>;
  constexpr int per_block = 4 / D::W;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    Philox4 r = philox_block(seed, offset + uint64_t(i / per_block));
    out[i] = D::make(&r.x[(i % per_block) * D::W], a, b);
  }
}

template <class T, bool kNormal> void fill_cuda(void* out, int64_t n, int device, const double* params) {
  if (n == 0) return;
  constexpr int per_block = 4 / Draw<T, kNormal>::W;
  uint64_t seed = 0, offset = 0;
  cuda_generator(device).reserve(uint64_t((n + per_block - 1) / per_block), &seed, &offset);
  LaunchScope scope(device);
  fill_kernel<T, kNormal><<<grid_for(n), kThreads, 0, scope.stream>>>(static_cast<T*>(out), n, seed, offset,
                                                                     params[0], params[1]);
  check_launch(kNormal ? "normal" : "uniform");
}

#define REG(T)                                                                              \
  TOCHA_REGISTER_KERNEL(uniform, cuda, DTypeOf<T>::value, (&fill_cuda<T, false>));          \
  TOCHA_REGISTER_KERNEL(normal, cuda, DTypeOf<T>::value, (&fill_cuda<T, true>));
REG(float)
REG(double)
REG(Half)
REG(BFloat16)

}  // namespace
}  // namespace cuda
}  // namespace tocha
