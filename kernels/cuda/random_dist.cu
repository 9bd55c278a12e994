// CUDA fills of exponential, cauchy and logNormal (floating dtypes) and geometric (every dtype the
// CPU kernel takes) from the device's Philox generator, through the CPU's transforms
// (core/ops/random_dist.h). One thread computes one Philox counter block and writes its elements.
#include <cfloat>
#include <cmath>
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

// Note [Device distributions]
// The CUDA fills of exponential, cauchy, logNormal and geometric apply the CPU's transforms
// (dist::exponential, cauchy, box_muller_uniforms and geometric: Torch7's formulas, written once
// as TOCHA_HD functions) to uniforms made from the device's Philox words. The words are not the
// CPU's MT19937 ones, so the values agree in distribution, not one by one. Choices:
// - f64 tensors take 53-bit uniforms from two words each and compute in double. f32, f16 and
//   bf16 take one word each, its top 24 bits as a float uniform (u32_to_uniform24: below 1 after
//   rounding, so log(1 - u) is finite, as on the CPU) and compute in float, which is what a GPU
//   does fast. The float tail stops at 2^-24: an exponential never exceeds 16.6 / lambda (the
//   CPU's 32-bit uniform reaches 22.2 / lambda), and as float's pi rounds up, a cauchy's u = 0
//   gives a large positive value instead of a large negative one. When a parameter is outside
//   float's normal range (lambda below FLT_MIN: -1 / lambda would be -inf, and -inf * log(1 - 0)
//   a NaN where the CPU gives 0), those types compute in double from the CPU's uniform w / 2^32.
// - geometric computes in double for every dtype, from one word per element (two for f64): its
//   values are integers the CPU computes in double, and log(p) in float would round a p close to
//   1 up to 1 and divide by zero.
// - logNormal draws Box-Muller pairs as the CPU does, z0 and z1 both used: one pair of uniforms
//   gives two consecutive elements (without the CPU generator's cached second value).
// - Element i is word(s) i % E of counter block offset + i / E (E = 4 elements per block for
//   one-word types, 2 for f64), as in Note [Philox streams]: the values depend only on
//   (seed, offset, i), never on the launch or the tensor's layout.

// A uniform in [0, 1) in precision R from W words (W = 2: 53 bits; W = 1: 24 bits in float,
// 32 bits, the CPU's, in double).
template <class R, int W> __device__ __forceinline__ R uniform_at(const uint32_t* w) {
  if constexpr (W == 2) return R(dist::u64_to_uniform53(w[0], w[1]));
  else if constexpr (std::is_same<R, float>::value) return dist::u32_to_uniform24(w[0]);
  else return R(dist::u32_to_uniform(w[0]));
}


// Each distribution: draw<R, W, E>(words, p0, p1, v) fills v[0 .. E) from 4 words (E * W = 4);
// with kFloatMath, float_ok(params) says whether float arithmetic keeps the CPU's finite values.
struct Exponential {
  static constexpr const char* kName = "exponential";
  static constexpr bool kFloatMath = true;
  static bool float_ok(const double* p) { return p[0] >= FLT_MIN && p[0] <= FLT_MAX; }
  template <class R, int W, int E> __device__ static void draw(const uint32_t* w, R lambda, R, R* v) {
#pragma unroll
    for (int k = 0; k < E; ++k) v[k] = dist::exponential(uniform_at<R, W>(w + k * W), lambda);
  }
};

struct Cauchy {
  static constexpr const char* kName = "cauchy";
  static constexpr bool kFloatMath = true;
  static bool float_ok(const double* p) { return std::fabs(p[0]) <= FLT_MAX && p[1] >= FLT_MIN && p[1] <= FLT_MAX; }
  template <class R, int W, int E> __device__ static void draw(const uint32_t* w, R median, R sigma, R* v) {
#pragma unroll
    for (int k = 0; k < E; ++k) v[k] = dist::cauchy(uniform_at<R, W>(w + k * W), median, sigma);
  }
};

// params {mu, sigma} of the underlying normal (the front-end converted Torch7's mean and std).
struct LogNormal {
  static constexpr const char* kName = "logNormal";
  static constexpr bool kFloatMath = true;
  static bool float_ok(const double* p) { return std::fabs(p[0]) <= FLT_MAX && std::fabs(p[1]) <= FLT_MAX; }
  template <class R, int W, int E> __device__ static void draw(const uint32_t* w, R mu, R sigma, R* v) {
#pragma unroll
    for (int k = 0; k < E; k += 2) {
      R z0, z1;
      dist::box_muller_uniforms(uniform_at<R, W>(w + k * W), uniform_at<R, W>(w + (k + 1) * W), &z0, &z1);
      v[k] = std::exp(z0 * sigma + mu);
      v[k + 1] = std::exp(z1 * sigma + mu);
    }
  }
};

struct Geometric {
  static constexpr const char* kName = "geometric";
  static constexpr bool kFloatMath = false;
  template <class R, int W, int E> __device__ static void draw(const uint32_t* w, R p, R, R* v) {
#pragma unroll
    for (int k = 0; k < E; ++k) v[k] = dist::geometric(uniform_at<R, W>(w + k * W), p);
  }
};

template <class T, class R, int W, class D>
__global__ void __launch_bounds__(kThreads) dist_kernel(T* out, int64_t n, int64_t blocks, uint64_t seed,
                                                        uint64_t offset, R p0, R p1) {
  constexpr int E = 4 / W;
  for (int64_t b = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < blocks; b += int64_t(gridDim.x) * blockDim.x) {
    const Philox4 r = philox_block(seed, offset + uint64_t(b));
    R v[E];
    D::template draw<R, W, E>(r.x, p0, p1, v);
    const int64_t i0 = b * E;
#pragma unroll
    for (int k = 0; k < E; ++k)
      if (i0 + k < n) out[i0 + k] = element_from<T>(v[k]);
  }
}

template <class T, class R, int W, class D>
void launch(T* out, int64_t n, int64_t blocks, int device, uint64_t seed, uint64_t offset, const double* p) {
  LaunchScope scope(device);
  dist_kernel<T, R, W, D><<<grid_for(blocks), kThreads, 0, scope.stream>>>(out, n, blocks, seed, offset, R(p[0]),
                                                                          R(p[1]));
  check_launch(D::kName);
}

// params as for the CPU kernels (core/ops/random_kernels.h), validated by the front-end.
template <class T, class D> void fill_cuda(void* out_, int64_t n, int device, const double* params) {
  if (n == 0) return;
  constexpr bool kDouble = std::is_same<T, double>::value;
  constexpr int W = kDouble ? 2 : 1, E = 4 / W;
  const int64_t blocks = (n + E - 1) / E;
  uint64_t seed = 0, offset = 0;
  cuda_generator(device).reserve(uint64_t(blocks), &seed, &offset);
  T* out = static_cast<T*>(out_);
  if constexpr (!kDouble && D::kFloatMath) {
    if (D::float_ok(params)) return launch<T, float, W, D>(out, n, blocks, device, seed, offset, params);
  }
  launch<T, double, W, D>(out, n, blocks, device, seed, offset, params);
}

#define REG_FLOAT_DISTS(T)                                                                          \
  TOCHA_REGISTER_KERNEL(exponential, cuda, DTypeOf<T>::value, (&fill_cuda<T, Exponential>));        \
  TOCHA_REGISTER_KERNEL(cauchy, cuda, DTypeOf<T>::value, (&fill_cuda<T, Cauchy>));                  \
  TOCHA_REGISTER_KERNEL(logNormal, cuda, DTypeOf<T>::value, (&fill_cuda<T, LogNormal>));
#define REG_GEOMETRIC(T) TOCHA_REGISTER_KERNEL(geometric, cuda, DTypeOf<T>::value, (&fill_cuda<T, Geometric>));

REG_FLOAT_DISTS(float)
REG_FLOAT_DISTS(double)
REG_FLOAT_DISTS(Half)
REG_FLOAT_DISTS(BFloat16)
TOCHA_FOR_NUMERIC_TYPES(REG_GEOMETRIC)

}  // namespace
}  // namespace cuda
}  // namespace tocha
