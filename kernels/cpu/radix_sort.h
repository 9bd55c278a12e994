// LSD radix sort of a slice's keys with their positions: the sort kernel's path for long slices
// (kernels/cpu/sort_kernels.cpp).
//
// Note [Radix sort]: sort compared (key, position) items with std::sort, ~30 ns an element for a
// 256-long row and ~46 for 2048-long ones (PyTorch 1.13 the same: 2.0 ms for 256x256 along the
// rows, 189 ms for 2048x2048). Here each key becomes an unsigned integer whose order is the sort's
// order (radix_key: NaN above +inf, -0 equal to +0, descending as the complement), and the
// positions are sorted by it a byte at a time, least significant first. Each pass is stable, so
// equal keys keep their positions' order: the same total order as the comparison sort (key, then
// position), so results are identical, NaN and ties included. One pass over the keys builds every
// byte's histogram; a byte that all keys share (the high bytes of small integers, the low mantissa
// bytes of halves widened to float) is skipped.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace tocha {
namespace cpu {

template <class K> struct RadixUint {
  using type = std::conditional_t<sizeof(K) == 1, uint8_t,
                                  std::conditional_t<sizeof(K) == 2, uint16_t,
                                                     std::conditional_t<sizeof(K) == 4, uint32_t, uint64_t>>>;
};

// An unsigned key with the order of the sort: ascending numbers, NaN last, -0 == +0.
template <class K> inline typename RadixUint<K>::type radix_key(K v) {
  using U = typename RadixUint<K>::type;
  constexpr U kTop = U(U(1) << (8 * sizeof(U) - 1));
  if constexpr (std::is_floating_point<K>::value) {
    if (v != v) return U(~U(0));
    if (v == K(0)) v = K(0);  // -0 sorts with +0
    U b;
    std::memcpy(&b, &v, sizeof(U));
    return (b & kTop) ? U(~b) : U(b | kTop);
  } else if constexpr (std::is_signed<K>::value) {
    return U(U(v) ^ kTop);
  } else {
    return U(v);
  }
}

// Sorts positions idx[0, n) by keys[0, n) (stable), using the second buffers as scratch; returns
// whether the result ended in the second buffers (keys2, idx2) instead of the first.
template <class U> bool radix_sort(U* keys, int64_t* idx, U* keys2, int64_t* idx2, int64_t n) {
  constexpr int kBytes = int(sizeof(U));
  int64_t hist[kBytes][256] = {};  // at most 16 KiB of stack
  for (int64_t i = 0; i < n; ++i) {
    const U k = keys[i];
    for (int b = 0; b < kBytes; ++b) ++hist[b][(k >> (8 * b)) & 0xff];
  }
  bool swapped = false;
  for (int b = 0; b < kBytes; ++b) {
    int64_t* h = hist[b];
    if (h[(keys[0] >> (8 * b)) & 0xff] == n) continue;  // every key has this byte
    int64_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      const int64_t c = h[d];
      h[d] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int64_t to = h[(keys[i] >> (8 * b)) & 0xff]++;
      keys2[to] = keys[i];
      idx2[to] = idx[i];
    }
    std::swap(keys, keys2);
    std::swap(idx, idx2);
    swapped = !swapped;
  }
  return swapped;
}

}  // namespace cpu
}  // namespace tocha
