// Division by a divisor known only at run time, as the index math of CUDA kernels needs it
// (element i of a plane-major layout -> plane, row, column). Divider<int64_t> divides plainly;
// Divider<uint32_t> divides numerators below 2^31 with a multiply-high, an add and a shift.
//
// Note [Division by a runtime divisor]: a GPU has no integer divide instruction. nvcc turns a
// 64-bit `/` into a test of both operands' high words and a 32-bit division when they fit, and a
// 32-bit division is a reciprocal on the special-function unit (a quarter of the arithmetic rate
// on sm_90) with conversions and corrections, ~20 instructions. A pooling kernel that derives
// (plane, row, column, window) from a flat index divides 3-4 times per element, which costs more
// than its memory traffic for the 2x2 pools of a CNN. With the divisor fixed for the launch, the
// host computes a magic multiplier m and shift s once (Granlund and Montgomery's method, as in
// PyTorch's IntDivider), and n / d = (umulhi(n, m) + n) >> s on the device. Kernels take the
// Index type as a template parameter and the host chooses uint32_t when every numerator is below
// 2^31, int64_t otherwise.
#pragma once
#include <cstdint>
#include "core/device_runtime.h"  // env_flag
#include "core/half.h"  // TOCHA_HD

namespace tocha {
namespace cuda {

template <class Index> struct Divider;

template <> struct Divider<int64_t> {
  int64_t divisor;
  Divider() = default;
  explicit Divider(int64_t d) : divisor(d) {}
  TOCHA_HD int64_t div(int64_t n) const { return n / divisor; }
};

template <> struct Divider<uint32_t> {
  uint32_t divisor, magic, shift;
  Divider() = default;
  // 1 <= d <= 2^31 - 1.
  explicit Divider(int64_t d) : divisor(uint32_t(d)), magic(0), shift(0) {
    while ((uint64_t(1) << shift) < uint64_t(d)) ++shift;
    magic = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << shift) - uint64_t(d))) / uint64_t(d) + 1);
  }
  // 0 <= n <= 2^31 - 1, so that the high product plus n stays below 2^32.
  TOCHA_HD uint32_t div(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t t = __umulhi(n, magic);
#else
    const uint32_t t = uint32_t((uint64_t(n) * magic) >> 32);
#endif
    return (t + n) >> shift;
  }
};

// Whether every numerator up to `largest` (and every divisor) fits Divider<uint32_t>. The
// environment variable TOCHA_CUDA_INDEX64=1 makes it false, so tests can run the int64 kernels
// (otherwise only tensors of 2^31 elements and more take them).
inline bool fits_fast_divide(int64_t largest) {
  static const bool wide_only = env_flag("TOCHA_CUDA_INDEX64", false);
  return !wide_only && largest >= 0 && largest < (int64_t(1) << 31);
}

// Flat element i of planes of rows x cols -> (plane, row, col), with the launch's dividers.
template <class Index> struct PlaneIndex {
  Divider<Index> by_cols, by_rows;
  Index cols, rows;
  PlaneIndex() = default;
  PlaneIndex(int64_t rows_, int64_t cols_) : by_cols(cols_), by_rows(rows_), cols(Index(cols_)), rows(Index(rows_)) {}
  TOCHA_HD void split(Index i, int64_t* plane, int64_t* row, int64_t* col) const {
    const Index q = by_cols.div(i), p = by_rows.div(q);
    *col = int64_t(i - q * cols);
    *row = int64_t(q - p * rows);
    *plane = int64_t(p);
  }
};

// Runs launch(Index{}) with Index = uint32_t when no flat index or coordinate the launch divides
// exceeds `largest` (fits_fast_divide), else with int64_t. Call it only for a non-empty launch,
// so that every divisor is at least 1.
template <class Launch> void with_index_type(int64_t largest, Launch&& launch) {
  if (fits_fast_divide(largest)) launch(uint32_t{});
  else launch(int64_t{});
}

// A grid-stride loop over [0, total) in the launch's Index type.
#define TOCHA_GRID_STRIDE(Index, i, total) \
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < (total); i += Index(gridDim.x) * blockDim.x)

}  // namespace cuda
}  // namespace tocha
