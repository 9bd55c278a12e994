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

// The functor is a by-value parameter so its parameters (alpha...) are loop invariants.
template <class F, class T, class R>
TOCHA_SIMD_CLONES void unary_contig(R* o, const T* a, int64_t n, F f) {
  using M = opmath_t<T>;
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = R(f(M(a[i])));
}
// b_scalar: b points at one value used for every element (and likewise a_scalar).
template <class F, class T, class R>
TOCHA_SIMD_CLONES void binary_contig(R* o, const T* a, const T* b, int64_t n, bool a_scalar, bool b_scalar, F f) {
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

template <class F> F make_functor(const double* params) {
  if constexpr (std::is_constructible<F, const double*>::value) return F(params);
  else return F{};
}

// body(n, ptrs, strides): n elements of the innermost dim, ptrs[k] at the first element of
// operand k, strides[k] its innermost stride in elements.
template <class Body> void for_each_row(const PointwiseIter& it, int64_t grain, const Body& body) {
  const int nop = it.noperands, nd = it.ndim, inner = nd - 1;
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
    // The offsets then step like an odometer, row by row: recomputing them from the index cost
    // ~150 instructions a row, more than a 32-element row's work (kron's rows).
    int64_t pos = begin;
    while (pos < end) {
      int64_t n = it.shape[inner] - idx[inner];
      if (n > end - pos) n = end - pos;
      body(n, ptrs, off, it.strides, inner);
      pos += n;
      if (pos >= end) break;
      // the row is done (pos < end): back to its start, then carry into the outer dims
      for (int k = 0; k < nop; ++k) off[k] -= idx[inner] * it.strides[k][inner];
      idx[inner] = 0;
      for (int d = inner - 1; d >= 0; --d) {
        for (int k = 0; k < nop; ++k) off[k] += it.strides[k][d];
        if (++idx[d] < it.shape[d]) break;
        for (int k = 0; k < nop; ++k) off[k] -= it.shape[d] * it.strides[k][d];
        idx[d] = 0;
      }
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
  for_each_row(it, kGrainSize, [&](int64_t n, char** p, const int64_t* off, const int64_t (*st)[kMaxDims], int inner) {
    R* o = reinterpret_cast<R*>(p[0]) + off[0];
    const T* a = reinterpret_cast<const T*>(p[1]) + off[1];
    int64_t so = st[0][inner], sa = st[1][inner];
    if (so == 1 && sa == 1) return unary_contig<F, T, R>(o, a, n, f);  // Note [Vector rows]
    for (int64_t i = 0; i < n; ++i) o[i * so] = R(f(M(a[i * sa])));
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
  for_each_row(it, kGrainSize, [&](int64_t n, char** p, const int64_t* off, const int64_t (*st)[kMaxDims], int inner) {
    R* o = reinterpret_cast<R*>(p[0]) + off[0];
    const T* a = reinterpret_cast<const T*>(p[1]) + off[1];
    const T* b = reinterpret_cast<const T*>(p[2]) + off[2];
    int64_t so = st[0][inner], sa = st[1][inner], sb = st[2][inner];
    if (so == 1 && (sa | 1) == 1 && (sb | 1) == 1)  // Note [Vector rows]
      return binary_contig<F, T, R>(o, a, b, n, sa == 0, sb == 0, f);
    for (int64_t i = 0; i < n; ++i) o[i * so] = R(f(M(a[i * sa]), M(b[i * sb])));
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
