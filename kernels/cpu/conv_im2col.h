// im2col and col2im for 1-3 spatial dims (kernels/cpu/conv.cpp): the columns of one image and
// group are a (C/groups * kernel) x (output pixels) matrix whose row (c, kd, kh, kw) holds, for
// every output pixel, the input element that kernel tap multiplies (zero in the padding). Rows are
// ld elements apart, so the columns of several images can sit side by side in one matrix.
#pragma once
#include <cstdint>
#include "core/ops/conv_kernels.h"

namespace tocha {
namespace cpu {

// First and one-past-last output index o in [0, n) whose input index o * s + start lies in [0, size).
inline void valid_range(int64_t start, int64_t s, int64_t size, int64_t n, int64_t* lo, int64_t* hi) {
  int64_t l = start >= 0 ? 0 : (-start + s - 1) / s;
  int64_t h = size - start > 0 ? (size - start + s - 1) / s : 0;
  *lo = l < n ? l : n;
  *hi = h < n ? h : n;
  if (*hi < *lo) *hi = *lo;
}

// Calls f(row, src_offset_of_plane_row, dst_row_offset, iw_start) for every (channel, tap, od, oh)
// line of the column matrix; src_offset < 0 means the line lies in the padding (all zeros).
template <class F> void for_each_col_line(const ConvGeometry& g, int64_t channels, int64_t ld, F&& f) {
  const int64_t oD = g.out_size[0], oH = g.out_size[1], oW = g.out_size[2];
  const int64_t iD = g.in_size[0], iH = g.in_size[1], iW = g.in_size[2];
  int64_t row = 0;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw, ++row) {
          const int64_t w0 = kw * g.dilation[2] - g.pad[2];
          for (int64_t od = 0; od < oD; ++od) {
            const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dilation[0];
            for (int64_t oh = 0; oh < oH; ++oh) {
              const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dilation[1];
              const bool inside = id >= 0 && id < iD && ih >= 0 && ih < iH;
              f(row * ld + (od * oH + oh) * oW, inside ? ((c * iD + id) * iH + ih) * iW : -1, w0);
            }
          }
        }
}

// col (rows x L, rows ld apart) from x (channels x iD x iH x iW), every element written (no prior
// zero fill).
template <class T> void im2col(const T* x, T* col, const ConvGeometry& g, int64_t channels, int64_t ld) {
  const int64_t oW = g.out_size[2], iW = g.in_size[2], sw = g.stride[2];
  for_each_col_line(g, channels, ld, [&](int64_t dst, int64_t src, int64_t w0) {
    T* out = col + dst;
    if (src < 0) {
      for (int64_t o = 0; o < oW; ++o) out[o] = T(0);
      return;
    }
    int64_t lo, hi;
    valid_range(w0, sw, iW, oW, &lo, &hi);
    const T* in = x + src;  // input element of output o: in[o * sw + w0]
    for (int64_t o = 0; o < lo; ++o) out[o] = T(0);
    if (sw == 1) {  // rows are short (tens of elements): an inline loop beats a memcpy call
      const T* src1 = in + lo + w0;
      T* dst1 = out + lo;
#pragma omp simd
      for (int64_t o = 0; o < hi - lo; ++o) dst1[o] = src1[o];
    } else {
      for (int64_t o = lo; o < hi; ++o) out[o] = in[o * sw + w0];
    }
    for (int64_t o = hi; o < oW; ++o) out[o] = T(0);
  });
}

// x (channels x iD x iH x iW) += col scattered back (the adjoint of im2col); x must be initialized.
template <class T> void col2im(const T* col, T* x, const ConvGeometry& g, int64_t channels, int64_t ld) {
  const int64_t oW = g.out_size[2], iW = g.in_size[2], sw = g.stride[2];
  for_each_col_line(g, channels, ld, [&](int64_t src_line, int64_t dst, int64_t w0) {
    if (dst < 0) return;
    int64_t lo, hi;
    valid_range(w0, sw, iW, oW, &lo, &hi);
    const T* c = col + src_line;
    T* out = x + dst;
    if (sw == 1) {
      T* o1 = out + w0 + lo;
      const T* c1 = c + lo;
#pragma omp simd
      for (int64_t o = 0; o < hi - lo; ++o) o1[o] += c1[o];
    } else {
      for (int64_t o = lo; o < hi; ++o) out[o * sw + w0] += c[o];
    }
  });
}

}  // namespace cpu
}  // namespace tocha
