// Strided loops over a PointwiseIter. for_each_row hands contiguous-or-strided rows of the
// innermost dim to a body; the unary/binary/ternary kernels specialise the stride-1 and scalar
// cases so the compiler vectorizes them. Kernels never validate: core/ already did.
#pragma once
#include "core/dtype.h"
#include "core/pointwise_iter.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {

// Note [SIMD dispatch]: the stride-1 loops are compiled for AVX-512, AVX2 and the portable
// baseline, and the dynamic loader picks the best one for the CPU at run time (GCC's
// target_clones, an ifunc), so binaries stay portable without -march=native. Inside them the
// math functions vectorize through glibc's libmvec (kernels/cpu/simd_math.h).
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define TOCHA_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TOCHA_SIMD_CLONES
#endif

// The functor is a by-value parameter so its parameters (alpha...) are loop invariants. The
// *_row bodies are inlined into each SIMD clone below, so they compile for its instruction set.
template <class F, class T, class R>
__attribute__((always_inline)) inline void unary_row(R* o, const T* a, int64_t n, F f) {
  using M = opmath_t<T>;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = R(f(M(a[i])));
}
// b_scalar: b points at one value used for every element (and likewise a_scalar).
template <class F, class T, class R>
__attribute__((always_inline)) inline void binary_row(R* o, const T* a, const T* b, int64_t n, bool a_scalar,
                                                      bool b_scalar, F f) {
  using M = opmath_t<T>;
  if (!a_scalar && !b_scalar) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = R(f(M(a[i]), M(b[i])));
  } else if (!a_scalar) {
    const M bv = M(b[0]);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = R(f(M(a[i]), bv));
  } else if (!b_scalar) {
    const M av = M(a[0]);
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = R(f(av, M(b[i])));
  } else {
    const R v = R(f(M(a[0]), M(b[0])));
    for (int64_t i = 0; i < n; ++i) o[i] = v;
  }
}
template <class F, class T, class R>
TOCHA_SIMD_CLONES void unary_contig(R* o, const T* a, int64_t n, F f) { unary_row<F, T, R>(o, a, n, f); }
template <class F, class T, class R>
TOCHA_SIMD_CLONES void binary_contig(R* o, const T* a, const T* b, int64_t n, bool a_scalar, bool b_scalar, F f) {
  binary_row<F, T, R>(o, a, b, n, a_scalar, b_scalar, f);
}
// m vector rows of n elements, the k-th at o + k * so, a + k * sa, b + k * sb (Note [Vector planes]).
template <class F, class T, class R>
TOCHA_SIMD_CLONES void unary_rows(R* o, const T* a, int64_t n, int64_t m, int64_t so, int64_t sa, F f) {
  for (int64_t k = 0; k < m; ++k) unary_row<F, T, R>(o + k * so, a + k * sa, n, f);
}
template <class F, class T, class R>
TOCHA_SIMD_CLONES void binary_rows(R* o, const T* a, const T* b, int64_t n, int64_t m, int64_t so, int64_t sa,
                                   int64_t sb, bool a_scalar, bool b_scalar, F f) {
  for (int64_t k = 0; k < m; ++k) binary_row<F, T, R>(o + k * so, a + k * sa, b + k * sb, n, a_scalar, b_scalar, f);
}

template <class F> F make_functor(const double* params) {
  if constexpr (std::is_constructible<F, const double*>::value) return F(params);
  else return F{};
}

// Hands the body planes: m rows of n elements of the innermost dim, the
// rows m consecutive indices of the next dim (operand k's rows st[k][inner - 1] elements apart;
// m is 1 when a chunk starts or ends mid-row, or for a 1-dim iteration).
// Note [Vector planes]: kron of two 32x32 matrices is 32768 rows of 32 elements; a call into
// the SIMD clone and an odometer step per row cost about as much as the row's work, so the loops
// take a plane of rows per call.
template <class Body> void for_each_plane(const PointwiseIter& it, int64_t grain, const Body& body) {
  const int nop = it.noperands, nd = it.ndim, inner = nd - 1, outer = nd - 2;
  parallel_for(it.numel, grain, [&](int64_t begin, int64_t end) {
    int64_t idx[kMaxDims];
    int64_t rem = begin;
    for (int d = nd - 1; d >= 0; --d) { idx[d] = rem % it.shape[d]; rem /= it.shape[d]; }
    char* ptrs[kMaxOperands];
    int64_t off[kMaxOperands];
    for (int k = 0; k < nop; ++k) {
      off[k] = 0;
      for (int d = 0; d < nd; ++d) off[k] += idx[d] * it.strides[k][d];
      ptrs[k] = it.data[k];
    }
    // The offsets then step like an odometer: recomputing them from the index cost ~150
    // instructions a row, more than a 32-element row's work (kron's rows).
    int64_t pos = begin;
    while (pos < end) {
      int64_t n = it.shape[inner] - idx[inner], m = 1;
      if (n > end - pos) {
        n = end - pos;
      } else if (idx[inner] == 0 && outer >= 0) {
        int64_t full_rows = (end - pos) / n, rows_left = it.shape[outer] - idx[outer];
        m = full_rows < rows_left ? full_rows : rows_left;
      }
      body(n, m, ptrs, off, it.strides, inner);
      pos += n * m;
      if (pos >= end) break;
      // back to the start of the row, m rows on along dim outer, then carry into the dims above
      for (int k = 0; k < nop; ++k) off[k] -= idx[inner] * it.strides[k][inner];
      idx[inner] = 0;
      for (int k = 0; k < nop; ++k) off[k] += m * it.strides[k][outer];
      idx[outer] += m;
      if (idx[outer] < it.shape[outer]) continue;
      for (int k = 0; k < nop; ++k) off[k] -= it.shape[outer] * it.strides[k][outer];
      idx[outer] = 0;
      for (int d = outer - 1; d >= 0; --d) {
        for (int k = 0; k < nop; ++k) off[k] += it.strides[k][d];
        if (++idx[d] < it.shape[d]) break;
        for (int k = 0; k < nop; ++k) off[k] -= it.shape[d] * it.strides[k][d];
        idx[d] = 0;
      }
    }
  });
}

// body(n, ptrs, off, strides, inner): n elements of the innermost dim, operand k's first at
// ptrs[k] + off[k] (in elements), strides[k][inner] its innermost stride; a plane's rows one by one.
template <class Body> void for_each_row(const PointwiseIter& it, int64_t grain, const Body& body) {
  const int nop = it.noperands;
  for_each_plane(it, grain, [&](int64_t n, int64_t m, char** p, const int64_t* off, const int64_t (*st)[kMaxDims],
                                int inner) {
    if (m == 1) return body(n, p, off, st, inner);
    int64_t row[kMaxOperands];
    for (int64_t r = 0; r < m; ++r) {
      for (int k = 0; k < nop; ++k) row[k] = off[k] + r * st[k][inner - 1];
      body(n, p, row, st, inner);
    }
  });
}

// Note [Vector rows]
// A pointwise op whose dims do not coalesce (a broadcast operand: x + bias over rows, kron's
// (n,1,m,1) * (1,n,1,m)) still has rows where the output and every input step by 1 or 0. Those
// rows run the vector loops of the contiguous case (a broadcast input as one value) instead of
// the strided scalar loop: kron of two 32x32 matrices, whose rows are 32 long, was 3x PyTorch's
// time through that loop.
template <class F, class T, class R> void unary_kernel(const PointwiseIter& it) {
  if (it.numel == 0) return;
  using M = opmath_t<T>;
  const F f = make_functor<F>(it.params);
  if (it.contiguous && it.strides[1][0] == 1) {
    R* o = reinterpret_cast<R*>(it.data[0]);
    const T* a = reinterpret_cast<const T*>(it.data[1]);
    parallel_for(it.numel, kGrainSize, [&](int64_t b, int64_t e) { unary_contig<F, T, R>(o + b, a + b, e - b, f); });
    return;
  }
  for_each_plane(it, kGrainSize, [&](int64_t n, int64_t m, char** p, const int64_t* off, const int64_t (*st)[kMaxDims],
                                    int inner) {
    R* o = reinterpret_cast<R*>(p[0]) + off[0];
    const T* a = reinterpret_cast<const T*>(p[1]) + off[1];
    int64_t so = st[0][inner], sa = st[1][inner];
    if (so == 1 && sa == 1) {  // Note [Vector rows]
      if (m == 1) return unary_contig<F, T, R>(o, a, n, f);
      return unary_rows<F, T, R>(o, a, n, m, st[0][inner - 1], st[1][inner - 1], f);
    }
    for (int64_t k = 0; k < m; ++k) {
      R* ok = o + (k ? k * st[0][inner - 1] : 0);
      const T* ak = a + (k ? k * st[1][inner - 1] : 0);
      for (int64_t i = 0; i < n; ++i) ok[i * so] = R(f(M(ak[i * sa])));
    }
  });
}

template <class F, class T, class R> void binary_kernel(const PointwiseIter& it) {
  if (it.numel == 0) return;
  using M = opmath_t<T>;
  const F f = make_functor<F>(it.params);
  if (it.contiguous) {
    R* o = reinterpret_cast<R*>(it.data[0]);
    const T* a = reinterpret_cast<const T*>(it.data[1]);
    const T* b = reinterpret_cast<const T*>(it.data[2]);
    const bool as = it.strides[1][0] == 0, bs = it.strides[2][0] == 0;
    parallel_for(it.numel, kGrainSize, [&](int64_t lo, int64_t hi) {
      binary_contig<F, T, R>(o + lo, as ? a : a + lo, bs ? b : b + lo, hi - lo, as, bs, f);
    });
    return;
  }
  for_each_plane(it, kGrainSize, [&](int64_t n, int64_t m, char** p, const int64_t* off, const int64_t (*st)[kMaxDims],
                                    int inner) {
    R* o = reinterpret_cast<R*>(p[0]) + off[0];
    const T* a = reinterpret_cast<const T*>(p[1]) + off[1];
    const T* b = reinterpret_cast<const T*>(p[2]) + off[2];
    int64_t so = st[0][inner], sa = st[1][inner], sb = st[2][inner];
    if (so == 1 && (sa | 1) == 1 && (sb | 1) == 1) {  // Note [Vector rows]
      if (m == 1) return binary_contig<F, T, R>(o, a, b, n, sa == 0, sb == 0, f);
      return binary_rows<F, T, R>(o, a, b, n, m, st[0][inner - 1], st[1][inner - 1], st[2][inner - 1], sa == 0,
                                  sb == 0, f);
    }
    for (int64_t k = 0; k < m; ++k) {
      R* ok = o + (k ? k * st[0][inner - 1] : 0);
      const T* ak = a + (k ? k * st[1][inner - 1] : 0);
      const T* bk = b + (k ? k * st[2][inner - 1] : 0);
      for (int64_t i = 0; i < n; ++i) ok[i * so] = R(f(M(ak[i * sa]), M(bk[i * sb])));
    }
  });
}

template <class F, class T> void ternary_kernel(const PointwiseIter& it) {
  if (it.numel == 0) return;
  using M = opmath_t<T>;
  const F f = make_functor<F>(it.params);
  for_each_row(it, kGrainSize, [&](int64_t n, char** p, const int64_t* off, const int64_t (*st)[kMaxDims], int inner) {
    T* o = reinterpret_cast<T*>(p[0]) + off[0];
    const T* a = reinterpret_cast<const T*>(p[1]) + off[1];
    const T* b = reinterpret_cast<const T*>(p[2]) + off[2];
    const T* c = reinterpret_cast<const T*>(p[3]) + off[3];
    int64_t so = st[0][inner], sa = st[1][inner], sb = st[2][inner], sc = st[3][inner];
    if (so == 1 && sa == 1 && sb == 1 && sc == 1) {
#pragma omp simd
      for (int64_t i = 0; i < n; ++i) o[i] = T(f(M(a[i]), M(b[i]), M(c[i])));
    } else {
      for (int64_t i = 0; i < n; ++i) o[i * so] = T(f(M(a[i * sa]), M(b[i * sb]), M(c[i * sc])));
    }
  });
}

}  // namespace cpu
}  // namespace tocha
