// CPU kernels of max and min (values only, or values and indices along a dim) and histc.
// NaN propagates: a NaN beats every number, and the first NaN's index is returned (PyTorch).
// Functors follow Note [Reduction functors] in kernels/cpu/reduce_loops.h.
#include <limits>
#include "core/kernel_registry.h"
#include "kernels/cpu/reduce_loops.h"

namespace tocha {
namespace cpu {
namespace {

// Note [Vector extremes] (reduce_loops.h, extreme_run): element types that are their own compute
// type take the vector reduction; the first position of the extreme is found as below.
template <class T>
constexpr bool kVectorExtreme = std::is_same<opmath_t<T>, T>::value && !std::is_same<T, bool>::value;
// The first i with p[i] == v (kNan: the first NaN); n when there is none.
template <bool kNan, class T> TOCHA_SIMD_CLONES int64_t first_position(const T* __restrict p, int64_t n, T v) {
  constexpr int64_t kBlock = 64;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = b + kBlock < n ? b + kBlock : n;
    int64_t hits = 0;
#pragma omp simd reduction(+ : hits)
    for (int64_t i = b; i < e; ++i) hits += kNan ? is_nan(p[i]) : p[i] == v;
    if (!hits) continue;
    for (int64_t i = b; i < e; ++i)
      if (kNan ? is_nan(p[i]) : p[i] == v) return i;
  }
  return n;
}

// The device-shared functors (kernels/reduce_ops.h) with a contiguous run's fold added.
template <class T, bool kMax> struct MinMaxOp : reduce::MinMaxOp<T, kMax> {
  using M = opmath_t<T>;
  using reduce::MinMaxOp<T, kMax>::identity;
  using reduce::MinMaxOp<T, kMax>::reduce;
  // A contiguous run: the vector reduction (Note [Vector extremes]) for float, double and the
  // integers; for f16/bf16 and bool, lanes of plain max and, apart, lanes that remember a NaN.
  M reduce_segment(const T* p, int64_t n, int64_t) const {
    if (n < kShortRun) {  // Note [Short runs]
      M acc = identity();
      for (int64_t i = 0; i < n; ++i) acc = reduce(acc, p[i], i);
      return acc;
    }
    if constexpr (kVectorExtreme<T>) {
      int64_t nans = 0;
      const T m = extreme_run<kMax>(p, n, &nans);
      return nans ? std::numeric_limits<M>::quiet_NaN() : m;
    } else {
      M best[kLanes], nan[kLanes];
      for (int l = 0; l < kLanes; ++l) { best[l] = identity(); nan[l] = M(0); }
      int64_t i = 0;
      for (; i + kLanes <= n; i += kLanes) {
#pragma GCC unroll 8
        for (int l = 0; l < kLanes; ++l) {
          M v = M(p[i + l]);
          best[l] = (kMax ? v > best[l] : v < best[l]) ? v : best[l];
          nan[l] = is_nan(v) ? M(1) : nan[l];
        }
      }
      M acc = identity();
      for (int l = 0; l < kLanes; ++l) {
        if (nan[l] != M(0)) return std::numeric_limits<M>::quiet_NaN();
        acc = better<kMax>(best[l], acc) ? best[l] : acc;
      }
      for (; i < n; ++i) acc = reduce(acc, p[i], i);
      return acc;
    }
  }
};

template <class T, bool kMax> struct ArgMinMaxOp : reduce::ArgMinMaxOp<T, kMax> {
  using M = opmath_t<T>;
  using acc_t = reduce::ValueIndex<M>;
  using reduce::ArgMinMaxOp<T, kMax>::identity;
  using reduce::ArgMinMaxOp<T, kMax>::reduce;
  // A contiguous run: the vectorized extreme first, then the first position holding it.
  acc_t reduce_segment(const T* p, int64_t n, int64_t i0) const {
    if (n < kShortRun) {  // Note [Short runs]: the first strictly better element, in one pass
      acc_t acc = identity();
      for (int64_t i = 0; i < n; ++i) acc = reduce(acc, p[i], i0 + i);
      return acc;
    }
    const M best = MinMaxOp<T, kMax>{}.reduce_segment(p, n, 0);
    int64_t k = 0;
    if constexpr (kVectorExtreme<T>) {
      k = is_nan(best) ? first_position<true>(p, n, T(best)) : first_position<false>(p, n, T(best));
    } else if (is_nan(best)) {
      while (!is_nan(M(p[k]))) ++k;
    } else {
      while (M(p[k]) != best) ++k;
    }
    // The value is read at the position: a reduction may return +0 where the first extreme is
    // -0 (they compare equal), and the value must be the element the index names.
    return {M(p[k]), i0 + k};
  }
};

template <class T, bool kMax> void minmax_kernel(const ReduceIter& it) {
  if (it.noperands >= 3) reduce_kernel<ArgMinMaxOp<T, kMax>, T, T>(it, ArgMinMaxOp<T, kMax>{});
  else reduce_kernel<MinMaxOp<T, kMax>, T, T>(it, MinMaxOp<T, kMax>{});
}
template <class T> void max_kernel(const ReduceIter& it) { minmax_kernel<T, true>(it); }
template <class T> void min_kernel(const ReduceIter& it) { minmax_kernel<T, false>(it); }

// histc: counts of the input (all dims reduced) in nbins equal bins over [lo, hi]; values outside
// (and NaN) are ignored, hi falls in the last bin. data[1] is the contiguous histogram of dtype
// T; params = {nbins, lo, hi}. Counts are integers, so per-thread histograms merge exactly.
template <class T> void histc_kernel(const ReduceIter& it) {
  const int64_t nbins = int64_t(it.params[0]);
  const double lo = it.params[1], hi = it.params[2], width = hi - lo;
  const T* in = reinterpret_cast<const T*>(it.data[0]);
  std::vector<int64_t> total(size_t(nbins), 0);
  parallel_for(it.n_red, kGrainSize, [&](int64_t b, int64_t e) {
    std::vector<int64_t> local(size_t(nbins), 0);
    walk_reduced(it, 0, in, b, e, [&](const T* p, int64_t n, int64_t st, int64_t) {
      for (int64_t i = 0; i < n; ++i) {
        double v = double(opmath_t<T>(p[i * st]));
        if (!(v >= lo && v <= hi)) continue;
        int64_t bin = int64_t((v - lo) / width * double(nbins));
        local[size_t(bin < nbins ? bin : nbins - 1)]++;
      }
    });
#pragma omp critical(tocha_histc)
    for (int64_t j = 0; j < nbins; ++j) total[size_t(j)] += local[size_t(j)];
  });
  T* hist = reinterpret_cast<T*>(it.data[1]);
  for (int64_t j = 0; j < nbins; ++j) hist[j] = cast_result<T>(double(total[size_t(j)]));
}

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_MAX(T) REG(max, T)
#define REG_MIN(T) REG(min, T)
#define REG_HISTC(T) REG(histc, T)

TOCHA_FOR_ALL_TYPES(REG_MAX)
TOCHA_FOR_ALL_TYPES(REG_MIN)
TOCHA_FOR_FLOAT_TYPES(REG_HISTC)

}  // namespace
}  // namespace cpu
}  // namespace tocha
