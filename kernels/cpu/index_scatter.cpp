// CPU kernels of the IndexIter ops (Note [Index iteration]): index and gather read through the
// index, indexCopy/indexFill/scatter write through it, indexAdd/scatterAdd accumulate.
#include <algorithm>
#include <cstring>
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
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

template <class T, class Op> void index_kernel(const IndexIter& it) {
  const int64_t inner_n = it.inner.numel, n = it.n, total = it.positions();
  if (total == 0 || n == 0) return;
  auto run = [&](int64_t o, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    int64_t base[kIndexOperands] = {0, 0, 0};
    it.outer.add_offsets(o, base);
    if (it.inner.ndim <= 1) run_row<T, Op>(it, base, i0, i1, j0, j1);
    else run_general<T, Op>(it, base, i0, i1, j0, j1);
  };
  if (Op::kIndependent && inner_n < kShortRow) {
    // Gathers of short rows: split the (o, i) rows, so threads neither share a row's cache lines
    // nor each walk the whole index.
    parallel_for(it.outer.numel * n, std::max<int64_t>(1, kGrainSize / inner_n), [&](int64_t b, int64_t e) {
      for (int64_t pos = b; pos < e;) {
        int64_t o = pos / n, i0 = pos % n, i1 = std::min(n, i0 + (e - pos));
        run(o, i0, i1, 0, inner_n);
        pos += i1 - i0;
      }
    });
    return;
  }
  // Split the (o, j) positions; each walks the dim in order (Note [Index iteration]).
  parallel_for(total, std::max<int64_t>(1, kGrainSize / n), [&](int64_t b, int64_t e) {
    for (int64_t pos = b; pos < e;) {
      int64_t o = pos / inner_n, j0 = pos % inner_n, j1 = std::min(inner_n, j0 + (e - pos));
      run(o, 0, n, j0, j1);
      pos += j1 - j0;
    }
  });
}

#define FOR_ALL_TYPES(M) M(float) M(double) M(Half) M(BFloat16) M(int64_t) M(int32_t) M(uint8_t) M(bool)
#define REG_INDEX(T)                                                                        \
  TOCHA_REGISTER_KERNEL(index, cpu, DTypeOf<T>::value, (&index_kernel<T, ReadOp>));        \
  TOCHA_REGISTER_KERNEL(gather, cpu, DTypeOf<T>::value, (&index_kernel<T, ReadOp>));       \
  TOCHA_REGISTER_KERNEL(indexCopy, cpu, DTypeOf<T>::value, (&index_kernel<T, WriteOp>));   \
  TOCHA_REGISTER_KERNEL(indexFill, cpu, DTypeOf<T>::value, (&index_kernel<T, WriteOp>));   \
  TOCHA_REGISTER_KERNEL(scatter, cpu, DTypeOf<T>::value, (&index_kernel<T, WriteOp>));     \
  TOCHA_REGISTER_KERNEL(indexAdd, cpu, DTypeOf<T>::value, (&index_kernel<T, AddOp>));      \
  TOCHA_REGISTER_KERNEL(scatterAdd, cpu, DTypeOf<T>::value, (&index_kernel<T, AddOp>));

FOR_ALL_TYPES(REG_INDEX)

}  // namespace
}  // namespace cpu
}  // namespace tocha
