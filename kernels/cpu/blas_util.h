// Private helpers of the CPU BLAS kernels (blas_gemm.cpp, blas_gemv.cpp): multiplier conversion
// and the beta scaling of a strided result.
#pragma once
#include <cstdint>
#include <type_traits>
#include "core/dtype.h"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cpu {

// The type the loops compute T in: opmath_t for floating types; for integers the unsigned type
// of wrap_t, where products and sums wrap without undefined behaviour and give, modulo 2^bits,
// what the element type would (Note [Integer wraparound], kernels/scalar_ops.h).
template <class T, bool = scalar::wraps_v<T>> struct Acc { using type = opmath_t<T>; };
template <class T> struct Acc<T, true> { using type = scalar::wrap_t<T>; };
template <class T> using acc_t = typename Acc<T>::type;

// A multiplier in the compute type of T. Integer multipliers were checked integral by the
// front-end; going through int64_t keeps negative ones defined for unsigned types (wrapping).
template <class T> acc_t<T> multiplier(double v) {
  using M = acc_t<T>;
  if constexpr (std::is_integral<M>::value) return M(int64_t(v));
  else return M(v);
}

// A = beta * A over an m x n strided matrix; beta == 0 writes zeros (old NaNs do not survive).
template <class T> void scale_matrix(T* a, int64_t m, int64_t n, int64_t rs, int64_t cs, double beta) {
  if (beta == 1) return;
  using M = acc_t<T>;
  const M b = multiplier<T>(beta);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T& v = a[i * rs + j * cs];
      v = beta == 0 ? T(M(0)) : T(b * M(v));
    }
}

}  // namespace cpu
}  // namespace tocha
