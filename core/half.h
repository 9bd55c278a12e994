// f16 (IEEE half) and bf16 (bfloat16) storage types with conversion to and from float.
// Math on them converts through float (see Note [Reduced-precision math] in dtype.h).
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define TOCHA_HD __host__ __device__
#else
#define TOCHA_HD
#endif

namespace tocha {

TOCHA_HD inline uint32_t float_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
TOCHA_HD inline float bits_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// Round-to-nearest-even float -> half, with overflow to inf and NaN preserved.
TOCHA_HD inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return uint16_t(sign | (absx > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (absx >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // rounds to >= 65520: inf
  if (absx < 0x38800000u) {  // subnormal half (or zero)
    // Let the FPU round: add a magic number that aligns the mantissa.
    float v = bits_float(absx) + 0.5f;
    return uint16_t(sign | (float_bits(v) - 0x3f000000u));
  }
  uint32_t mant_odd = (absx >> 13) & 1u;
  absx += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round to nearest even
  return uint16_t(sign | (absx >> 13));
}

TOCHA_HD inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return bits_float(sign);
    float v = float(mant) * (1.0f / 16777216.0f);  // mant * 2^-24
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

TOCHA_HD inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return uint16_t((x >> 16) | 0x40u);  // quiet NaN
  x += 0x7fffu + ((x >> 16) & 1u);  // round to nearest even
  return uint16_t(x >> 16);
}

TOCHA_HD inline float bf16_bits_to_float(uint16_t b) { return bits_float(uint32_t(b) << 16); }

struct Half {
  uint16_t bits = 0;
  Half() = default;
  TOCHA_HD Half(float f) : bits(float_to_half_bits(f)) {}
  TOCHA_HD operator float() const { return half_bits_to_float(bits); }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  TOCHA_HD BFloat16(float f) : bits(float_to_bf16_bits(f)) {}
  TOCHA_HD operator float() const { return bf16_bits_to_float(bits); }
};

// A computed value v (double, float or int64) stored as element type T, as the CPU and CUDA fill
// and sequence kernels store them: integers through int64, so that out-of-range values wrap
// instead of being undefined; f16/bf16 through float.
template <class T, class V> TOCHA_HD inline T element_from(V v) {
  if constexpr (std::is_integral<T>::value) return T(int64_t(v));
  else if constexpr (std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value) return T(float(v));
  else return T(v);
}

}  // namespace tocha
