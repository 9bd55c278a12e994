// The index math of the thin-filter convolution kernels (kernels/cuda/conv_thin.cu), host and
// device alike, so tests/cpp/test_conv_thin.cpp checks it on the CPU against a plain convolution.
// A "position" is one output pixel (n, oh, ow) of a 2-D convolution; a "tap" is one weight of a
// filter, (c, i, j) of in_channels x kh x kw. The kernels give each thread positions and keep the
// input values under every tap of its position in registers.
#pragma once
#include <cstdint>
#include "core/half.h"  // TOCHA_HD
#include "core/ops/conv_kernels.h"
#include "kernels/cuda/fast_divide.cuh"

namespace tocha {
namespace cuda {

// The filters the thin kernels take have at most this many taps (in_channels * kh * kw).
constexpr int kThinMaxTaps = 32;

// One launch's geometry, with the per-tap offsets computed on the host (the same for every thread).
struct ThinConv {
  int32_t taps;
  int32_t tap_plane[kThinMaxTaps];  // c * in_h * in_w
  int32_t tap_row[kThinMaxTaps];    // i * dilation_h
  int32_t tap_col[kThinMaxTaps];    // j * dilation_w
  int32_t in_h, in_w, stride_h, stride_w, pad_h, pad_w;
  uint32_t positions;      // batch * out_h * out_w
  uint32_t in_sample;      // in_channels * in_h * in_w
  uint32_t out_plane;      // out_h * out_w
  uint32_t out_channels;
  PlaneIndex<uint32_t> by_position;  // position -> (n, oh, ow)
};

// The geometry of a 2-D convolution (depth dims trivial, groups 1) as a ThinConv. Only for
// geometries thin_conv_fits accepts.
inline ThinConv thin_conv_of(const ConvGeometry& g) {
  ThinConv t{};
  const int64_t kh = g.kernel[1], kw = g.kernel[2];
  t.taps = int32_t(g.in_channels * kh * kw);
  t.in_h = int32_t(g.in_size[1]);
  t.in_w = int32_t(g.in_size[2]);
  for (int32_t k = 0; k < t.taps; ++k) {
    const int64_t c = k / (kh * kw), i = (k / kw) % kh, j = k % kw;
    t.tap_plane[k] = int32_t(c * t.in_h * t.in_w);
    t.tap_row[k] = int32_t(i * g.dilation[1]);
    t.tap_col[k] = int32_t(j * g.dilation[2]);
  }
  t.stride_h = int32_t(g.stride[1]);
  t.stride_w = int32_t(g.stride[2]);
  t.pad_h = int32_t(g.pad[1]);
  t.pad_w = int32_t(g.pad[2]);
  t.out_plane = uint32_t(g.out_size[1] * g.out_size[2]);
  t.positions = uint32_t(g.batch) * t.out_plane;
  t.in_sample = uint32_t(g.in_channels * g.in_size[1] * g.in_size[2]);
  t.out_channels = uint32_t(g.out_channels);
  t.by_position = PlaneIndex<uint32_t>(g.out_size[1], g.out_size[2]);
  return t;
}

// The forward kernel's stride between filters in shared memory, in floats: taps rounded up to 12,
// 16 or 32, a multiple of 4 so that each thread reads a filter as float4 broadcasts (the padding
// holds zeros). Also its register width for the taps of a position.
inline int thin_filter_stride(int64_t taps) { return taps <= 12 ? 12 : taps <= 16 ? 16 : kThinMaxTaps; }

// Whether a geometry suits the thin kernels: 2-D (depth trivial), one group, at most
// kThinMaxTaps taps, every element count and offset below 2^31, window rows and columns (sizes,
// padding, stride, dilated extent) well inside int32 (the kernels keep them in 32 bits), and the
// (padded) filters and biases of all output channels in `max_weights` floats (they sit in shared
// memory in the forward).
inline bool thin_conv_fits(const ConvGeometry& g, int64_t max_weights) {
  const int64_t taps = g.in_channels * g.kernel[1] * g.kernel[2];
  const bool two_d = g.in_size[0] == 1 && g.kernel[0] == 1 && g.pad[0] == 0 && g.out_size[0] == 1;
  const int64_t limit = int64_t(1) << 31;
  const int64_t x = g.batch * g.in_channels * g.in_size[1] * g.in_size[2];
  const int64_t y = g.batch * g.out_channels * g.out_size[1] * g.out_size[2];
  const int64_t shared = g.out_channels * (thin_filter_stride(taps) + 1);
  auto window_fits = [&](int d) {
    const int64_t q = limit / 4;
    return g.in_size[d] < q && g.pad[d] >= 0 && g.pad[d] < q && g.stride[d] >= 1 && g.stride[d] < q &&
           g.dilation[d] >= 1 && g.dilation[d] < q && g.dilation[d] * (g.kernel[d] - 1) < q;
  };
  return two_d && g.groups == 1 && taps >= 1 && taps <= kThinMaxTaps && g.batch >= 1 && g.out_size[1] >= 1 &&
         g.out_size[2] >= 1 && x < limit && y < limit && shared <= max_weights && window_fits(1) && window_fits(2);
}

// Where position p reads and writes: the start of its sample in x, the top-left input pixel of its
// window (may lie in the padding) and its element in output channel 0 of y.
struct ThinPosition {
  uint32_t x_sample, y_index;
  int32_t row, col;
};
TOCHA_HD inline ThinPosition thin_position(const ThinConv& t, uint32_t p) {
  int64_t n, oh, ow;
  t.by_position.split(p, &n, &oh, &ow);
  ThinPosition q;
  q.x_sample = uint32_t(n) * t.in_sample;
  q.y_index = uint32_t(n) * t.out_channels * t.out_plane + uint32_t(oh) * uint32_t(t.by_position.cols) + uint32_t(ow);
  q.row = int32_t(oh) * t.stride_h - t.pad_h;
  q.col = int32_t(ow) * t.stride_w - t.pad_w;
  return q;
}

// The input value under tap k of a position (0 in the padding).
TOCHA_HD inline float thin_tap(const ThinConv& t, const float* x, const ThinPosition& q, int k) {
  const int32_t r = q.row + t.tap_row[k], c = q.col + t.tap_col[k];
  if (uint32_t(r) >= uint32_t(t.in_h) || uint32_t(c) >= uint32_t(t.in_w)) return 0.f;
  return x[q.x_sample + uint32_t(t.tap_plane[k]) + uint32_t(r) * uint32_t(t.in_w) + uint32_t(c)];
}

}  // namespace cuda
}  // namespace tocha
