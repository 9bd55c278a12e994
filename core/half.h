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

// Note [Branch-free half conversions]: the same results, bit for bit, as the three conversions
// above, with every case computed and one selected, so that CPU loops over arrays vectorize
// (GCC kept the branchy forms scalar: a float -> half copy of 256x256 took 55 us, 3.2x
// PyTorch's F16C loop). Checked against the branchy forms over every float and every half in
// cpp.half conversions.
// All-ones when c holds, else zero, and a blend by such a mask: arithmetic that vectorizes
// where GCC left the equivalent ternaries as jumps ("control flow in loop").
namespace half_detail {
inline uint32_t mask_if(bool c) { return 0u - uint32_t(c); }
inline uint32_t blend(uint32_t mask, uint32_t a, uint32_t b) { return (a & mask) | (b & ~mask); }
}  // namespace half_detail
inline uint16_t float_to_half_bits_select(float f) {
  using half_detail::blend;
  using half_detail::mask_if;
  const uint32_t x = float_bits(f), sign = (x >> 16) & 0x8000u, absx = x & 0x7fffffffu;
  const uint32_t special = blend(mask_if(absx > 0x7f800000u), 0x7e00u, 0x7c00u);  // NaN, inf
  const uint32_t sub = float_bits(bits_float(absx) + 0.5f) - 0x3f000000u;        // subnormal or zero
  const uint32_t normal = (absx + 0xc8000fffu + ((absx >> 13) & 1u)) >> 13;
  uint32_t mag = blend(mask_if(absx < 0x38800000u), sub, normal);
  mag = blend(mask_if(absx >= 0x477ff000u), 0x7c00u, mag);  // rounds to >= 65520: inf
  mag = blend(mask_if(absx >= 0x7f800000u), special, mag);
  return uint16_t(sign | mag);
}
inline float half_bits_to_float_select(uint16_t h) {
  using half_detail::blend;
  using half_detail::mask_if;
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  const uint32_t special = 0x7f800000u | (mant << 13);
  const uint32_t sub = float_bits(float(int32_t(mant)) * (1.0f / 16777216.0f));
  const uint32_t normal = ((exp + 112u) << 23) | (mant << 13);
  const uint32_t mag = blend(mask_if(exp == 0x1f), special, blend(mask_if(exp == 0), sub, normal));
  return bits_float(sign | mag);
}
inline uint16_t float_to_bf16_bits_select(float f) {
  using half_detail::blend;
  using half_detail::mask_if;
  const uint32_t x = float_bits(f);
  const uint32_t nan = (x >> 16) | 0x40u, rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  return uint16_t(blend(mask_if((x & 0x7fffffffu) > 0x7f800000u), nan, rounded));
}

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
