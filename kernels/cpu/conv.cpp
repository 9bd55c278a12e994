// CPU kernels of conv, convTranspose and convWeight (f32, f64): im2col / col2im + OpenBLAS GEMM per
// image and group, with no column matrix at all for 1x1 stride-1 unpadded kernels. f32 tries oneDNN
// first (kernels/cpu/conv_onednn.cpp, Note [oneDNN convolutions]).
// Note [Convolution threading]: a batch of two or more images is split over the OpenMP pool, one
// range of images per thread with its own column buffer; OpenBLAS (the OpenMP build, Note [One
// thread pool]) then runs single-threaded inside the region, so threads never fight over cores
// and the small per-image GEMMs need no synchronization. A single image leaves the threads to
// BLAS. Weight gradients accumulate per thread and are summed in thread order: results are
// deterministic for a given thread count.
// Note [Convolution image blocks]: small planes make thin GEMMs (the CNN's second layer: 64 x 196
// x 288 per image), where OpenBLAS spends its time packing rather than multiplying. A thread's
// images therefore go through in blocks of nb, whose columns sit side by side (K x nb*L), so each
// group is one GEMM with nb*L columns; outputs (and, for the two adjoints, output gradients) pass
// through a block buffer in the same O x nb*L layout. Planes of at least kBlockColumns outputs
// (and 1x1 direct kernels) keep one GEMM per image with no copies.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>
#include <omp.h>
#include <type_traits>
#include "core/kernel_registry.h"
#include "core/ops/conv_kernels.h"
#include "kernels/cpu/blas_gemm_call.h"
#include "kernels/cpu/conv_im2col.h"
#include "kernels/cpu/conv_images.h"
#include "kernels/cpu/conv_onednn.h"
#include "kernels/cpu/conv_thin.h"
#include "kernels/cpu/scratch.h"

namespace tocha {
namespace cpu {
namespace {


// Sizes of one image and group.
struct Sizes {
  int64_t N, G, C, O, Cg, Og, K, L, in_plane;
  bool direct;  // 1x1 kernel, stride 1, no padding, same size: the input block is its own column matrix
  explicit Sizes(const ConvGeometry& g) {
    N = g.batch;
    G = g.groups;
    C = g.in_channels;
    O = g.out_channels;
    Cg = C / G;
    Og = O / G;
    K = Cg * g.kernel[0] * g.kernel[1] * g.kernel[2];
    L = g.out_size[0] * g.out_size[1] * g.out_size[2];
    in_plane = g.in_size[0] * g.in_size[1] * g.in_size[2];
    // (the same size too: a transposed convolution's output padding makes x larger than y)
    direct = true;
    for (int d = 0; d < 3; ++d)
      if (g.kernel[d] != 1 || g.stride[d] != 1 || g.pad[d] != 0 || g.in_size[d] != g.out_size[d]) direct = false;
  }
};

// Columns a GEMM should have at least (Note [Convolution image blocks]).
constexpr int64_t kBlockColumns = 1024;

// Images per block for `count` images per thread: 1 when a plane alone is wide enough.
int64_t block_images(const Sizes& s, int64_t count) {
  if (s.direct || s.L >= kBlockColumns) return 1;
  int64_t nb = (kBlockColumns + s.L - 1) / s.L;
  return std::max<int64_t>(1, std::min(nb, count));
}

// dst (rows x m*L, the block layout) from the rows of m images (rows x L each, `image` apart).
template <class T> void gather_block(const T* src, int64_t image, int64_t rows, int64_t m, int64_t L, T* dst) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < m; ++i) {
      const T* from = src + i * image + r * L;
      std::copy(from, from + L, dst + (r * m + i) * L);
    }
}

// Per-thread slots of the image-block plan: the columns (K x nb*L; none for direct convolutions),
// the GEMM result of a block of images (Og x nb*L, when nb > 1), then `extra` elements.
template <class T> struct Workspace {
  int64_t nb, col_size, tmp_size, per_slot;
  bool direct;
  ScratchHolder own;
  T* buf;
  Workspace(const Sizes& s, int nt, int64_t extra)
      : nb(block_images(s, (s.N + nt - 1) / nt)),
        col_size(s.direct ? 0 : s.K * nb * s.L),
        tmp_size(nb > 1 ? s.Og * nb * s.L : 0),
        per_slot(col_size + tmp_size + extra),
        direct(s.direct),
        buf(scratch<T>(nt * per_slot, &own)) {}
  T* col(int slot) const { return direct ? nullptr : buf + slot * per_slot; }
  T* tmp(int slot) const { return buf ? buf + slot * per_slot + col_size : nullptr; }
  T* extra(int slot) const { return buf + slot * per_slot + col_size + tmp_size; }
};

template <class T> void conv_forward(const ConvArgs& a) {
  if constexpr (std::is_same_v<T, float>)
    if (onednn_conv(a)) return;  // Note [oneDNN convolutions]
  if (thin_conv<T>(a)) return;   // Note [Thin convolutions on the CPU]
  const Sizes s(a.g);
  const T* x = static_cast<const T*>(a.x);
  const T* w = static_cast<const T*>(a.w);
  const T* b = static_cast<const T*>(a.b);
  T* y = static_cast<T*>(a.out);
  const int nt = image_threads(s.N);
  const Workspace<T> ws(s, nt, 0);
  const int64_t nb = ws.nb;
  over_images(s.N, nt, [&](int64_t first, int64_t last, int slot) {
    T* col = ws.col(slot);
    T* tmp = ws.tmp(slot);
    for (int64_t n0 = first; n0 < last; n0 += nb) {
      const int64_t m = std::min(nb, last - n0), ld = m * s.L;
      for (int64_t grp = 0; grp < s.G; ++grp) {
        const T* xg = x + (n0 * s.C + grp * s.Cg) * s.in_plane;
        T* yg = y + (n0 * s.O + grp * s.Og) * s.L;
        const T* bg = b ? b + grp * s.Og : nullptr;
        const T* src = xg;
        if (col) {
          for (int64_t i = 0; i < m; ++i) im2col(xg + i * s.C * s.in_plane, col + i * s.L, a.g, s.Cg, ld);
          src = col;
        }
        if (m == 1) {
          double beta = 0;
          if (bg) {  // start from the bias and let GEMM accumulate onto it
            for (int64_t o = 0; o < s.Og; ++o) std::fill(yg + o * s.L, yg + (o + 1) * s.L, bg[o]);
            beta = 1;
          }
          gemm_row_major(false, false, s.Og, s.L, s.K, 1.0, w + grp * s.Og * s.K, s.K, src, s.L, beta, yg, s.L);
          continue;
        }
        gemm_row_major(false, false, s.Og, ld, s.K, 1.0, w + grp * s.Og * s.K, s.K, src, ld, 0.0, tmp, ld);
        for (int64_t o = 0; o < s.Og; ++o) {
          const T bo = bg ? bg[o] : T(0);
          for (int64_t i = 0; i < m; ++i) {
            const T* t = tmp + (o * m + i) * s.L;
            T* dst = yg + i * s.O * s.L + o * s.L;
#pragma omp simd
            for (int64_t l = 0; l < s.L; ++l) dst[l] = t[l] + bo;
          }
        }
      }
    }
  });
}

// x = convTranspose(y, w) + b: the columns W^T y scattered back by col2im.
template <class T> void conv_transpose(const ConvArgs& a) {
  if constexpr (std::is_same_v<T, float>)
    if (onednn_conv_transpose(a)) return;
  const Sizes s(a.g);
  const T* y = static_cast<const T*>(a.y);
  const T* w = static_cast<const T*>(a.w);
  const T* b = static_cast<const T*>(a.b);
  T* x = static_cast<T*>(a.out);
  const int nt = image_threads(s.N);
  const Workspace<T> ws(s, nt, 0);
  const int64_t nb = ws.nb;
  over_images(s.N, nt, [&](int64_t first, int64_t last, int slot) {
    T* col = ws.col(slot);
    T* tmp = ws.tmp(slot);
    for (int64_t n0 = first; n0 < last; n0 += nb) {
      const int64_t m = std::min(nb, last - n0), ld = m * s.L;
      for (int64_t grp = 0; grp < s.G; ++grp) {
        const T* yg = y + (n0 * s.O + grp * s.Og) * s.L;
        T* xg = x + (n0 * s.C + grp * s.Cg) * s.in_plane;
        const T* wg = w + grp * s.Og * s.K;
        if (!col) {
          gemm_row_major(true, false, s.K, s.L, s.Og, 1.0, wg, s.K, yg, s.L, 0.0, xg, s.L);
          continue;
        }
        const T* src = yg;
        if (m > 1) {
          gather_block(yg, s.O * s.L, s.Og, m, s.L, tmp);
          src = tmp;
        }
        gemm_row_major(true, false, s.K, ld, s.Og, 1.0, wg, s.K, src, ld, 0.0, col, ld);
        for (int64_t i = 0; i < m; ++i) {
          T* xi = xg + i * s.C * s.in_plane;
          std::fill(xi, xi + s.Cg * s.in_plane, T(0));
          col2im(col + i * s.L, xi, a.g, s.Cg, ld);
        }
      }
      if (b)
        for (int64_t n = n0; n < n0 + m; ++n)
          for (int64_t c = 0; c < s.C; ++c) {
            T* row = x + (n * s.C + c) * s.in_plane;
            const T bc = b[c];
#pragma omp simd
            for (int64_t i = 0; i < s.in_plane; ++i) row[i] += bc;
          }
    }
  });
}

// w = beta * w + alpha * sum_n y[n] col(x[n])^T, per group.
template <class T> void conv_weight(const ConvArgs& a) {
  if constexpr (std::is_same_v<T, float>)
    if (onednn_conv_weight(a)) return;
  if (thin_conv_weight<T>(a)) return;
  const Sizes s(a.g);
  const T* x = static_cast<const T*>(a.x);
  const T* y = static_cast<const T*>(a.y);
  T* w = static_cast<T*>(a.out);
  const int64_t wsize = s.O * s.K;
  const int nt = image_threads(s.N);
  if (s.N == 0) {
    for (int64_t i = 0; i < wsize; ++i) w[i] = a.beta == 0 ? T(0) : T(a.beta * w[i]);
    return;
  }
  // per thread: columns, the output-gradient block, then the thread's partial sum
  const Workspace<T> ws(s, nt, nt > 1 ? wsize : 0);
  const int64_t nb = ws.nb;
  const int used = over_images(s.N, nt, [&](int64_t first, int64_t last, int slot) {
    T* col = ws.col(slot);
    T* tmp = ws.tmp(slot);
    T* acc = nt > 1 ? ws.extra(slot) : w;
    for (int64_t n0 = first; n0 < last; n0 += nb) {
      const int64_t m = std::min(nb, last - n0), ld = m * s.L;
      for (int64_t grp = 0; grp < s.G; ++grp) {
        const T* xg = x + (n0 * s.C + grp * s.Cg) * s.in_plane;
        const T* yg = y + (n0 * s.O + grp * s.Og) * s.L;
        const T* src = xg;
        if (col) {
          for (int64_t i = 0; i < m; ++i) im2col(xg + i * s.C * s.in_plane, col + i * s.L, a.g, s.Cg, ld);
          src = col;
        }
        const T* gy = yg;
        if (m > 1) {
          gather_block(yg, s.O * s.L, s.Og, m, s.L, tmp);
          gy = tmp;
        }
        const double beta = n0 > first ? 1.0 : nt > 1 ? 0.0 : a.beta;
        gemm_row_major(false, true, s.Og, s.K, ld, a.alpha, gy, ld, src, ld, beta, acc + grp * s.Og * s.K, s.K);
      }
    }
  });
  if (nt <= 1) return;
  for (int64_t i = 0; i < wsize; ++i) {
    T v = a.beta == 0 ? T(0) : T(a.beta * w[i]);
    for (int t = 0; t < used; ++t) v += ws.extra(t)[i];
    w[i] = v;
  }
}

#define REG_CONV(T, dt)                                               \
  TOCHA_REGISTER_KERNEL(conv, cpu, dt, &conv_forward<T>);             \
  TOCHA_REGISTER_KERNEL(convTranspose, cpu, dt, &conv_transpose<T>);  \
  TOCHA_REGISTER_KERNEL(convWeight, cpu, dt, &conv_weight<T>);

REG_CONV(float, DType::f32)
REG_CONV(double, DType::f64)

}  // namespace
}  // namespace cpu
}  // namespace tocha
