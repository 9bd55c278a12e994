// The distributions as functions of 32-bit words, shared by the scalar draws (torch.uniform...)
// and the CPU fill kernels so that both give the same values. Formulas are Torch7's THRandom.
#pragma once
#include <cmath>
#include <cstdint>

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
// clamps to the largest value below b, which rounding could otherwise reach).

constexpr double kInv32 = 1.0 / 4294967296.0;
constexpr float kInv24 = 1.0f / 16777216.0f;
constexpr double kPi = 3.14159265358979323846;

// Conversions go through signed types, which SSE2 converts in vector registers.
inline double u32_to_uniform(uint32_t w) { return double(int64_t(w)) * kInv32; }  // [0, 1), Torch7's
inline float u32_to_uniform24(uint32_t w) { return float(int32_t(w >> 8)) * kInv24; }  // [0, 1) in float

inline double exponential(double u, double lambda) { return -1.0 / lambda * std::log(1.0 - u); }
inline double cauchy(double u, double median, double sigma) { return median + sigma * std::tan(kPi * (u - 0.5)); }
// Torch7's geometric: P(i) = (1-p) p^(i-1), i >= 1.
inline double geometric(double u, double p) { return double(int64_t(std::log(1.0 - u) / std::log(p)) + 1); }
inline bool bernoulli(uint32_t w, double p) { return u32_to_uniform(w) < p; }

// Box-Muller on two words (x then y, Torch7's order): z0 = r cos(2 pi x), z1 = r sin(2 pi x).
inline void box_muller(uint32_t wx, uint32_t wy, double* z0, double* z1) {
  double x = u32_to_uniform(wx), y = u32_to_uniform(wy);
  double rho = std::sqrt(-2.0 * std::log(1.0 - y));
  *z0 = rho * std::cos(2.0 * kPi * x);
  *z1 = rho * std::sin(2.0 * kPi * x);
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
inline int words_for_range(uint64_t range) { return (range == 0 || range > 4294967296ull) ? 2 : 1; }
inline int64_t random_in_range(const uint32_t* w, int64_t lo, uint64_t range) {
  if (words_for_range(range) == 1) return int64_t(uint64_t(lo) + w[0] % range);
  uint64_t x = (uint64_t(w[0]) << 32) | w[1];
  return int64_t(uint64_t(lo) + (range ? x % range : x));
}

}  // namespace dist
}  // namespace tocha
