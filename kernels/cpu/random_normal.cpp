// CPU kernels of normal and logNormal: Torch7's Box-Muller stream (Note [Random streams]) with a
// branch-free float log/sincos so that float fills vectorize; doubles use the exact libm path.
#include <cmath>
#include <cstring>
#include <memory>
#include "core/kernel_registry.h"
#include "core/ops/random_dist.h"
#include "core/ops/random_kernels.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

inline uint32_t fbits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bitsf(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// log(x) for normal positive floats, within 1e-7 of libm (Cephes' logf polynomial), written
// without branches so that the Box-Muller loop vectorizes.
inline float fast_log(float x) {
  uint32_t b = fbits(x);
  int32_t e = int32_t(b >> 23) - 126;
  float m = bitsf((b & 0x007fffffu) | 0x3f000000u);  // x = m * 2^e, m in [0.5, 1)
  int32_t small = int32_t(m < 0.707106781186547524f);
  e -= small;
  m *= float(1 + small);  // m in [sqrt(1/2), sqrt(2))
  float t = m - 1.0f, z = t * t;
  float y = 7.0376836292e-2f;
  y = y * t - 1.1514610310e-1f;
  y = y * t + 1.1676998740e-1f;
  y = y * t - 1.2420140846e-1f;
  y = y * t + 1.4249322787e-1f;
  y = y * t - 1.6668057665e-1f;
  y = y * t + 2.0000714765e-1f;
  y = y * t - 2.4999993993e-1f;
  y = y * t + 3.3333331174e-1f;
  y = y * t * z;
  float fe = float(e);
  y += -2.12194440e-4f * fe - 0.5f * z;
  return t + y + 0.693359375f * fe;
}

// sin and cos of 2*pi*u for u in [0, 1), within 2e-7: the reduction to [-pi/4, pi/4] is exact
// because 4u has at most 26 significant bits; quadrant swaps and signs are bit operations.
inline void fast_sincos_2pi(float u, float* s, float* c) {
  float x = u * 4.0f;
  int32_t q = int32_t(x + 0.5f);
  float r = (x - float(q)) * 1.57079632679489662f;
  float z = r * r;
  float sr = r + r * z * (-1.6666654611e-1f + z * (8.3321608736e-3f + z * -1.9515295891e-4f));
  float cr = 1.0f - 0.5f * z + z * z * (4.166664568298827e-2f + z * (-1.388731625493765e-3f + z * 2.443315711809948e-5f));
  uint32_t swap = 0u - uint32_t(q & 1), sb = fbits(sr), cb = fbits(cr);
  uint32_t sv = (sb & ~swap) | (cb & swap), cv = (cb & ~swap) | (sb & swap);
  *s = bitsf(sv ^ (uint32_t(q & 2) << 30));
  *c = bitsf(cv ^ (uint32_t((q + 1) & 2) << 30));
}

template <class T, bool kLog> inline T finish(double v) { return T(kLog ? std::exp(v) : v); }

// pairs Box-Muller pairs from words (two per pair) into out[0 .. 2*pairs).
template <class T, bool kLog>
void transform_pairs(T* out, const uint32_t* words, int64_t pairs, double mean, double std) {
  parallel_for(pairs, kGrainSize / 2, [&](int64_t b, int64_t e) {
    if constexpr (std::is_same<T, double>::value) {
      for (int64_t k = b; k < e; ++k) {
        double z0, z1;
        dist::box_muller(words[2 * k], words[2 * k + 1], &z0, &z1);
        out[2 * k] = finish<T, kLog>(z0 * std + mean);
        out[2 * k + 1] = finish<T, kLog>(z1 * std + mean);
      }
    } else {
      const float m = float(mean), sd = float(std);
#pragma omp simd
      for (int64_t k = b; k < e; ++k) {
        float x = dist::u32_to_uniform24(words[2 * k]), y = dist::u32_to_uniform24(words[2 * k + 1]);
        float rho = std::sqrt(-2.0f * fast_log(1.0f - y));  // 1 - y >= 2^-24: never log(0)
        float s, c;
        fast_sincos_2pi(x, &s, &c);
        float v0 = rho * c * sd + m, v1 = rho * s * sd + m;
        if constexpr (kLog) { v0 = std::exp(v0); v1 = std::exp(v1); }
        out[2 * k] = T(v0);
        out[2 * k + 1] = T(v1);
      }
    }
  });
}

// params {mean, std} of the (underlying) normal. Like Torch7, a fill first uses the value the
// generator has cached, and an odd element left at the end caches its pair's second value.
template <class T, bool kLog> void normal_kernel(void* out_, int64_t n, Generator& gen, const double* params) {
  T* out = static_cast<T*>(out_);
  const double mean = params[0], std = params[1];
  int64_t head = 0, pairs = 0;
  const uint32_t* words = nullptr;
  std::unique_ptr<uint32_t[]> tmp;
  {
    auto lock = gen.lock();
    double z;
    if (gen.take_normal_locked(&z)) {
      out[0] = finish<T, kLog>(z * std + mean);
      head = 1;
    }
    pairs = (n - head) / 2;
    uint32_t* w;
    if constexpr (sizeof(T) == 4) {
      w = reinterpret_cast<uint32_t*>(out + head);  // each pair's words sit where its values go
    } else {
      tmp.reset(new uint32_t[size_t(2 * pairs)]);
      w = tmp.get();
    }
    gen.fill_u32_locked(w, 2 * pairs);
    words = w;
    if ((n - head) & 1) {
      uint32_t wx = gen.next_u32_locked(), wy = gen.next_u32_locked();
      double z0, z1;
      dist::box_muller(wx, wy, &z0, &z1);
      out[n - 1] = finish<T, kLog>(z0 * std + mean);
      gen.put_normal_locked(z1);
    }
  }
  transform_pairs<T, kLog>(out + head, words, pairs, mean, std);
}

#define REG_NORMAL(T)                                                                   \
  TOCHA_REGISTER_KERNEL(normal, cpu, DTypeOf<T>::value, (&normal_kernel<T, false>));   \
  TOCHA_REGISTER_KERNEL(logNormal, cpu, DTypeOf<T>::value, (&normal_kernel<T, true>));
REG_NORMAL(float)
REG_NORMAL(double)
REG_NORMAL(Half)
REG_NORMAL(BFloat16)

}  // namespace
}  // namespace cpu
}  // namespace tocha
