// CPU convolutions with thin filters: the forward pass and the weight gradient when one output
// value reads at most kThinTaps inputs (in_channels x kernel taps, groups 1), such as a first
// layer on grey or colour images. See Note [Thin convolutions on the CPU].
//
// Note [Thin convolutions on the CPU]: im2col + OpenBLAS spent its time around the multiply for
// these: a GEMM with K = 9 (1 -> 32 channels, 3x3) packs its operands for a handful of products
// each, then the result passes once more through a block buffer and a bias loop; 0.62 ms for the
// CNN's first layer at batch 64 (46 GFLOP/s) and 0.95 ms for its weight gradient (30 GFLOP/s).
// Here one image's columns (K x L, built by im2col, K <= 32) are read straight, kChunk outputs at a
// time, by loops that keep the K taps inner:
// - forward: y[o][p] = b[o] + sum_k w[o][k] col[k][p], vectorized over p in blocks of kBlock
//   outputs held in registers, written once with the bias folded in;
// - weight gradient: dw[o][k] += sum_p dy[o][p] col[k][p], a dot product per (o, k) over a
//   chunk's outputs while its columns and dy[o] stay in the caches; the bias gradient, when asked
//   for, sums dy[o] once more from L1 (Note [Fused bias gradient]).
// Images are split over threads as in conv.cpp (Note [Convolution threading]); each thread sums
// its images' weight gradients, then the threads' sums are added in thread order (deterministic
// for a thread count). f32 and f64.
#include "kernels/cpu/conv_thin.h"
#include <omp.h>
#include <algorithm>
#include "kernels/cpu/conv_im2col.h"
#include "kernels/cpu/conv_images.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/scratch.h"

namespace tocha {
namespace cpu {
namespace {

constexpr int64_t kThinTaps = 32;
// Outputs per pass over the output channels: the columns of a chunk (K x kChunk, at most 256 KiB in
// f32) stay in the second-level cache while every channel reads them.
constexpr int64_t kChunk = 2048;

int64_t taps(const ConvGeometry& g) {
  return g.in_channels * g.kernel[0] * g.kernel[1] * g.kernel[2];
}
int64_t outputs(const ConvGeometry& g) { return g.out_size[0] * g.out_size[1] * g.out_size[2]; }
int64_t inputs(const ConvGeometry& g) { return g.in_size[0] * g.in_size[1] * g.in_size[2]; }

// Thin, and not better served otherwise: a 1x1 stride-1 unpadded kernel is one GEMM on the input
// itself, and a batch smaller than the threads would leave threads idle that BLAS can use.
bool is_thin(const ConvGeometry& g) {
  bool direct = true;
  for (int d = 0; d < 3; ++d)
    if (g.kernel[d] != 1 || g.stride[d] != 1 || g.pad[d] != 0) direct = false;
  const int threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  return g.groups == 1 && g.batch > 0 && taps(g) <= kThinTaps && !direct && g.batch >= threads;
}

// 64 bytes of T as one GCC vector: a zmm register in the AVX-512 clone, two ymm or four xmm in
// the others (loops.h's TOCHA_SIMD_CLONES). The compiler would not keep a block of sums in
// registers across the taps loop by itself: it stored and reloaded them per tap.
template <class T> struct Vec64;
template <> struct Vec64<float> {
  typedef float type __attribute__((vector_size(64)));
};
template <> struct Vec64<double> {
  typedef double type __attribute__((vector_size(64)));
};
template <class T> using vec_t = typename Vec64<T>::type;
template <class T> constexpr int64_t kLanes = int64_t(64 / sizeof(T));
// (by reference: a vector argument or result would take the clones' different ABIs)
template <class T> inline void load(vec_t<T>& v, const T* p) { __builtin_memcpy(&v, p, sizeof v); }
template <class T> inline void store(T* p, const vec_t<T>& v) { __builtin_memcpy(p, &v, sizeof v); }
template <class T> inline T lane_sum(const vec_t<T>& v) {
  T s = 0;
  for (int64_t i = 0; i < kLanes<T>; ++i) s += v[i];
  return s;
}

// y (O x len) = w (O x K) col (K x len) + b, rows of col and y ld apart: blocks of four vectors of
// outputs summed in registers.
template <class T>
TOCHA_SIMD_CLONES void thin_forward_image(const T* col, int64_t K, int64_t ld, int64_t len, const T* w, const T* b,
                                          int64_t O, T* y) {
  using V = vec_t<T>;
  constexpr int64_t n = kLanes<T>;
  for (int64_t o = 0; o < O; ++o) {
    const T* wo = w + o * K;
    const T bo = b ? b[o] : T(0);
    T* yo = y + o * ld;
    int64_t p = 0;
    for (; p + 4 * n <= len; p += 4 * n) {
      V a0 = V{} + bo, a1 = a0, a2 = a0, a3 = a0, c0, c1, c2, c3;
      for (int64_t k = 0; k < K; ++k) {
        const V wk = V{} + wo[k];
        const T* c = col + k * ld + p;
        load(c0, c);
        load(c1, c + n);
        load(c2, c + 2 * n);
        load(c3, c + 3 * n);
        a0 += wk * c0;
        a1 += wk * c1;
        a2 += wk * c2;
        a3 += wk * c3;
      }
      store(yo + p, a0);
      store(yo + p + n, a1);
      store(yo + p + 2 * n, a2);
      store(yo + p + 3 * n, a3);
    }
    for (; p + n <= len; p += n) {
      V a = V{} + bo, c;
      for (int64_t k = 0; k < K; ++k) {
        load(c, col + k * ld + p);
        a += (V{} + wo[k]) * c;
      }
      store(yo + p, a);
    }
    for (; p < len; ++p) {
      T acc = bo;
      for (int64_t k = 0; k < K; ++k) acc += wo[k] * col[k * ld + p];
      yo[p] = acc;
    }
  }
}

// The sum of len values (a chunk of one channel's output gradient: the bias gradient's share).
template <class T> inline __attribute__((always_inline)) T row_sum(const T* d, int64_t len) {
  using V = vec_t<T>;
  constexpr int64_t n = kLanes<T>;
  V s0 = V{}, s1 = V{}, x;
  int64_t p = 0;
  for (; p + 2 * n <= len; p += 2 * n) {
    load(x, d + p);
    s0 += x;
    load(x, d + p + n);
    s1 += x;
  }
  for (; p + n <= len; p += n) {
    load(x, d + p);
    s0 += x;
  }
  T s = lane_sum<T>(s0 + s1);
  for (; p < len; ++p) s += d[p];
  return s;
}

// dw (O x K) += dy (O x len) col (K x len)^T, rows ld apart: four taps at a time, each output vector of dy loaded
// once for the four (a last group of fewer repeats its last tap and drops the copies). db (may be
// null) += dy's row sums.
template <class T>
TOCHA_SIMD_CLONES void thin_weight_image(const T* col, int64_t K, int64_t ld, int64_t len, const T* dy, int64_t O,
                                         T* dw, T* db) {
  using V = vec_t<T>;
  constexpr int64_t n = kLanes<T>;
  for (int64_t o = 0; o < O; ++o) {
    const T* d = dy + o * ld;
    for (int64_t k0 = 0; k0 < K; k0 += 4) {
      const T* c[4];
      for (int64_t j = 0; j < 4; ++j) c[j] = col + std::min(k0 + j, K - 1) * ld;
      // two vectors of outputs per step: eight independent sums hide the multiply-add latency
      V a0 = V{}, a1 = V{}, a2 = V{}, a3 = V{}, b0 = V{}, b1 = V{}, b2 = V{}, b3 = V{}, dv, dw2, x;
      int64_t p = 0;
      for (; p + 2 * n <= len; p += 2 * n) {
        load(dv, d + p);
        load(dw2, d + p + n);
        load(x, c[0] + p);
        a0 += dv * x;
        load(x, c[0] + p + n);
        b0 += dw2 * x;
        load(x, c[1] + p);
        a1 += dv * x;
        load(x, c[1] + p + n);
        b1 += dw2 * x;
        load(x, c[2] + p);
        a2 += dv * x;
        load(x, c[2] + p + n);
        b2 += dw2 * x;
        load(x, c[3] + p);
        a3 += dv * x;
        load(x, c[3] + p + n);
        b3 += dw2 * x;
      }
      a0 += b0;
      a1 += b1;
      a2 += b2;
      a3 += b3;
      for (; p + n <= len; p += n) {
        load(dv, d + p);
        load(x, c[0] + p);
        a0 += dv * x;
        load(x, c[1] + p);
        a1 += dv * x;
        load(x, c[2] + p);
        a2 += dv * x;
        load(x, c[3] + p);
        a3 += dv * x;
      }
      T s[4] = {lane_sum<T>(a0), lane_sum<T>(a1), lane_sum<T>(a2), lane_sum<T>(a3)};
      for (; p < len; ++p)
        for (int64_t j = 0; j < 4; ++j) s[j] += d[p] * c[j][p];
      for (int64_t j = 0; j < 4 && k0 + j < K; ++j) dw[o * K + k0 + j] += s[j];
    }
    if (db) db[o] += row_sum(d, len);  // d is still in L1 (Note [Fused bias gradient])
  }
}

template <class T> void thin_forward(const ConvArgs& a) {
  const ConvGeometry& g = a.g;
  const int64_t K = taps(g), L = outputs(g), O = g.out_channels, plane = inputs(g);
  const T* x = static_cast<const T*>(a.x);
  const T* w = static_cast<const T*>(a.w);
  const T* b = static_cast<const T*>(a.b);
  T* y = static_cast<T*>(a.out);
  const int nt = image_threads(g.batch);
  ScratchHolder own;
  T* cols = scratch<T>(nt * K * L, &own);
  over_images(g.batch, nt, [&](int64_t first, int64_t last, int slot) {
    T* col = cols + slot * K * L;
    for (int64_t n = first; n < last; ++n) {
      im2col(x + n * g.in_channels * plane, col, g, g.in_channels, L);
      for (int64_t c0 = 0; c0 < L; c0 += kChunk)
        thin_forward_image(col + c0, K, L, std::min(kChunk, L - c0), w, b, O, y + n * O * L + c0);
    }
  });
}

template <class T> void thin_weight(const ConvArgs& a) {
  const ConvGeometry& g = a.g;
  const int64_t K = taps(g), L = outputs(g), O = g.out_channels, plane = inputs(g);
  const int64_t count = O * K + (a.bias_grad ? O : 0);  // the weight's sums, then the bias's
  const T* x = static_cast<const T*>(a.x);
  const T* dy = static_cast<const T*>(a.y);
  const int nt = image_threads(g.batch);
  ScratchHolder own;
  T* buf = scratch<T>(nt * (K * L + count), &own);  // per thread: columns, then its sums
  const int used = over_images(g.batch, nt, [&](int64_t first, int64_t last, int slot) {
    T* col = buf + slot * (K * L + count);
    T* sum = col + K * L;
    T* bias_sum = a.bias_grad ? sum + O * K : nullptr;
    std::fill(sum, sum + count, T(0));
    for (int64_t n = first; n < last; ++n) {
      im2col(x + n * g.in_channels * plane, col, g, g.in_channels, L);
      for (int64_t c0 = 0; c0 < L; c0 += kChunk)
        thin_weight_image(col + c0, K, L, std::min(kChunk, L - c0), dy + n * O * L + c0, O, sum, bias_sum);
    }
  });
  T* w = static_cast<T*>(a.out);
  T* b = static_cast<T*>(a.bias_grad);
  for (int64_t i = 0; i < count; ++i) {
    T v = 0;
    for (int t = 0; t < used; ++t) v += buf[t * (K * L + count) + K * L + i];
    T& r = i < O * K ? w[i] : b[i - O * K];
    r = (a.beta == 0 ? T(0) : T(a.beta) * r) + T(a.alpha) * v;
  }
  a.bias_written = a.bias_grad != nullptr;
}

}  // namespace

template <class T> bool thin_conv(const ConvArgs& a) {
  if (!is_thin(a.g)) return false;
  thin_forward<T>(a);
  return true;
}
template <class T> bool thin_conv_weight(const ConvArgs& a) {
  if (!is_thin(a.g)) return false;
  thin_weight<T>(a);
  return true;
}
template bool thin_conv<float>(const ConvArgs&);
template bool thin_conv<double>(const ConvArgs&);
template bool thin_conv_weight<float>(const ConvArgs&);
template bool thin_conv_weight<double>(const ConvArgs&);

}  // namespace cpu
}  // namespace tocha
