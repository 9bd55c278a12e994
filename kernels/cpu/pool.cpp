// CPU pooling kernels shared by the adaptive, volumetric and temporal poolings (Note [Pooling
// layouts] in core/ops/pool.cpp): max and average forward, parallel over (plane, output frame)
// (max over output rows when channels are innermost in memory, as in the temporal layout), and the
// average backward, parallel over planes (windows overlap inside a plane).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/pool.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

// The windows along one pooled dim, per output index: input cells [start, end) and, for
// count_include_pad, the window's size counting its padding (clipped to input + padding).
struct Windows {
  std::vector<int64_t> start, end, span;
  int64_t widest = 0;
};

Windows windows(const PoolArgs& a, int dim) {
  const int64_t in = a.x_size[dim], out = a.y_size[dim];
  Windows w;
  w.start.resize(size_t(out));
  w.end.resize(size_t(out));
  w.span.resize(size_t(out));
  for (int64_t o = 0; o < out; ++o) {
    int64_t s, e, span;
    if (a.adaptive) {  // floor(o * in / out) .. ceil((o + 1) * in / out), exactly in integers
      s = o * in / out;
      e = ((o + 1) * in + out - 1) / out;
      span = e - s;
    } else {
      s = o * a.d[dim] - a.pad[dim];
      e = std::min(s + a.k[dim], in + a.pad[dim]);
      span = e - s;
      s = std::max<int64_t>(s, 0);
      e = std::min(e, in);
    }
    w.start[size_t(o)] = s;
    w.end[size_t(o)] = e;
    w.span[size_t(o)] = span;
    w.widest = std::max(w.widest, e - s);
  }
  return w;
}

struct Geometry {
  Windows w[3];
  int64_t planes, cost;  // cost: cells read per (plane, output frame) unit, for the grain
  explicit Geometry(const PoolArgs& a) : w{windows(a, 0), windows(a, 1), windows(a, 2)} {
    planes = a.batch * a.channels;
    cost = std::max<int64_t>(1, a.y_size[1] * a.y_size[2] * w[0].widest * w[1].widest * w[2].widest);
  }
};

// Channels innermost in memory (Torch7's temporal layout, frames x features): each window cell is
// a contiguous run of channels, so the maxima of all channels are updated together.
template <class T> void max_forward_channels_last(const PoolArgs& a, const Geometry& g) {
  using M = opmath_t<T>;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const int64_t C = a.channels, oT = a.y_size[0], oH = a.y_size[1], oW = a.y_size[2];
  const int64_t H = a.x_size[1], W = a.x_size[2];
  const int64_t* xs = a.x_stride;
  const int64_t* ys = a.y_stride;
  const int64_t rows = a.batch * oT * oH;
  parallel_for(rows, std::max<int64_t>(1, kGrainSize / (g.cost * C)), [&](int64_t b, int64_t e) {
    std::vector<M> best(static_cast<size_t>(C));
    std::vector<int64_t> arg(static_cast<size_t>(C));
    for (int64_t r = b; r < e; ++r) {
      const int64_t n = r / (oT * oH), ot = (r / oH) % oT, oh = r % oH;
      const int64_t t0 = g.w[0].start[ot], t1 = g.w[0].end[ot], h0 = g.w[1].start[oh], h1 = g.w[1].end[oh];
      for (int64_t ow = 0; ow < oW; ++ow) {
        const int64_t w0 = g.w[2].start[ow], w1 = g.w[2].end[ow];
        std::fill(best.begin(), best.end(), -std::numeric_limits<M>::infinity());
        std::fill(arg.begin(), arg.end(), (t0 * H + h0) * W + w0);
        for (int64_t t = t0; t < t1; ++t)
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) {
              const T* xp = x + n * xs[0] + t * xs[2] + h * xs[3] + w * xs[4];
              const int64_t at = (t * H + h) * W + w;
              M* bp = best.data();
              int64_t* ap = arg.data();
#pragma omp simd
              for (int64_t c = 0; c < C; ++c) {  // branch-free so that it vectorizes
                const M v = M(xp[c]);
                const bool take = v > bp[c] || v != v;
                bp[c] = take ? v : bp[c];
                ap[c] = take ? at : ap[c];
              }
            }
        const int64_t off = n * ys[0] + ot * ys[2] + oh * ys[3] + ow * ys[4];
        for (int64_t c = 0; c < C; ++c) {
          y[off + c] = T(best[size_t(c)]);
          a.indices[off + c] = arg[size_t(c)] + a.index_base;
        }
      }
    }
  });
}

template <class T> void max_forward(const PoolArgs& a) {
  using M = opmath_t<T>;
  const Geometry g(a);
  if (a.x_stride[1] == 1 && a.y_stride[1] == 1 && a.channels > 1) return max_forward_channels_last<T>(a, g);
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const int64_t oT = a.y_size[0], oH = a.y_size[1], oW = a.y_size[2], H = a.x_size[1], W = a.x_size[2];
  const int64_t* xs = a.x_stride;
  const int64_t* ys = a.y_stride;
  parallel_for(g.planes * oT, std::max<int64_t>(1, kGrainSize / g.cost), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t p = u / oT, ot = u % oT, n = p / a.channels, c = p % a.channels;
      const T* xp = x + n * xs[0] + c * xs[1];
      const int64_t yoff = n * ys[0] + c * ys[1] + ot * ys[2];
      const int64_t t0 = g.w[0].start[ot], t1 = g.w[0].end[ot];
      for (int64_t oh = 0; oh < oH; ++oh) {
        const int64_t h0 = g.w[1].start[oh], h1 = g.w[1].end[oh];
        for (int64_t ow = 0; ow < oW; ++ow) {
          const int64_t w0 = g.w[2].start[ow], w1 = g.w[2].end[ow];
          // The first maximum wins; a NaN propagates (as Torch7 and PyTorch do).
          M best = -std::numeric_limits<M>::infinity();
          int64_t best_at = (t0 * H + h0) * W + w0;
          for (int64_t t = t0; t < t1; ++t)
            for (int64_t h = h0; h < h1; ++h) {
              const T* row = xp + t * xs[2] + h * xs[3];
              for (int64_t w = w0; w < w1; ++w) {
                const M v = M(row[w * xs[4]]);
                if (v > best || std::isnan(v)) {
                  best = v;
                  best_at = (t * H + h) * W + w;
                }
              }
            }
          const int64_t at = yoff + oh * ys[3] + ow * ys[4];
          y[at] = T(best);
          a.indices[at] = best_at + a.index_base;
        }
      }
    }
  });
}

// The divisor of output cell (ot, oh, ow).
inline int64_t divisor(const PoolArgs& a, const Geometry& g, int64_t ot, int64_t oh, int64_t ow) {
  if (a.count_include_pad) return g.w[0].span[ot] * g.w[1].span[oh] * g.w[2].span[ow];
  return (g.w[0].end[ot] - g.w[0].start[ot]) * (g.w[1].end[oh] - g.w[1].start[oh]) *
         (g.w[2].end[ow] - g.w[2].start[ow]);
}

template <class T> void avg_forward(const PoolArgs& a) {
  using M = opmath_t<T>;
  const Geometry g(a);
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const int64_t oT = a.y_size[0], oH = a.y_size[1], oW = a.y_size[2];
  const int64_t* xs = a.x_stride;
  const int64_t* ys = a.y_stride;
  parallel_for(g.planes * oT, std::max<int64_t>(1, kGrainSize / g.cost), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t p = u / oT, ot = u % oT, n = p / a.channels, c = p % a.channels;
      const T* xp = x + n * xs[0] + c * xs[1];
      T* yp = y + n * ys[0] + c * ys[1] + ot * ys[2];
      const int64_t t0 = g.w[0].start[ot], t1 = g.w[0].end[ot];
      for (int64_t oh = 0; oh < oH; ++oh) {
        const int64_t h0 = g.w[1].start[oh], h1 = g.w[1].end[oh];
        for (int64_t ow = 0; ow < oW; ++ow) {
          const int64_t w0 = g.w[2].start[ow], w1 = g.w[2].end[ow];
          M sum = 0;
          for (int64_t t = t0; t < t1; ++t)
            for (int64_t h = h0; h < h1; ++h) {
              const T* row = xp + t * xs[2] + h * xs[3];
              for (int64_t w = w0; w < w1; ++w) sum += M(row[w * xs[4]]);
            }
          yp[oh * ys[3] + ow * ys[4]] = T(sum / M(divisor(a, g, ot, oh, ow)));
        }
      }
    }
  });
}

// x (the input gradient) = the sum over windows of y (the output gradient) / divisor.
template <class T> void avg_backward(const PoolArgs& a) {
  using M = opmath_t<T>;
  const Geometry g(a);
  T* x = static_cast<T*>(a.x);
  const T* y = static_cast<const T*>(a.y);
  const int64_t T_ = a.x_size[0], H = a.x_size[1], W = a.x_size[2];
  const int64_t oT = a.y_size[0], oH = a.y_size[1], oW = a.y_size[2];
  const int64_t* xs = a.x_stride;
  const int64_t* ys = a.y_stride;
  const int64_t cost = std::max<int64_t>(1, g.cost * oT + T_ * H * W);
  parallel_for(g.planes, std::max<int64_t>(1, kGrainSize / cost), [&](int64_t b, int64_t e) {
    // Half-precision gradients accumulate in float and are rounded once.
    std::vector<M> acc(size_t(T_ * H * W));
    for (int64_t p = b; p < e; ++p) {
      const int64_t n = p / a.channels, c = p % a.channels;
      const T* yp = y + n * ys[0] + c * ys[1];
      std::fill(acc.begin(), acc.end(), M(0));
      for (int64_t ot = 0; ot < oT; ++ot) {
        const int64_t t0 = g.w[0].start[ot], t1 = g.w[0].end[ot];
        for (int64_t oh = 0; oh < oH; ++oh) {
          const int64_t h0 = g.w[1].start[oh], h1 = g.w[1].end[oh];
          for (int64_t ow = 0; ow < oW; ++ow) {
            const int64_t w0 = g.w[2].start[ow], w1 = g.w[2].end[ow];
            const M v = M(yp[ot * ys[2] + oh * ys[3] + ow * ys[4]]) / M(divisor(a, g, ot, oh, ow));
            for (int64_t t = t0; t < t1; ++t)
              for (int64_t h = h0; h < h1; ++h) {
                M* row = acc.data() + (t * H + h) * W;
                for (int64_t w = w0; w < w1; ++w) row[w] += v;
              }
          }
        }
      }
      T* xp = x + n * xs[0] + c * xs[1];
      for (int64_t t = 0; t < T_; ++t)
        for (int64_t h = 0; h < H; ++h) {
          T* row = xp + t * xs[2] + h * xs[3];
          const M* src = acc.data() + (t * H + h) * W;
          for (int64_t w = 0; w < W; ++w) row[w * xs[4]] = T(src[w]);
        }
    }
  });
}

#define REG_POOL(T)                                                          \
  TOCHA_REGISTER_KERNEL(adaptiveMaxPool2d, cpu, DTypeOf<T>::value, &max_forward<T>); \
  TOCHA_REGISTER_KERNEL(maxPool3d, cpu, DTypeOf<T>::value, &max_forward<T>);         \
  TOCHA_REGISTER_KERNEL(temporalMaxPool, cpu, DTypeOf<T>::value, &max_forward<T>);   \
  TOCHA_REGISTER_KERNEL(adaptiveAvgPool2d, cpu, DTypeOf<T>::value, &avg_forward<T>); \
  TOCHA_REGISTER_KERNEL(avgPool3d, cpu, DTypeOf<T>::value, &avg_forward<T>);         \
  TOCHA_REGISTER_KERNEL(adaptiveAvgPool2dBackward, cpu, DTypeOf<T>::value, &avg_backward<T>); \
  TOCHA_REGISTER_KERNEL(avgPool3dBackward, cpu, DTypeOf<T>::value, &avg_backward<T>);
REG_POOL(float)
REG_POOL(double)
REG_POOL(Half)
REG_POOL(BFloat16)

}  // namespace
}  // namespace cpu
}  // namespace tocha
