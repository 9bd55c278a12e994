// Branch-free selects by a byte mask: the row loops of where and maskedFill.
//
// Note [Branch-free selects]: where and maskedFill chose each element with a branch on the mask,
// and the compiler kept it a branch (a conditional store, or a select it would not vectorize at
// -O2). A random mask mispredicts half of them: a 256x256 maskedFill took 217 us with a random
// mask and 27 us with an all-zero one (PyTorch 1.13: 243 us, the same kind of loop). blend() picks
// by the bits instead (both sides are read, the mask widened to an all-ones or all-zeros word), so
// the time no longer depends on the mask, and the stride-1 loops vectorize in the SIMD clones.
// Any non-zero mask byte selects the first side.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "kernels/cpu/loops.h"

namespace tocha {
namespace cpu {

template <size_t N> struct UintOfSize;
template <> struct UintOfSize<1> { using type = uint8_t; };
template <> struct UintOfSize<2> { using type = uint16_t; };
template <> struct UintOfSize<4> { using type = uint32_t; };
template <> struct UintOfSize<8> { using type = uint64_t; };

// c ? x : y, on the representations (every Tocha dtype is 1, 2, 4 or 8 bytes).
template <class T> inline T blend(uint8_t c, T x, T y) {
  using U = typename UintOfSize<sizeof(T)>::type;
  U ux, uy;
  std::memcpy(&ux, &x, sizeof(T));
  std::memcpy(&uy, &y, sizeof(T));
  const U m = U(0) - U(c != 0);
  const U r = U((ux & m) | (uy & U(~m)));
  T out;
  std::memcpy(static_cast<void*>(&out), &r, sizeof(T));  // Half and BFloat16 have constructors
  return out;
}

// o[i] = c[i] ? a[i] : b[i] over a stride-1 run; kAOne/kBOne: a (b) is one value for every i.
template <class T, bool kAOne, bool kBOne>
TOCHA_SIMD_CLONES void select_run(T* o, const uint8_t* c, const T* a, const T* b, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = blend(c[i], a[kAOne ? 0 : i], b[kBOne ? 0 : i]);
}

// One row of a select: the stride-1 loops where the strides allow, else a strided blend.
template <class T>
void select_row(T* o, int64_t so, const uint8_t* c, int64_t sc, const T* a, int64_t sa, const T* b, int64_t sb,
                int64_t n) {
  if (so == 1 && sc == 1 && (sa == 0 || sa == 1) && (sb == 0 || sb == 1)) {
    if (sa == 1 && sb == 1) select_run<T, false, false>(o, c, a, b, n);
    else if (sa == 1) select_run<T, false, true>(o, c, a, b, n);
    else if (sb == 1) select_run<T, true, false>(o, c, a, b, n);
    else select_run<T, true, true>(o, c, a, b, n);
    return;
  }
  for (int64_t i = 0; i < n; ++i) o[i * so] = blend(c[i * sc], a[i * sa], b[i * sb]);
}

}  // namespace cpu
}  // namespace tocha
