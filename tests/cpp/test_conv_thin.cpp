// The index math of the thin-filter CUDA convolutions (kernels/cuda/conv_thin_math.h, Note
// [Thin-filter convolutions]) run on the host: the kernels' per-position loops, emulated here,
// against a plain 2-D convolution and its weight gradient, over padding, strides, dilations,
// several input channels and the limits of what the kernels take. The kernels themselves run
// in the GPU tests (test_cuda_nn_kernels.lua).
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>
#include "kernels/cuda/conv_thin_math.h"

using tocha::ConvGeometry;
using namespace tocha::cuda;

namespace {

ConvGeometry geometry(int64_t n, int64_t c, int64_t h, int64_t w, int64_t o, int64_t kh, int64_t kw, int64_t stride,
                      int64_t pad, int64_t dil) {
  ConvGeometry g;
  g.batch = n;
  g.in_channels = c;
  g.out_channels = o;
  g.in_size[1] = h;
  g.in_size[2] = w;
  g.kernel[1] = kh;
  g.kernel[2] = kw;
  g.stride[1] = g.stride[2] = stride;
  g.pad[1] = g.pad[2] = pad;
  g.dilation[1] = g.dilation[2] = dil;
  g.out_size[1] = (h + 2 * pad - dil * (kh - 1) - 1) / stride + 1;
  g.out_size[2] = (w + 2 * pad - dil * (kw - 1) - 1) / stride + 1;
  return g;
}

std::vector<double> reals(size_t n, uint32_t seed) {
  std::vector<double> v(n);
  for (double& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = double(seed >> 8) / double(1 << 23) - 1.0;
  }
  return v;
}

// x at (n, c, r, col), 0 in the padding.
double at(const ConvGeometry& g, const std::vector<double>& x, int64_t n, int64_t c, int64_t r, int64_t col) {
  const int64_t h = g.in_size[1], w = g.in_size[2];
  if (r < 0 || r >= h || col < 0 || col >= w) return 0;
  return x[size_t(((n * g.in_channels + c) * h + r) * w + col)];
}

}  // namespace

TEST_CASE("thin convolution: emulated kernels match a plain convolution", "[conv_thin]") {
  const ConvGeometry cases[] = {
      geometry(2, 1, 7, 9, 4, 3, 3, 1, 1, 1),   // the CNN's first layer, smaller
      geometry(3, 3, 8, 6, 5, 3, 3, 2, 1, 1),   // 27 taps, stride 2
      geometry(1, 2, 9, 11, 3, 2, 3, 1, 2, 2),  // padding wider than the filter reach, dilation 2
      geometry(2, 1, 5, 12, 2, 4, 8, 1, 0, 1),  // 32 taps, no padding
      geometry(2, 4, 5, 5, 6, 1, 1, 1, 0, 1),   // 1x1
      geometry(1, 1, 6, 6, 2, 3, 3, 3, 0, 1),   // stride 3 = kernel width: the windows tile the input
  };
  for (const ConvGeometry& g : cases) {
    REQUIRE(thin_conv_fits(g, 4096));
    const ThinConv t = thin_conv_of(g);
    const int64_t oh = g.out_size[1], ow = g.out_size[2], kh = g.kernel[1], kw = g.kernel[2];
    const auto x = reals(size_t(g.batch * g.in_channels * g.in_size[1] * g.in_size[2]), 3);
    const auto w = reals(size_t(g.out_channels * t.taps), 5);
    const auto dy = reals(size_t(g.batch * g.out_channels * oh * ow), 7);
    std::vector<float> xf(x.begin(), x.end());
    // The kernels' loops: per position, the taps, then every output channel.
    std::vector<double> y(dy.size(), 0), dw(w.size(), 0);
    for (uint32_t p = 0; p < t.positions; ++p) {
      const ThinPosition q = thin_position(t, p);
      for (uint32_t o = 0; o < t.out_channels; ++o) {
        const size_t yi = q.y_index + o * t.out_plane;
        for (int k = 0; k < t.taps; ++k) {
          const double v = thin_tap(t, xf.data(), q, k);
          y[yi] += w[size_t(o * uint32_t(t.taps) + uint32_t(k))] * v;
          dw[size_t(o * uint32_t(t.taps) + uint32_t(k))] += dy[yi] * v;
        }
      }
    }
    // The plain loops over (n, o, r, c) and (channel, i, j).
    std::vector<double> y_ref(dy.size(), 0), dw_ref(w.size(), 0);
    for (int64_t n = 0; n < g.batch; ++n)
      for (int64_t o = 0; o < g.out_channels; ++o)
        for (int64_t r = 0; r < oh; ++r)
          for (int64_t c = 0; c < ow; ++c) {
            const size_t yi = size_t(((n * g.out_channels + o) * oh + r) * ow + c);
            for (int64_t ch = 0; ch < g.in_channels; ++ch)
              for (int64_t i = 0; i < kh; ++i)
                for (int64_t j = 0; j < kw; ++j) {
                  const size_t wi = size_t(((o * g.in_channels + ch) * kh + i) * kw + j);
                  const double v = at(g, x, n, ch, r * g.stride[1] - g.pad[1] + i * g.dilation[1],
                                      c * g.stride[2] - g.pad[2] + j * g.dilation[2]);
                  y_ref[yi] += w[wi] * v;
                  dw_ref[wi] += dy[yi] * v;
                }
          }
    for (size_t i = 0; i < y.size(); ++i) REQUIRE(y[i] == Approx(y_ref[i]).margin(1e-6));
    for (size_t i = 0; i < dw.size(); ++i) REQUIRE(dw[i] == Approx(dw_ref[i]).margin(1e-6));
  }
}

TEST_CASE("thin convolution: what the kernels do not take", "[conv_thin]") {
  CHECK(thin_conv_fits(geometry(1, 1, 28, 28, 32, 3, 3, 1, 1, 1), 4096));
  CHECK_FALSE(thin_conv_fits(geometry(1, 3, 8, 8, 4, 3, 4, 1, 0, 1), 4096));   // 36 taps
  CHECK(thin_conv_fits(geometry(1, 1, 8, 8, 315, 3, 3, 1, 0, 1), 4096));       // 315 x (12 + 1) floats
  CHECK_FALSE(thin_conv_fits(geometry(1, 1, 8, 8, 316, 3, 3, 1, 0, 1), 4096)); // one filter more
  CHECK(thin_filter_stride(9) == 12);
  CHECK(thin_filter_stride(13) == 16);
  CHECK(thin_filter_stride(27) == 32);
  CHECK_FALSE(thin_conv_fits(geometry(0, 1, 8, 8, 4, 3, 3, 1, 0, 1), 4096));   // empty batch
  ConvGeometry grouped = geometry(1, 2, 8, 8, 4, 3, 3, 1, 0, 1);
  grouped.groups = 2;
  CHECK_FALSE(thin_conv_fits(grouped, 4096));
  ConvGeometry deep = geometry(1, 1, 8, 8, 4, 3, 3, 1, 0, 1);
  deep.in_size[0] = 4;
  deep.kernel[0] = 3;
  deep.out_size[0] = 2;
  CHECK_FALSE(thin_conv_fits(deep, 4096));
  CHECK_FALSE(thin_conv_fits(geometry(70000, 1, 200, 200, 8, 3, 3, 1, 1, 1), 4096));  // 2^31 elements
  // Padding and strides past int32 (the kernels' window arithmetic) go to cuDNN, which refuses them.
  ConvGeometry far = geometry(1, 1, 1, 1, 1, 1, 1, 1, 0, 1);
  far.pad[2] = int64_t(1) << 32;
  far.stride[2] = int64_t(1) << 33;
  far.out_size[2] = 2;
  CHECK_FALSE(thin_conv_fits(far, 4096));
  ConvGeometry dilated = geometry(1, 1, 8, 8, 1, 3, 3, 1, 0, 1);
  dilated.dilation[1] = int64_t(1) << 30;
  CHECK_FALSE(thin_conv_fits(dilated, 4096));
}
