// CPU kernels of the IndexIter ops (Note [Index iteration]): index and gather read through the
// index, indexCopy/indexFill/scatter write through it, indexAdd/scatterAdd accumulate.
#include <algorithm>
#include <cstring>
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> inline T add_values(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) return a || b;
  else return T(opmath_t<T>(a) + opmath_t<T>(b));
}

// Each op combines an element of self (addressed through the index) with one of other.
// kIndependent: every (o, i, j) writes its own element, so any split over threads is safe.
struct ReadOp {  // other = self
  static constexpr bool kIndependent = true;
  template <class T> static void apply(T* s, T* o) { *o = *s; }
  template <class T> static void row(T* s, int64_t ss, T* o, int64_t so, int64_t n) {
    if (ss == 1 && so == 1) std::memcpy(o, s, size_t(n) * sizeof(T));
    else for (int64_t j = 0; j < n; ++j) o[j * so] = s[j * ss];
  }
};
struct WriteOp {  // self = other
  static constexpr bool kIndependent = false;
  template <class T> static void apply(T* s, T* o) { *s = *o; }
  template <class T> static void row(T* s, int64_t ss, T* o, int64_t so, int64_t n) {
    if (ss == 1 && so == 1) std::memcpy(s, o, size_t(n) * sizeof(T));
    else for (int64_t j = 0; j < n; ++j) s[j * ss] = o[j * so];
  }
};
struct AddOp {  // self += other
  static constexpr bool kIndependent = false;
  template <class T> static void apply(T* s, T* o) { *s = add_values(*s, *o); }
  template <class T> static void row(T* s, int64_t ss, T* o, int64_t so, int64_t n) {
    if (ss == 1 && so == 1) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) s[j] = add_values(s[j], o[j]);
    } else {
      for (int64_t j = 0; j < n; ++j) s[j * ss] = add_values(s[j * ss], o[j * so]);
    }
  }
};

// o[i] = s[ip[i]] over contiguous operands, without the strides' multiplications: rows of 16
// gathered along the last dim took 0.8 ns per element through the strided loop, 0.46 here (about
// the cost of the reads; GCC 12 emits no vector gathers for this loop, and AVX-512 intrinsics were
// no faster in a standalone test).
template <class T> void gather_contig(T* __restrict o, const T* s, const int64_t* ip, int64_t n, int64_t base) {
  for (int64_t i = 0; i < n; ++i) o[i] = s[ip[i] - base];
}

// Steps [i0, i1) along the dim at inner positions [j0, j1) (at most one inner dim after
// coalescing), for outer offsets `base`.
template <class T, class Op>
void run_row(const IndexIter& it, const int64_t* base, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  T* self = reinterpret_cast<T*>(it.data[0]) + base[0];
  T* other = reinterpret_cast<T*>(it.data[1]) + base[1];
  const int64_t* index = reinterpret_cast<const int64_t*>(it.data[2]) + base[2];
  const bool has_inner = it.inner.ndim == 1;
  const int64_t s0 = has_inner ? it.inner.stride[0][0] : 0, s1 = has_inner ? it.inner.stride[1][0] : 0,
                s2 = has_inner ? it.inner.stride[2][0] : 0;
  const int64_t ds0 = it.dim_stride[0], ds1 = it.dim_stride[1], ds2 = it.dim_stride[2];
  const int64_t ib = it.index_base, len = j1 - j0;
  if (len == 1) {
    // One element per step along the dim (indexing the last dim, gathers and scatters along it):
    // a row call per element cost a memcpy each, 3.6x PyTorch's time for 2048x2048 index(2, ...).
    T* s = self + j0 * s0;
    T* o = other + j0 * s1;
    const int64_t* ip = index + j0 * s2;
    if constexpr (Op::kIndependent) {
      if (ds0 == 1 && ds1 == 1 && ds2 == 1) return gather_contig(o + i0, s, ip + i0, i1 - i0, ib);
    }
    for (int64_t i = i0; i < i1; ++i) Op::apply(s + (ip[i * ds2] - ib) * ds0, o + i * ds1);
    return;
  }
  for (int64_t i = i0; i < i1; ++i) {
    T* o = other + i * ds1 + j0 * s1;
    const int64_t* ip = index + i * ds2 + j0 * s2;
    if (s2 == 0) {  // one index for the whole row: a contiguous copy when strides allow
      Op::row(self + (ip[0] - ib) * ds0 + j0 * s0, s0, o, s1, len);
    } else {
      T* s = self + j0 * s0;
      for (int64_t j = 0; j < len; ++j) Op::apply(s + (ip[j * s2] - ib) * ds0 + j * s0, o + j * s1);
    }
  }
}

// Note [Gathers along a reversed or ascending range]: index_select along the last dim with one
// index for every row (flip's n-1 .. 0, or a run of consecutive positions) is a reversed or plain
// copy of each row; the index is classified once per call and each row then copies without reading
// it: index_select of 256x256 along dim 2 with the reversed index into a result 20.0 -> 5.8 us,
// torch.flip(x, 2) with its new result 37.6 -> 17.2 us (PyTorch 22.0).
enum class IndexRun { none, ascending, reversed };
inline IndexRun classify_run(const int64_t* ip, int64_t n, int64_t ib) {
  bool up = true, down = true;
  const int64_t first = ip[0] - ib;
  for (int64_t i = 0; i < n && (up || down); ++i) {
    up = up && ip[i] - ib == first + i;
    down = down && ip[i] - ib == first - i;
  }
  return up ? IndexRun::ascending : down ? IndexRun::reversed : IndexRun::none;
}
template <class T> TOCHA_SIMD_CLONES void copy_reversed(T* __restrict o, const T* __restrict s, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = s[-i];
}

// At most one outer dim and no inner positions (gathers and scatters along the last dim of a
// matrix): rows [o0, o1) of short walks along the dim, their offsets stepped by the outer strides.
// Through walk_rows and run_row, each row cost ~3 ns of set-up, as much as 6 of its elements.
template <class T, class Op> void run_matrix_rows(const IndexIter& it, int64_t o0, int64_t o1) {
  const bool has_outer = it.outer.ndim == 1;
  const int64_t os0 = has_outer ? it.outer.stride[0][0] : 0, os1 = has_outer ? it.outer.stride[1][0] : 0,
                os2 = has_outer ? it.outer.stride[2][0] : 0;
  const int64_t ds0 = it.dim_stride[0], ds1 = it.dim_stride[1], ds2 = it.dim_stride[2];
  const int64_t n = it.n, ib = it.index_base;
  const bool contiguous = ds0 == 1 && ds1 == 1 && ds2 == 1;
  if constexpr (Op::kIndependent) {
    if (contiguous && os2 == 0 && n >= 16 && o1 - o0 >= 2) {
      const int64_t* ip = reinterpret_cast<const int64_t*>(it.data[2]);
      const IndexRun run = classify_run(ip, n, ib);
      if (run != IndexRun::none) {
        const int64_t first = ip[0] - ib;
        for (int64_t o = o0; o < o1; ++o) {
          const T* s = reinterpret_cast<const T*>(it.data[0]) + o * os0 + first;
          T* other = reinterpret_cast<T*>(it.data[1]) + o * os1;
          if (run == IndexRun::ascending) std::memcpy(other, s, size_t(n) * sizeof(T));
          else copy_reversed(other, s, n);
        }
        return;
      }
    }
  }
  for (int64_t o = o0; o < o1; ++o) {
    T* s = reinterpret_cast<T*>(it.data[0]) + o * os0;
    T* other = reinterpret_cast<T*>(it.data[1]) + o * os1;
    const int64_t* ip = reinterpret_cast<const int64_t*>(it.data[2]) + o * os2;
    if constexpr (Op::kIndependent) {
      if (contiguous) {
        gather_contig(other, s, ip, n, ib);
        continue;
      }
    }
    for (int64_t i = 0; i < n; ++i) Op::apply(s + (ip[i * ds2] - ib) * ds0, other + i * ds1);
  }
}

// Several inner dims that do not coalesce (non-contiguous operands): offsets per position.
template <class T, class Op>
void run_general(const IndexIter& it, const int64_t* base, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  T* self = reinterpret_cast<T*>(it.data[0]);
  T* other = reinterpret_cast<T*>(it.data[1]);
  const int64_t* index = reinterpret_cast<const int64_t*>(it.data[2]);
  const int64_t ds0 = it.dim_stride[0], ds1 = it.dim_stride[1], ds2 = it.dim_stride[2], ib = it.index_base;
  for (int64_t j = j0; j < j1; ++j) {
    int64_t off[kIndexOperands] = {base[0], base[1], base[2]};
    it.inner.add_offsets(j, off);
    for (int64_t i = i0; i < i1; ++i)
      Op::apply(self + off[0] + (index[off[2] + i * ds2] - ib) * ds0, other + off[1] + i * ds1);
  }
}

// Rows shorter than this are not split between threads when another split exists.
constexpr int64_t kShortRow = 1024;

// Calls run(base, i0, i1, j0, j1) for the positions [b, e) of a row-major (o, x) walk, x in
// [0, xn): whole and partial rows of x, with the outer offsets advanced per row instead of
// divided out (a 2048x16 gather along its last dim spent more on the divisions than on loads).
template <class Run>
void walk_rows(const IndexIter& it, int64_t b, int64_t e, int64_t xn, Run&& run) {
  const int64_t o_first = b / xn, o_last = (e - 1) / xn;
  int64_t coord[kMaxDims], base[kIndexOperands];
  it.outer.begin(o_first, coord, base);
  for (int64_t o = o_first; o <= o_last; ++o) {
    const int64_t x0 = o == o_first ? b % xn : 0, x1 = o == o_last ? (e - 1) % xn + 1 : xn;
    run(base, x0, x1);
    if (o < o_last) it.outer.next(coord, base);
  }
}

template <class T, class Op> void index_kernel(const IndexIter& it) {
  const int64_t inner_n = it.inner.numel, n = it.n, total = it.positions();
  if (total == 0 || n == 0) return;
  auto run = [&](const int64_t* base, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if (it.inner.ndim <= 1) run_row<T, Op>(it, base, i0, i1, j0, j1);
    else run_general<T, Op>(it, base, i0, i1, j0, j1);
  };
  if (inner_n == 1 && it.outer.ndim <= 1 && it.outer.numel >= 4 * int64_t(get_num_threads())) {
    // Rows are independent for every op: each walks its own run of the dim in order. Few rows (a
    // 1-D gather) take the paths below, which also split a row between threads.
    parallel_for(it.outer.numel, std::max<int64_t>(1, kGrainSize / n),
                 [&](int64_t b, int64_t e) { run_matrix_rows<T, Op>(it, b, e); });
    return;
  }
  if (Op::kIndependent && inner_n < kShortRow) {
    // Gathers of short rows: split the (o, i) rows, so threads neither share a row's cache lines
    // nor each walk the whole index.
    parallel_for(it.outer.numel * n, std::max<int64_t>(1, kGrainSize / inner_n), [&](int64_t b, int64_t e) {
      walk_rows(it, b, e, n, [&](const int64_t* base, int64_t i0, int64_t i1) { run(base, i0, i1, 0, inner_n); });
    });
    return;
  }
  // Split the (o, j) positions; each walks the dim in order (Note [Index iteration]).
  parallel_for(total, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
    walk_rows(it, b, e, inner_n, [&](const int64_t* base, int64_t j0, int64_t j1) { run(base, 0, n, j0, j1); });
  });
}

#define REG_INDEX(T)                                                                        \
  TOCHA_REGISTER_KERNEL(index, cpu, DTypeOf<T>::value, (&index_kernel<T, ReadOp>));        \
  TOCHA_REGISTER_KERNEL(gather, cpu, DTypeOf<T>::value, (&index_kernel<T, ReadOp>));       \
  TOCHA_REGISTER_KERNEL(indexCopy, cpu, DTypeOf<T>::value, (&index_kernel<T, WriteOp>));   \
  TOCHA_REGISTER_KERNEL(indexFill, cpu, DTypeOf<T>::value, (&index_kernel<T, WriteOp>));   \
  TOCHA_REGISTER_KERNEL(scatter, cpu, DTypeOf<T>::value, (&index_kernel<T, WriteOp>));     \
  TOCHA_REGISTER_KERNEL(indexAdd, cpu, DTypeOf<T>::value, (&index_kernel<T, AddOp>));      \
  TOCHA_REGISTER_KERNEL(scatterAdd, cpu, DTypeOf<T>::value, (&index_kernel<T, AddOp>));

TOCHA_FOR_ALL_TYPES(REG_INDEX)

}  // namespace
}  // namespace cpu
}  // namespace tocha
