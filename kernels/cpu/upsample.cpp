// CPU resampling kernels (nearest and bilinear, 2D): source rows/columns and weights are computed
// once per call; forward runs output rows in parallel, backward one plane per task (the output
// cells of a plane add into shared input cells).
#include <algorithm>
#include <cmath>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/resample.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

// Output index o reads input indices i0 and i1 with weights 1 - lambda and lambda.
template <class M> struct Taps {
  std::vector<int64_t> i0, i1;
  std::vector<M> lambda;
};

template <class M> Taps<M> taps(int64_t in, int64_t out, UpsampleMode mode, bool align_corners) {
  Taps<M> t;
  t.i0.resize(size_t(out));
  t.i1.resize(size_t(out));
  t.lambda.resize(size_t(out));
  for (int64_t o = 0; o < out; ++o) {
    int64_t i0;
    double l = 0;
    if (mode == UpsampleMode::nearest) {
      i0 = std::min(o * in / out, in - 1);  // floor(o * in / out), exactly
    } else {
      double src;
      if (align_corners) src = out > 1 ? double(o) * double(in - 1) / double(out - 1) : 0.0;
      else src = std::max(0.0, (double(o) + 0.5) * double(in) / double(out) - 0.5);
      i0 = std::min(int64_t(src), in - 1);
      l = src - double(i0);
    }
    t.i0[size_t(o)] = i0;
    t.i1[size_t(o)] = std::min(i0 + 1, in - 1);
    t.lambda[size_t(o)] = M(l);
  }
  return t;
}

template <class T> void upsample_forward(const UpsampleArgs& a) {
  using M = opmath_t<T>;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const auto th = taps<M>(a.xh, a.yh, a.mode, a.align_corners);
  const auto tw = taps<M>(a.xw, a.yw, a.mode, a.align_corners);
  const bool nearest = a.mode == UpsampleMode::nearest;
  parallel_for(a.planes * a.yh, std::max<int64_t>(1, kGrainSize / (4 * a.yw)), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t p = r / a.yh, oh = r % a.yh;
      const T* r0 = x + (p * a.xh + th.i0[size_t(oh)]) * a.xw;
      T* yr = y + r * a.yw;
      if (nearest) {
        for (int64_t ow = 0; ow < a.yw; ++ow) yr[ow] = r0[tw.i0[size_t(ow)]];
        continue;
      }
      const T* r1 = x + (p * a.xh + th.i1[size_t(oh)]) * a.xw;
      const M lh = th.lambda[size_t(oh)], kh = M(1) - lh;
      for (int64_t ow = 0; ow < a.yw; ++ow) {
        const int64_t w0 = tw.i0[size_t(ow)], w1 = tw.i1[size_t(ow)];
        const M lw = tw.lambda[size_t(ow)], kw = M(1) - lw;
        yr[ow] = T(kh * (kw * M(r0[w0]) + lw * M(r0[w1])) + lh * (kw * M(r1[w0]) + lw * M(r1[w1])));
      }
    }
  });
}

template <class T> void upsample_backward(const UpsampleArgs& a) {
  using M = opmath_t<T>;
  T* x = static_cast<T*>(a.x);
  const T* y = static_cast<const T*>(a.y);
  const auto th = taps<M>(a.xh, a.yh, a.mode, a.align_corners);
  const auto tw = taps<M>(a.xw, a.yw, a.mode, a.align_corners);
  const bool nearest = a.mode == UpsampleMode::nearest;
  const int64_t xn = a.xh * a.xw, yn = a.yh * a.yw;
  parallel_for(a.planes, std::max<int64_t>(1, kGrainSize / (4 * yn + xn)), [&](int64_t b, int64_t e) {
    std::vector<M> acc(static_cast<size_t>(xn));
    for (int64_t p = b; p < e; ++p) {
      std::fill(acc.begin(), acc.end(), M(0));
      const T* yp = y + p * yn;
      for (int64_t oh = 0; oh < a.yh; ++oh) {
        M* a0 = acc.data() + th.i0[size_t(oh)] * a.xw;
        M* a1 = acc.data() + th.i1[size_t(oh)] * a.xw;
        const M lh = th.lambda[size_t(oh)], kh = M(1) - lh;
        const T* yr = yp + oh * a.yw;
        for (int64_t ow = 0; ow < a.yw; ++ow) {
          const M g = M(yr[ow]);
          const int64_t w0 = tw.i0[size_t(ow)];
          if (nearest) {
            a0[w0] += g;
            continue;
          }
          const int64_t w1 = tw.i1[size_t(ow)];
          const M lw = tw.lambda[size_t(ow)], kw = M(1) - lw;
          a0[w0] += kh * kw * g;
          a0[w1] += kh * lw * g;
          a1[w0] += lh * kw * g;
          a1[w1] += lh * lw * g;
        }
      }
      T* xp = x + p * xn;
      for (int64_t i = 0; i < xn; ++i) xp[i] = T(acc[size_t(i)]);
    }
  });
}

#define REG_UPSAMPLE(T)                                                                 \
  TOCHA_REGISTER_KERNEL(upsample2d, cpu, DTypeOf<T>::value, &upsample_forward<T>); \
  TOCHA_REGISTER_KERNEL(upsample2dBackward, cpu, DTypeOf<T>::value, &upsample_backward<T>);
REG_UPSAMPLE(float)
REG_UPSAMPLE(double)
REG_UPSAMPLE(Half)
REG_UPSAMPLE(BFloat16)

}  // namespace
}  // namespace cpu
}  // namespace tocha
