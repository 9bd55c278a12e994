// CPU padding kernels: every output cell reads the input cell its mode maps it to (or the constant),
// rows in parallel with the interior copied as a block; the backward of reflect/replicate adds each
// output gradient into its source cell, one (D x H x W) block per task.
#include <algorithm>
#include <type_traits>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/resample.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

// For each output index along one dim, the input index it reads (-1: the constant).
std::vector<int64_t> source_map(int64_t in, int64_t out, int64_t before, PadMode mode) {
  std::vector<int64_t> m(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    int64_t j = o - before;  // negative `before` crops: j starts past 0
    if (j < 0 || j >= in) {
      if (mode == PadMode::constant) j = -1;
      else if (mode == PadMode::reflect) j = j < 0 ? -j : 2 * (in - 1) - j;  // the edge is not repeated
      else j = j < 0 ? 0 : in - 1;
    }
    m[size_t(o)] = j;
  }
  return m;
}

template <class T> T from_double(double v) {
  if constexpr (std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value) return T(float(v));
  else return static_cast<T>(v);
}

template <class T> void pad_forward(const PadArgs& a) {
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const auto md = source_map(a.x_size[0], a.y_size[0], a.before[0], a.mode);
  const auto mh = source_map(a.x_size[1], a.y_size[1], a.before[1], a.mode);
  const auto mw = source_map(a.x_size[2], a.y_size[2], a.before[2], a.mode);
  const int64_t xD = a.x_size[0], xH = a.x_size[1], xW = a.x_size[2];
  const int64_t yD = a.y_size[0], yH = a.y_size[1], yW = a.y_size[2];
  const T value = from_double<T>(a.value);
  // Output columns [lo, hi) read input columns [lo - before, hi - before) in order.
  const int64_t before = a.before[2];
  const int64_t lo = std::min(yW, std::max<int64_t>(0, before)), hi = std::max(lo, std::min(yW, before + xW));
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, yW));
  parallel_for(a.outer * yD * yH, grain, [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {
      const int64_t o = r / (yD * yH), od = (r / yH) % yD, oh = r % yH;
      T* yr = y + r * yW;
      const int64_t sd = md[size_t(od)], sh = mh[size_t(oh)];
      if (sd < 0 || sh < 0) {
        std::fill(yr, yr + yW, value);
        continue;
      }
      const T* xr = x + ((o * xD + sd) * xH + sh) * xW;
      for (int64_t ow = 0; ow < lo; ++ow) yr[ow] = mw[size_t(ow)] < 0 ? value : xr[mw[size_t(ow)]];
      if (hi > lo) std::copy(xr + (lo - before), xr + (hi - before), yr + lo);
      for (int64_t ow = hi; ow < yW; ++ow) yr[ow] = mw[size_t(ow)] < 0 ? value : xr[mw[size_t(ow)]];
    }
  });
}

template <class T> void pad_backward(const PadArgs& a) {
  using M = opmath_t<T>;
  T* x = static_cast<T*>(a.x);
  const T* y = static_cast<const T*>(a.y);
  const auto md = source_map(a.x_size[0], a.y_size[0], a.before[0], a.mode);
  const auto mh = source_map(a.x_size[1], a.y_size[1], a.before[1], a.mode);
  const auto mw = source_map(a.x_size[2], a.y_size[2], a.before[2], a.mode);
  const int64_t xH = a.x_size[1], xW = a.x_size[2], xn = a.x_size[0] * xH * xW;
  const int64_t yD = a.y_size[0], yH = a.y_size[1], yW = a.y_size[2], yn = yD * yH * yW;
  parallel_for(a.outer, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, yn + xn)), [&](int64_t b, int64_t e) {
    std::vector<M> acc(static_cast<size_t>(xn));
    for (int64_t o = b; o < e; ++o) {
      std::fill(acc.begin(), acc.end(), M(0));
      const T* yb = y + o * yn;
      for (int64_t od = 0; od < yD; ++od) {
        const int64_t sd = md[size_t(od)];
        if (sd < 0) continue;
        for (int64_t oh = 0; oh < yH; ++oh) {
          const int64_t sh = mh[size_t(oh)];
          if (sh < 0) continue;
          const T* yr = yb + (od * yH + oh) * yW;
          M* ar = acc.data() + (sd * xH + sh) * xW;
          for (int64_t ow = 0; ow < yW; ++ow)
            if (mw[size_t(ow)] >= 0) ar[mw[size_t(ow)]] += M(yr[ow]);
        }
      }
      T* xb = x + o * xn;
      for (int64_t i = 0; i < xn; ++i) xb[i] = T(acc[size_t(i)]);
    }
  });
}

#define REG_PAD(T) TOCHA_REGISTER_KERNEL(pad, cpu, DTypeOf<T>::value, &pad_forward<T>);
#define REG_PAD_BACKWARD(T) TOCHA_REGISTER_KERNEL(padBackward, cpu, DTypeOf<T>::value, &pad_backward<T>);
TOCHA_FOR_ALL_TYPES(REG_PAD)
REG_PAD_BACKWARD(float) REG_PAD_BACKWARD(double) REG_PAD_BACKWARD(Half) REG_PAD_BACKWARD(BFloat16)

}  // namespace
}  // namespace cpu
}  // namespace tocha
