// CPU kernels of 2-D max and average pooling and their backward passes (f32, f64), parallel over
// planes. Window bounds and divisors follow Torch7's THNN (see core/ops/pool2d.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include "core/dtype.h"
#include "core/kernel_registry.h"
#include "core/ops/pool2d_kernels.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

// Planes per task: enough window reads to be worth a thread.
int64_t plane_grain(const Pool2dArgs& a) {
  int64_t work = std::max<int64_t>(1, a.oH * a.oW * a.kH * a.kW);
  return std::max<int64_t>(1, kGrainSize / work);
}

// Note [Branch-free max pooling]: on real data whether the next element beats the running maximum
// is a coin toss, and a mispredicted branch per element costs more than the rest of the loop. The
// maximum and its index are therefore updated with selects (cmov / vector blends), which also lets
// the 2x2 stride-2 case vectorize across a row. The first maximum wins; a NaN replaces any number,
// and a later NaN an earlier one (so NaNs propagate, with the last NaN's index, as in PyTorch).
template <class T> inline void take_max(T v, int64_t i, T& m, int64_t& best) {
  const bool take = (v > m) | (v != v);
  m = take ? v : m;
  best = take ? i : best;
}

// One output row of 2x2 windows with stride 2 and no padding: r0 and r1 are the two input rows,
// i0 the flat index of r0[0]. Computes `blocks` blocks of kLanes outputs (Note [Whole-block pooling
// rows]).
constexpr int64_t kLanes = 8;
template <class T>
TOCHA_SIMD_CLONES void max_pool_2x2_row(const T* r0, const T* r1, T* y, int64_t* ix, int64_t blocks, int64_t i0,
                                        int64_t iW) {
  for (int64_t b = 0; b < blocks; ++b) {
#pragma omp simd
    for (int64_t j = 0; j < kLanes; ++j) {
      const int64_t o = b * kLanes + j;
      T m = r0[2 * o];
      int64_t best = i0 + 2 * o;
      take_max(r0[2 * o + 1], i0 + 2 * o + 1, m, best);
      take_max(r1[2 * o], i0 + iW + 2 * o, m, best);
      take_max(r1[2 * o + 1], i0 + iW + 2 * o + 1, m, best);
      y[o] = m;
      ix[o] = best;
    }
  }
}

// The window of output (oh, ow) cut by the border (ceil mode's last row or column), or any window
// the whole blocks could not cover.
template <class T> void max_pool_2x2_cell(const Pool2dArgs& a, const T* x, T* y, int64_t* ix, int64_t oh, int64_t ow) {
  T m = -std::numeric_limits<T>::infinity();
  int64_t best = 2 * oh * a.iW + 2 * ow;
  for (int64_t h = 2 * oh; h < std::min(2 * oh + 2, a.iH); ++h)
    for (int64_t w = 2 * ow; w < std::min(2 * ow + 2, a.iW); ++w) take_max(x[h * a.iW + w], h * a.iW + w, m, best);
  y[oh * a.oW + ow] = m;
  ix[oh * a.oW + ow] = best + a.index_base;
}

// Note [Whole-block pooling rows]: the CNN's pooled rows are 7 or 14 outputs wide, shorter than or
// not a multiple of a vector, and a vectorized row loop left most outputs to its scalar remainder,
// where the compiler turned take_max's selects back into branches that real data mispredicts
// (1.95 ms for a 64x32x28x28 input where a copy of it takes 0.45 ms). Rows are therefore computed
// in whole blocks of kLanes outputs: a row's last block runs past its end, reading the next input
// rows and writing outputs of the rows after it, which are computed (and overwritten) later. Both
// must stay inside this task's planes: `in_left` elements of input follow x and `out_left` outputs
// follow y in this task (the next task's planes belong to another thread); a row whose last block
// would cross either is done cell by cell.
template <class T>
void max_pool_2x2_plane(const Pool2dArgs& a, const T* x, T* y, int64_t* ix, int64_t in_left, int64_t out_left) {
  const int64_t full = std::min(a.oW, a.iW / 2);  // ceil mode may add a last, cut column
  const int64_t blocks = (full + kLanes - 1) / kLanes;
  for (int64_t oh = 0; oh < a.oH; ++oh) {
    const T* r0 = x + 2 * oh * a.iW;
    const bool two_rows = 2 * oh + 1 < a.iH;  // ceil mode may add a last, cut row
    const int64_t span = blocks * kLanes;
    const bool fits = 2 * oh * a.iW + a.iW + 2 * span <= in_left && oh * a.oW + span <= out_left;
    int64_t done = 0;
    if (two_rows && fits) {
      max_pool_2x2_row(r0, r0 + a.iW, y + oh * a.oW, ix + oh * a.oW, blocks, 2 * oh * a.iW + a.index_base, a.iW);
      done = full;
    } else if (two_rows && full >= kLanes) {
      max_pool_2x2_row(r0, r0 + a.iW, y + oh * a.oW, ix + oh * a.oW, full / kLanes, 2 * oh * a.iW + a.index_base,
                       a.iW);
      done = full / kLanes * kLanes;
    }
    for (int64_t ow = done; ow < a.oW; ++ow) max_pool_2x2_cell(a, x, y, ix, oh, ow);
  }
}

template <class T> void max_pool_plane(const Pool2dArgs& a, const T* x, T* y, int64_t* ix) {
  for (int64_t oh = 0; oh < a.oH; ++oh) {
    const int64_t h0 = std::max<int64_t>(oh * a.dH - a.padH, 0);
    const int64_t h1 = std::min(oh * a.dH - a.padH + a.kH, a.iH);
    for (int64_t ow = 0; ow < a.oW; ++ow) {
      const int64_t w0 = std::max<int64_t>(ow * a.dW - a.padW, 0);
      const int64_t w1 = std::min(ow * a.dW - a.padW + a.kW, a.iW);
      int64_t best = h0 * a.iW + w0;
      T m = -std::numeric_limits<T>::infinity();
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) take_max(x[h * a.iW + w], h * a.iW + w, m, best);
      y[oh * a.oW + ow] = m;
      ix[oh * a.oW + ow] = best + a.index_base;
    }
  }
}

template <class T> void max_pool(const Pool2dArgs& a) {
  const T* in = static_cast<const T*>(a.in);
  T* out = static_cast<T*>(a.out);
  const int64_t pin = a.iH * a.iW, pout = a.oH * a.oW;
  const bool two_by_two = a.kH == 2 && a.kW == 2 && a.dH == 2 && a.dW == 2 && a.padH == 0 && a.padW == 0;
  parallel_for(a.planes, plane_grain(a), [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      if (two_by_two)
        max_pool_2x2_plane(a, in + p * pin, out + p * pout, a.indices + p * pout, (a.planes - p) * pin,
                           (last - p) * pout);
      else
        max_pool_plane(a, in + p * pin, out + p * pout, a.indices + p * pout);
    }
  });
}

void report_bad_position(const Pool2dArgs& a, int64_t value) {
  bool expected = false;
  if (a.bad && a.bad->found.compare_exchange_strong(expected, true)) a.bad->value = value;
}

// grad_input = 0, then grad_output added at the saved positions (planes never share positions).
// A position outside its plane is skipped and the first one reported (Note [Positions checked by
// the pooling backward]): the unsigned compare is one predictable branch per element.
template <class T> void max_pool2d_backward_kernel(const Pool2dArgs& a) {
  const T* g = static_cast<const T*>(a.in);
  T* gi = static_cast<T*>(a.out);
  const int64_t pin = a.iH * a.iW, pout = a.oH * a.oW;
  parallel_for(a.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, pin + pout)),
               [&](int64_t first, int64_t last) {
                 for (int64_t p = first; p < last; ++p) {
                   T* x = gi + p * pin;
                   const T* y = g + p * pout;
                   const int64_t* ix = a.indices + p * pout;
                   std::fill(x, x + pin, T(0));
                   for (int64_t j = 0; j < pout; ++j) {
                     const uint64_t at = uint64_t(ix[j]) - uint64_t(a.index_base);
                     if (at < uint64_t(pin)) x[at] += y[j];
                     else report_bad_position(a, ix[j]);
                   }
                 }
               });
}

// Window [h0, h1) x [w0, w1) of output (oh, ow) inside the input, and its divisor.
struct Window {
  int64_t h0, h1, w0, w1, divisor;
};
inline Window avg_window(const Pool2dArgs& a, int64_t oh, int64_t ow) {
  int64_t h0 = oh * a.dH - a.padH, w0 = ow * a.dW - a.padW;
  int64_t h1 = std::min(h0 + a.kH, a.iH + a.padH), w1 = std::min(w0 + a.kW, a.iW + a.padW);
  const int64_t padded = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0);
  w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, a.iH);
  w1 = std::min(w1, a.iW);
  return {h0, h1, w0, w1, a.count_include_pad ? padded : (h1 - h0) * (w1 - w0)};
}

template <class T> void avg_pool(const Pool2dArgs& a) {
  using M = opmath_t<T>;
  const T* in = static_cast<const T*>(a.in);
  T* out = static_cast<T*>(a.out);
  const int64_t pin = a.iH * a.iW, pout = a.oH * a.oW;
  parallel_for(a.planes, plane_grain(a), [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      const T* x = in + p * pin;
      T* y = out + p * pout;
      for (int64_t oh = 0; oh < a.oH; ++oh)
        for (int64_t ow = 0; ow < a.oW; ++ow) {
          const Window wd = avg_window(a, oh, ow);
          M s = 0;
          for (int64_t h = wd.h0; h < wd.h1; ++h)
            for (int64_t w = wd.w0; w < wd.w1; ++w) s += M(x[h * a.iW + w]);
          y[oh * a.oW + ow] = T(s / M(wd.divisor));
        }
    }
  });
}

template <class T> void avg_pool_backward(const Pool2dArgs& a) {
  using M = opmath_t<T>;
  const T* g = static_cast<const T*>(a.in);
  T* gi = static_cast<T*>(a.out);
  const int64_t pin = a.iH * a.iW, pout = a.oH * a.oW;
  parallel_for(a.planes, plane_grain(a), [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      T* x = gi + p * pin;
      const T* y = g + p * pout;
      std::fill(x, x + pin, T(0));
      for (int64_t oh = 0; oh < a.oH; ++oh)
        for (int64_t ow = 0; ow < a.oW; ++ow) {
          const Window wd = avg_window(a, oh, ow);
          const T v = T(M(y[oh * a.oW + ow]) / M(wd.divisor));
          for (int64_t h = wd.h0; h < wd.h1; ++h)
            for (int64_t w = wd.w0; w < wd.w1; ++w) x[h * a.iW + w] += v;
        }
    }
  });
}

#define REG_POOL(T, dt)                                                      \
  TOCHA_REGISTER_KERNEL(maxPool2d, cpu, dt, &max_pool<T>);                     \
  TOCHA_REGISTER_KERNEL(maxPool2dBackward, cpu, dt, &max_pool2d_backward_kernel<T>);    \
  TOCHA_REGISTER_KERNEL(avgPool2d, cpu, dt, &avg_pool<T>);                     \
  TOCHA_REGISTER_KERNEL(avgPool2dBackward, cpu, dt, &avg_pool_backward<T>);

REG_POOL(float, DType::f32)
REG_POOL(double, DType::f64)

}  // namespace
}  // namespace cpu
}  // namespace tocha
