// The distributions as functions of 32-bit words, shared by the scalar draws (torch.uniform...),
// the CPU fill kernels and the CUDA ones (kernels/cuda/random_dist.cu, random_int.cu: TOCHA_HD
// makes them device functions there) so that all give the same values for the same words.
// Formulas are Torch7's THRandom.
#pragma once
#include <cmath>
#include <cstdint>
#include "core/half.h"  // TOCHA_HD

namespace tocha {
namespace dist {

// Note [Random streams]
// Every distribution consumes 32-bit MT19937 words exactly as Torch7's THRandom does: one word
// per uniform (u = w / 2^32), uniform/exponential/cauchy/geometric/bernoulli one word per value,
// normal/logNormal two words per Box-Muller pair, random(a, b) one word (two when the range
// exceeds 2^32), multinomial one word per sample, randperm one per swap. Fills draw their words serially in element order, under the generator's lock,
// and only then transform them (in parallel), so values never depend on the thread count, and a
// DoubleTensor fill gives the numbers Torch7 gives for the same seed. Float fills use the top 24
// bits of the same words so that a [0, 1) uniform never rounds up to 1 (and every uniform fill
// clamps to the largest value below b, which rounding could otherwise reach). CUDA fills from
// the default generator take their words from the device's Philox stream instead (Note [Philox
// streams], core/philox.h) and go through these same transforms (Note [Device distributions]).

constexpr double kInv32 = 1.0 / 4294967296.0;
constexpr float kInv24 = 1.0f / 16777216.0f;
constexpr double kPi = 3.14159265358979323846;

// Conversions go through signed types, which SSE2 converts in vector registers.
TOCHA_HD inline double u32_to_uniform(uint32_t w) { return double(int64_t(w)) * kInv32; }  // [0, 1), Torch7's
TOCHA_HD inline float u32_to_uniform24(uint32_t w) { return float(int32_t(w >> 8)) * kInv24; }  // [0, 1) in float
// [0, 1) from 53 bits of two words (the CUDA f64 fills, Note [Device distributions]).
TOCHA_HD inline double u64_to_uniform53(uint32_t hi, uint32_t lo) {
  return double(int64_t((uint64_t(hi) << 21) ^ (lo >> 11))) * (1.0 / 9007199254740992.0);
}

// The transforms of a uniform u in [0, 1), in the precision R of their arguments: double on the
// CPU (Torch7's), float for the CUDA f32/f16/bf16 fills. 1 - u > 0, so every log is finite.
template <class R> TOCHA_HD inline R exponential(R u, R lambda) { return R(-1) / lambda * std::log(R(1) - u); }
template <class R> TOCHA_HD inline R cauchy(R u, R median, R sigma) {
  return median + sigma * std::tan(R(kPi) * (u - R(0.5)));
}
// Torch7's geometric: P(i) = (1-p) p^(i-1), i >= 1.
TOCHA_HD inline double geometric(double u, double p) { return double(int64_t(std::log(1.0 - u) / std::log(p)) + 1); }
TOCHA_HD inline bool bernoulli(uint32_t w, double p) { return u32_to_uniform(w) < p; }

// Box-Muller on two uniforms x, y in [0, 1): z0 = r cos(2 pi x), z1 = r sin(2 pi x).
template <class R> TOCHA_HD inline void box_muller_uniforms(R x, R y, R* z0, R* z1) {
  R rho = std::sqrt(R(-2) * std::log(R(1) - y));
  *z0 = rho * std::cos(R(2.0 * kPi) * x);
  *z1 = rho * std::sin(R(2.0 * kPi) * x);
}
// Box-Muller on two words (x then y, Torch7's order).
TOCHA_HD inline void box_muller(uint32_t wx, uint32_t wy, double* z0, double* z1) {
  box_muller_uniforms(u32_to_uniform(wx), u32_to_uniform(wy), z0, z1);
}

// Torch7's logNormal takes the mean and std of the log-normal itself; these are the parameters
// of the underlying normal.
inline void log_normal_params(double mean, double std, double* mu, double* sigma) {
  double zm = mean * mean, zs = std * std;
  *mu = std::log(zm / std::sqrt(zs + zm));
  *sigma = std::sqrt(std::log(zs / zm + 1.0));
}

// Integers in [lo, lo + range) from one word (range <= 2^32) or two (Torch7's modulo);
// range 0 means the full 64-bit span.
TOCHA_HD inline int words_for_range(uint64_t range) { return (range == 0 || range > 4294967296ull) ? 2 : 1; }
TOCHA_HD inline int64_t random_in_range(const uint32_t* w, int64_t lo, uint64_t range) {
  if (words_for_range(range) == 1) {
    // w % range in 32 bits when range < 2^32: the same value, and far cheaper on a GPU.
    const uint32_t r = range < 4294967296ull ? w[0] % uint32_t(range) : w[0];
    return int64_t(uint64_t(lo) + r);
  }
  uint64_t x = (uint64_t(w[0]) << 32) | w[1];
  return int64_t(uint64_t(lo) + (range ? x % range : x));
}

}  // namespace dist
}  // namespace tocha
