// CPU loops over a ReduceIter (core/ops/reduce_iter.h): the generic reduction driver used by
// every reduction kernel, and the per-slice loop of the sort and scan kernels. Kernels never
// validate: core/ already did.
#pragma once
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>
#include "core/dtype.h"
#include "core/ops/reduce_iter.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/parallel.h"
#include "kernels/reduce_ops.h"

namespace tocha {
namespace cpu {

// Note [Reduction functors]
// A reduction is a functor Op with
//   using acc_t;                                  the accumulator (a number or a small struct)
//   acc_t identity() const;
//   acc_t reduce(acc_t a, T x, int64_t i) const;  folds element x, at index i of the reduced dims
//   acc_t combine(acc_t a, acc_t b) const;        merges two partial results (any order)
//   auto project(acc_t a) const;                  the result, in accumulator precision
//   static constexpr bool kIndex;                 whether acc.i is written to operand 2
// and optionally acc_t reduce_segment(const T* p, int64_t n, int64_t i0) const, which folds a
// contiguous run at once (two vectorized passes beat a branchy per-element update for argmax,
// var and logsumexp). reduce() must be cheap and branch-light: the driver calls it in
// fixed-width lane loops that the compiler vectorizes, and never through a pointer.

constexpr int kLanes = 8;            // independent accumulators per contiguous run
constexpr int64_t kChunk = 131072;   // elements per task when one output's reduction is split
constexpr int64_t kMaxBlock = 1024;  // outputs reduced together in the column case

// Offsets (in elements) of each operand at output number o (row-major over the kept dims).
inline void out_offsets(const ReduceIter& it, int64_t o, int64_t* off) {
  for (int k = 0; k < it.noperands; ++k) off[k] = 0;
  for (int d = it.ndim - 1; d >= 0; --d) {
    int64_t i = o % it.shape[d];
    o /= it.shape[d];
    for (int k = 0; k < it.noperands; ++k) off[k] += i * it.strides[k][d];
  }
}

// Calls seg(p, n, stride, i0) for the runs of the innermost reduced dim that make up the flat
// range [rb, re) of the reduced dims; p points into operand k (base at the output's offset).
template <class T, class F>
void walk_reduced(const ReduceIter& it, int k, const T* base, int64_t rb, int64_t re, const F& seg) {
  if (rb >= re) return;  // also keeps the index arithmetic below away from empty dims
  const int nr = it.rdim, inner = nr - 1;
  int64_t idx[kMaxDims];
  int64_t rem = rb;
  for (int d = nr - 1; d >= 0; --d) { idx[d] = rem % it.rshape[d]; rem /= it.rshape[d]; }
  for (int64_t pos = rb; pos < re;) {
    int64_t off = 0;
    for (int d = 0; d < nr; ++d) off += idx[d] * it.rstrides[k][d];
    int64_t n = std::min(it.rshape[inner] - idx[inner], re - pos);
    seg(base + off, n, it.rstrides[k][inner], pos);
    pos += n;
    idx[inner] += n;
    for (int d = inner; d > 0 && idx[d] >= it.rshape[d]; --d) { idx[d] = 0; ++idx[d - 1]; }
  }
}

// Folds n contiguous elements into kLanes independent accumulators, so the loop vectorizes and
// float sums gain accuracy (each lane sums n/8 terms), then merges the lanes pairwise.
template <class Op, class T>
typename Op::acc_t reduce_contiguous(const Op& op, const T* p, int64_t n, int64_t i0) {
  using A = typename Op::acc_t;
  A acc = op.identity();
  int64_t i = 0;
  if (n >= 2 * kLanes) {
    A lanes[kLanes];
    for (int l = 0; l < kLanes; ++l) lanes[l] = op.identity();
    // Fully unrolled so the lanes live in registers (a rolled loop keeps them on the stack).
    for (; i + kLanes <= n; i += kLanes) {
#pragma GCC unroll 8
      for (int l = 0; l < kLanes; ++l) lanes[l] = op.reduce(lanes[l], p[i + l], i0 + i + l);
    }
#pragma GCC unroll 3  // the tree unrolled (Note [Wide sum lanes]: as loops these stayed scalar)
    for (int w = kLanes / 2; w > 0; w /= 2) {
#pragma GCC unroll 4
      for (int l = 0; l < w; ++l) lanes[l] = op.combine(lanes[l], lanes[l + w]);
    }
    acc = lanes[0];
  }
  for (; i < n; ++i) acc = op.reduce(acc, p[i], i0 + i);
  return acc;
}

// Note [Wide sum lanes]: a contiguous floating sum folded into reduce_contiguous's 8 lanes, in
// the baseline x86-64 code the reduction loops are built for: one double add per lane in flight,
// 9 us for 256x256 floats (PyTorch: 3). Here 32 lanes in the SIMD clones (four AVX-512 vectors of
// doubles, or eight AVX2 ones) keep the adders busy. The lanes also make the sum of a long run more
// accurate, each adding 1/32 of it; the order depends on the sizes only, as before.
constexpr int kWideLanes = 32;
// Note [Short runs]: the vector folds of a run (wide_sum, extreme_run and the first position)
// pay ~130-160 instructions of set-up, lane merging and remainder loops per run, whatever its
// length: a 64x10 sum or max along the last dim spent more there than PyTorch's whole call
// (sum 2.8 us against 1.8, max with indices 6.6 against 2.6). Runs shorter than kShortRun (max,
// min) or kWideLanes (the wide sums and products) are plain loops of the functor's reduce(), which
// give the same results.
constexpr int64_t kShortRun = 16;
// NaN tests, max/min's identity (worst) and order (better) are the device-shared ones.
using reduce::better;
using reduce::is_nan;
using reduce::worst;

// wide_fold(p, n, map, fold, init): fold (a sum or a product) of map(x) for x in the run, in
// kWideLanes lanes; wide_sum is the sum (the 1- and 2-norms map |x| and x^2).
struct WideIdentity {
  template <class A> A operator()(A v) const { return v; }
};
struct WidePlus {
  template <class A> A operator()(A a, A b) const { return a + b; }
};
struct WideTimes {
  template <class A> A operator()(A a, A b) const { return a * b; }
};
// fold(acc, map(x)) over n contiguous elements in kN lanes, merged with fold; init is fold's
// identity. Runs shorter than kN are one plain loop (Note [Short runs]): the same order of
// operations the lanes would give them.
template <int kN, class A, class T, class Map, class Fold>
inline A fold_lanes(const T* p, int64_t n, A init, const Map& map, const Fold& fold) {
  A acc = init;
  int64_t i = 0;
  if (n >= kN) {
    A lanes[kN];
    for (int l = 0; l < kN; ++l) lanes[l] = init;
    for (; i + kN <= n; i += kN) {
#pragma GCC unroll 32
      for (int l = 0; l < kN; ++l) lanes[l] = fold(lanes[l], map(A(opmath_t<T>(p[i + l]))));
    }
    // The tree unrolled: as a loop it stayed scalar and took a third of a 256-long row's sum.
#pragma GCC unroll 5
    for (int w = kN / 2; w > 0; w /= 2) {
#pragma GCC unroll 16
      for (int l = 0; l < w; ++l) lanes[l] = fold(lanes[l], lanes[l + w]);
    }
    acc = lanes[0];
  }
  for (; i < n; ++i) acc = fold(acc, map(A(opmath_t<T>(p[i]))));
  return acc;
}
// Note [Vector extremes]: the extreme of a contiguous run, folded in the compute type in
// kWideLanes independent lanes in the SIMD clones (max/min, logsumexp's max); reduce_contiguous's
// lanes stayed scalar compares and branches (max along the last dim of 256x256 with indices:
// 83 us, 2.1x PyTorch's time). reduce_minmax.cpp then finds the first position of a value a block
// at a time, each block tested with a vector count of its compares. Between -0 and +0 (equal) the
// values-only max/min may return either, as PyTorch's may; with indices the value is read at the
// first position, so it is the element the index names.
// Note [Extreme lanes in memory]: the extreme of a run is folded into 64 lanes kept in a small
// array, a block of 64 elements per step (each lane takes v when v is NaN or better, so a lane
// that met a NaN keeps it), then the lanes are halved down to a 16-wide vector and folded last.
// The loops are OpenMP simd loops, vectorized for each clone's target. This was one OpenMP max
// reduction with a NaN count beside it: GCC kept the max in one register, each step waiting on
// the last (4 cycles per 8 floats), and widened the count to 64-bit lanes: ~500 instructions for a
// 256-float row, and a row-wise amax of 256x256 took 16.2 us against PyTorch's 6.8. Four such
// reductions over the quarters of the run had four chains but paid a scalar merge of 64 lanes in
// OpenMP's epilogue; GCC vector types were lowered for the baseline target before cloning (scalar
// code), as were 32 scalar lanes left to the SLP pass.
template <bool kMax, class M> inline M keep_extreme(M a, M v) {
  const M r = (kMax ? a < v : v < a) ? v : a;
  return v != v ? v : r;
}
template <bool kMax, class T>
TOCHA_SIMD_CLONES opmath_t<T> extreme_run(const T* __restrict p, int64_t n, int64_t* nans) {
  using M = opmath_t<T>;
  constexpr int64_t kBlock = 64;
  alignas(64) M acc[kBlock];
  for (int64_t l = 0; l < kBlock; ++l) acc[l] = worst<M, kMax>();
  int64_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
#pragma omp simd aligned(acc : 64)
    for (int64_t l = 0; l < kBlock; ++l) acc[l] = keep_extreme<kMax>(acc[l], M(p[i + l]));
  }
  const int64_t rest = n - i;
#pragma omp simd aligned(acc : 64)
  for (int64_t l = 0; l < rest; ++l) acc[l] = keep_extreme<kMax>(acc[l], M(p[i + l]));
  for (int64_t w = kBlock / 2; w >= 8; w /= 2) {
#pragma omp simd aligned(acc : 64)
    for (int64_t l = 0; l < w; ++l) acc[l] = keep_extreme<kMax>(acc[l], acc[l + w]);
  }
  M m = acc[0];
  for (int64_t l = 1; l < 8; ++l) m = keep_extreme<kMax>(m, acc[l]);
  *nans = is_nan(m);
  return m;
}

// kLanes lanes, inlined into the caller: the building block of the reduce_segment hooks (a sum of
// squares, a count of infinities...).
template <class A, class T, class Map, class Fold>
A lane_fold(const T* p, int64_t n, A init, const Map& map, const Fold& fold) {
  return fold_lanes<kLanes>(p, n, init, map, fold);
}
// kWideLanes lanes in the SIMD clones (Note [Wide sum lanes]): sums and products of long runs.
template <class A, class T, class Map, class Fold>
TOCHA_SIMD_CLONES A wide_fold(const T* p, int64_t n, Map map, Fold fold, A init) {
  return fold_lanes<kWideLanes>(p, n, init, map, fold);
}
template <class A, class T, class Map> A wide_sum(const T* p, int64_t n, Map map) {
  return wide_fold<A>(p, n, map, WidePlus{}, A(0));
}
template <class Op, class T, class = void> struct HasSegment : std::false_type {};
template <class Op, class T>
struct HasSegment<Op, T, std::void_t<decltype(std::declval<const Op&>().reduce_segment(
                             static_cast<const T*>(nullptr), int64_t(0), int64_t(0)))>> : std::true_type {};

template <class Op, class T>
typename Op::acc_t fold_contiguous(const Op& op, const T* p, int64_t n, int64_t i0) {
  if constexpr (HasSegment<Op, T>::value) return op.reduce_segment(p, n, i0);
  else return reduce_contiguous(op, p, n, i0);
}

// Rows of the column case: accs[j] folds row[j] (the loop runs along memory), for one row or,
// to load and store the accumulators less often, four rows st apart.
template <class Op, class T>
TOCHA_SIMD_CLONES void fold_row(const Op& op, typename Op::acc_t* __restrict accs, const T* __restrict row, int64_t w,
                                int64_t i) {
#pragma omp simd  // -O2's cost model would not vectorize a loop with a runtime trip count
  for (int64_t j = 0; j < w; ++j) accs[j] = op.reduce(accs[j], row[j], i);
}
template <class Op, class T>
TOCHA_SIMD_CLONES void fold_rows4(const Op& op, typename Op::acc_t* __restrict accs, const T* __restrict row, int64_t st,
                                  int64_t w, int64_t i) {
#pragma omp simd
  for (int64_t j = 0; j < w; ++j) {
    auto a = op.reduce(accs[j], row[j], i);
    a = op.reduce(a, row[j + st], i + 1);
    a = op.reduce(a, row[j + 2 * st], i + 2);
    accs[j] = op.reduce(a, row[j + 3 * st], i + 3);
  }
}

using reduce::cast_result;

// The reduction driver. Work is cut into units: one output, or in the column case (the reduced
// dims are not contiguous but the innermost kept dim is: column sums) a block of up to kMaxBlock
// neighbouring outputs reduced together, reading whole rows. Units are spread over threads; when
// there are few, each unit's reduced range is also split into fixed-size chunks whose partial
// results are merged in order afterwards. Chunking depends only on the sizes, so results do not
// depend on the number of threads.
template <class Op, class T, class R> void reduce_kernel(const ReduceIter& it, const Op& op) {
  using A = typename Op::acc_t;
  if (it.n_out == 0) return;
  const T* in = reinterpret_cast<const T*>(it.data[0]);
  const int64_t n_red = it.n_red;
  const bool contiguous_rows = it.rstrides[0][it.rdim - 1] == 1;
  const bool columns = !contiguous_rows && it.ndim > 0 && it.strides[0][it.ndim - 1] == 1 && n_red > 1;
  const int64_t row_len = columns ? it.shape[it.ndim - 1] : 1;
  int64_t width = columns ? std::min(row_len, kMaxBlock) : 1;
  // The chunks of the reduced dims are chosen from the full blocks, before the halving below: they
  // set the order of a column's sums, which must not change with the blocks.
  const int64_t full_width = width;
  const int64_t full_units = columns ? it.n_out / row_len * ((row_len + width - 1) / width) : it.n_out;
  int64_t chunk = n_red;
  if (full_units < 64 && n_red * full_width > 2 * kChunk) chunk = std::max<int64_t>(kChunk / full_width, 1);
  // Few wide blocks (one 256-wide block for a 256x256 max along dim 1) would leave threads idle:
  // halve the blocks while each still holds a grain of work. A column's result does not depend on
  // the block it is in (each folds its rows in order, chunked as above), so neither do the results.
  if (columns)
    while (width >= 128 && it.n_out / row_len * ((row_len + width - 1) / width) < 8 && n_red * width >= 2 * kGrainSize)
      width /= 2;
  const int64_t blocks_per_row = (row_len + width - 1) / width;
  const int64_t n_units = columns ? it.n_out / row_len * blocks_per_row : it.n_out;
  const int64_t n_chunks = n_red > chunk ? (n_red + chunk - 1) / chunk : 1;
  const int64_t grain = std::max<int64_t>(kGrainSize / std::max<int64_t>(width * std::min(chunk, n_red), 1), 1);
  const int64_t s1 = it.ndim > 0 ? it.strides[1][it.ndim - 1] : 0;
  const int64_t s2 = Op::kIndex && it.ndim > 0 ? it.strides[2][it.ndim - 1] : 0;

  auto store_at = [&](int64_t off1, int64_t off2, const A& acc) {
    auto v = op.project(acc);
    if (it.value_f64) reinterpret_cast<double*>(it.data[1])[off1] = double(v);
    else reinterpret_cast<R*>(it.data[1])[off1] = cast_result<R>(v);
    if constexpr (Op::kIndex) reinterpret_cast<int64_t*>(it.data[2])[off2] = acc.i + it.index_base;
  };

  // One reduced dim and at most one kept dim, no chunks: a direct loop over outputs.
  if (!columns && n_chunks == 1 && it.rdim == 1 && it.ndim <= 1) {
    const int64_t si = it.ndim > 0 ? it.strides[0][0] : 0, rs = it.rstrides[0][0];
    parallel_for(it.n_out, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const T* p = in + o * si;
        A acc;
        if (rs == 1) {
          acc = fold_contiguous(op, p, n_red, 0);
        } else {
          acc = op.identity();
          for (int64_t i = 0; i < n_red; ++i) acc = op.reduce(acc, p[i * rs], i);
        }
        store_at(o * s1, o * s2, acc);
      }
    });
    return;
  }

  // First output of unit u, and how many outputs it has.
  auto unit_start = [&](int64_t u, int64_t* o, int64_t* w) {
    if (!columns) { *o = u; *w = 1; return; }
    int64_t row = u / blocks_per_row, b = u % blocks_per_row;
    *o = row * row_len + b * width;
    *w = std::min(width, row_len - b * width);
  };
  // Folds the reduced range [rb, re) of unit u into accs[0..w).
  auto compute = [&](int64_t u, int64_t rb, int64_t re, A* accs) {
    int64_t o, w, off[ReduceIter::kMaxOperands];
    unit_start(u, &o, &w);
    out_offsets(it, o, off);
    const T* base = in + off[0];
    if (!columns) {
      A acc = op.identity();
      walk_reduced(it, 0, base, rb, re, [&](const T* p, int64_t n, int64_t st, int64_t i0) {
        if (st == 1) {
          acc = op.combine(acc, fold_contiguous(op, p, n, i0));
        } else {
          for (int64_t i = 0; i < n; ++i) acc = op.reduce(acc, p[i * st], i0 + i);
        }
      });
      accs[0] = acc;
      return;
    }
    for (int64_t j = 0; j < w; ++j) accs[j] = op.identity();
    walk_reduced(it, 0, base, rb, re, [&](const T* p, int64_t n, int64_t st, int64_t i0) {
      int64_t r = 0;
      for (; r + 4 <= n; r += 4) fold_rows4(op, accs, p + r * st, st, w, i0 + r);
      for (; r < n; ++r) fold_row(op, accs, p + r * st, w, i0 + r);
    });
  };
  auto store = [&](int64_t u, const A* accs) {
    int64_t o, w, off[ReduceIter::kMaxOperands];
    unit_start(u, &o, &w);
    out_offsets(it, o, off);
    for (int64_t j = 0; j < w; ++j) store_at(off[1] + j * s1, Op::kIndex ? off[2] + j * s2 : 0, accs[j]);
  };

  // Not std::vector: A may be bool.
  if (n_chunks == 1) {
    parallel_for(n_units, grain, [&](int64_t b, int64_t e) {
      std::unique_ptr<A[]> accs(new A[size_t(width)]);
      for (int64_t u = b; u < e; ++u) {
        compute(u, 0, n_red, accs.get());
        store(u, accs.get());
      }
    });
    return;
  }
  std::unique_ptr<A[]> part(new A[size_t(n_units * n_chunks * width)]);
  parallel_for(n_units * n_chunks, grain, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t u = t / n_chunks, c = t % n_chunks;
      compute(u, c * chunk, std::min(n_red, (c + 1) * chunk), &part[size_t(t * width)]);
    }
  });
  for (int64_t u = 0; u < n_units; ++u) {
    int64_t o, w;
    unit_start(u, &o, &w);
    A* p = &part[size_t(u * n_chunks * width)];
    for (int64_t c = 1; c < n_chunks; ++c)
      for (int64_t j = 0; j < w; ++j) p[j] = op.combine(p[j], p[c * width + j]);
    store(u, p);
  }
}

// Calls body(off, scratch) for every slice (one per kept index) in parallel; off[k] is operand k's
// element offset of the slice start, and the slice runs along rshape[0] with strides
// rstrides[k][0]. Each thread's range gets one Scratch (a sort buffer...) reused across slices.
template <class Scratch, class Body> void for_each_slice(const ReduceIter& it, const Body& body) {
  const int64_t cost = std::max<int64_t>(it.n_red, 1);
  parallel_for(it.n_out, std::max<int64_t>(kGrainSize / cost, 1), [&](int64_t b, int64_t e) {
    Scratch scratch{};
    int64_t off[ReduceIter::kMaxOperands], idx[kMaxDims];
    out_offsets(it, b, off);
    // The kept index of slice b, then stepped like an odometer: out_offsets' two divisions per dim
    // cost more than a short slice's work (a 64x10 cumsum along the rows).
    int64_t rem = b;
    for (int d = it.ndim - 1; d >= 0; --d) {
      idx[d] = rem % it.shape[d];
      rem /= it.shape[d];
    }
    for (int64_t o = b; o < e; ++o) {
      body(off, scratch);
      for (int d = it.ndim - 1; d >= 0; --d) {
        for (int k = 0; k < it.noperands; ++k) off[k] += it.strides[k][d];
        if (++idx[d] < it.shape[d]) break;
        for (int k = 0; k < it.noperands; ++k) off[k] -= it.shape[d] * it.strides[k][d];
        idx[d] = 0;
      }
    }
  });
}

// Shared with the CUDA kernels (kernels/reduce_ops.h).
using reduce::SumTypes;
using reduce::wrap_add;
using reduce::wrap_mul;
using reduce::wrap_sub;

}  // namespace cpu
}  // namespace tocha
