// Pooling front-ends and kernels (core/ops/pool.h) against naive references: adaptive 2D, 3D and
// temporal max/average pooling with strides, padding and ceil mode, f32/f64 and strided inputs,
// the backward ops, `out` forms and the errors.
#include <algorithm>
#include <cmath>
#include <limits>
#include "core/ops/pool.h"
#include "test_index_util.h"

using namespace tocha;
using namespace index_test;

namespace {

// Windows of a naive pooling along one dim: [start, end) clipped, and the padded span.
struct Win {
  int64_t s, e, span;
};
Win window(bool adaptive, int64_t o, int64_t in, int64_t out, int64_t k, int64_t d, int64_t pad) {
  if (adaptive) {
    int64_t s = int64_t(std::floor(double(o) * in / out)), e = int64_t(std::ceil(double(o + 1) * in / out));
    return {s, e, e - s};
  }
  int64_t s = o * d - pad, e = std::min(s + k, in + pad);
  return {std::max<int64_t>(s, 0), std::min(e, in), e - s};
}

struct Pooled {
  Tensor values, indices;
};

// Naive pooling of a 5D (N, C, T, H, W) tensor to out (T, H, W) sizes.
Pooled ref_pool(const Tensor& x, bool max, bool adaptive, const Pool3dParams& p, const int64_t out[3]) {
  const int64_t N = x.size(0), C = x.size(1), T = x.size(2), H = x.size(3), W = x.size(4);
  DimVec shape{N, C, out[0], out[1], out[2]};
  Pooled r{empty(shape, DType::f64), empty(shape, DType::i64)};
  for_each_index(shape, [&](const DimVec& q) {
    Win wt = window(adaptive, q[2], T, out[0], p.k[0], p.d[0], p.pad[0]);
    Win wh = window(adaptive, q[3], H, out[1], p.k[1], p.d[1], p.pad[1]);
    Win ww = window(adaptive, q[4], W, out[2], p.k[2], p.d[2], p.pad[2]);
    double best = -std::numeric_limits<double>::infinity(), sum = 0;
    int64_t at_best = (wt.s * H + wh.s) * W + ww.s;
    for (int64_t t = wt.s; t < wt.e; ++t)
      for (int64_t h = wh.s; h < wh.e; ++h)
        for (int64_t w = ww.s; w < ww.e; ++w) {
          double v = at(x, {q[0], q[1], t, h, w});
          sum += v;
          if (v > best) { best = v; at_best = (t * H + h) * W + w; }
        }
    int64_t cells = (wt.e - wt.s) * (wh.e - wh.s) * (ww.e - ww.s);
    int64_t div = p.count_include_pad && !adaptive ? wt.span * wh.span * ww.span : cells;
    set_item_at(r.values, linear_of(shape, q), max ? best : sum / double(div));
    set_item_at(r.indices, linear_of(shape, q), double(at_best + 1));
  });
  return r;
}

// Naive backward of an average pooling: every output gradient spread over its window.
Tensor ref_avg_backward(const Tensor& g, const DimVec& in5, bool adaptive, const Pool3dParams& p) {
  Tensor gx = zeros(in5, DType::f64);
  const int64_t out[3] = {g.size(2), g.size(3), g.size(4)};
  for_each_index(g.sizes(), [&](const DimVec& q) {
    Win wt = window(adaptive, q[2], in5[2], out[0], p.k[0], p.d[0], p.pad[0]);
    Win wh = window(adaptive, q[3], in5[3], out[1], p.k[1], p.d[1], p.pad[1]);
    Win ww = window(adaptive, q[4], in5[4], out[2], p.k[2], p.d[2], p.pad[2]);
    int64_t cells = (wt.e - wt.s) * (wh.e - wh.s) * (ww.e - ww.s);
    int64_t div = p.count_include_pad && !adaptive ? wt.span * wh.span * ww.span : cells;
    double v = at(g, q) / double(div);
    for (int64_t t = wt.s; t < wt.e; ++t)
      for (int64_t h = wh.s; h < wh.e; ++h)
        for (int64_t w = ww.s; w < ww.e; ++w) {
          int64_t l = linear_of(in5, {q[0], q[1], t, h, w});
          set_item_at(gx, l, item_at(gx, l) + v);
        }
  });
  return gx;
}

void check_close(const Tensor& got, const Tensor& ref, double tol) {
  REQUIRE(got.numel() == ref.numel());
  for (int64_t i = 0; i < ref.numel(); ++i) {
    INFO("element " << i);
    REQUIRE(std::abs(item_at(got, i) - item_at(ref, i)) <= tol);
  }
}
double tol_of(DType dt) { return dt == DType::f32 ? 1e-5 : 1e-12; }

Pool3dParams params(std::initializer_list<int64_t> k, std::initializer_list<int64_t> d,
                    std::initializer_list<int64_t> pad, bool ceil_mode, bool cip = true) {
  Pool3dParams p;
  std::copy(k.begin(), k.end(), p.k);
  std::copy(d.begin(), d.end(), p.d);
  std::copy(pad.begin(), pad.end(), p.pad);
  p.ceil_mode = ceil_mode;
  p.count_include_pad = cip;
  return p;
}

}  // namespace

TEST_CASE("adaptive 2D pooling matches a naive reference", "[pool]") {
  for (DType dt : {DType::f32, DType::f64}) {
    for (bool batched : {false, true}) {
      INFO(dtype_name(dt) << (batched ? " 4D" : " 3D"));
      // strided(): the first two dims are swapped in memory; sizes chosen so windows overlap.
      Tensor x4 = strided({3, 2, 7, 9}, dt, 3);
      Tensor x = batched ? x4 : select(x4, 0, 1);
      Tensor x5 = batched ? unsqueeze(x, 2) : unsqueeze(unsqueeze(x, 0), 2);
      for (auto [oh, ow] : {std::pair<int64_t, int64_t>{3, 4}, {7, 9}, {1, 1}, {10, 12}}) {
        INFO(oh << "x" << ow);
        const int64_t out[3] = {1, oh, ow};
        Pooled r = ref_pool(x5, true, true, Pool3dParams(), out);
        ValuesIndices m = adaptive_max_pool2d(x, oh, ow, 1);
        check_close(m.values, r.values, 0);
        check_same(reshape(m.indices, r.indices.sizes()), r.indices);
        Pooled ra = ref_pool(x5, false, true, Pool3dParams(), out);
        Tensor a = adaptive_avg_pool2d(x, oh, ow);
        REQUIRE(a.dim() == x.dim());
        check_close(a, ra.values, tol_of(dt));
        // The backward spreads each gradient over its window.
        Tensor g = filled(a.sizes(), dt, 9);
        Tensor gx = adaptive_avg_pool2d_backward(g, x.sizes());
        Tensor g5 = batched ? unsqueeze(g, 2) : unsqueeze(unsqueeze(g, 0), 2);
        check_close(gx, ref_avg_backward(g5, x5.sizes(), true, Pool3dParams()), tol_of(dt));
      }
    }
  }
}

TEST_CASE("3D max and average pooling match a naive reference", "[pool]") {
  const Pool3dParams cases[] = {
      params({2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false), params({2, 3, 2}, {1, 2, 2}, {1, 1, 0}, false),
      params({2, 3, 3}, {2, 2, 2}, {0, 1, 1}, true),  params({3, 3, 3}, {2, 2, 2}, {1, 1, 1}, true, false),
      params({1, 2, 3}, {1, 3, 1}, {0, 1, 1}, true, true)};
  for (DType dt : {DType::f32, DType::f64}) {
    for (const Pool3dParams& p : cases) {
      INFO(dtype_name(dt) << " k " << p.k[0] << p.k[1] << p.k[2] << " d " << p.d[0] << p.d[1] << p.d[2] << " pad "
                          << p.pad[0] << p.pad[1] << p.pad[2] << " ceil " << p.ceil_mode);
      Tensor x = strided({2, 3, 5, 8, 7}, dt, 5);
      ValuesIndices m = max_pool3d(x, p, 1);
      const int64_t out[3] = {m.values.size(2), m.values.size(3), m.values.size(4)};
      Pooled r = ref_pool(x, true, false, p, out);
      check_close(m.values, r.values, 0);
      check_same(m.indices, r.indices);
      Tensor a = avg_pool3d(x, p);
      REQUIRE(a.sizes() == m.values.sizes());
      check_close(a, ref_pool(x, false, false, p, out).values, tol_of(dt));
      Tensor g = filled(a.sizes(), dt, 4);
      check_close(avg_pool3d_backward(g, x.sizes(), p), ref_avg_backward(g, x.sizes(), false, p), tol_of(dt));
      // A 4D input is one sample.
      Tensor x4 = select(x, 0, 1);
      check_close(max_pool3d(x4, p, 1).values, select(m.values, 0, 1), 0);
      check_close(avg_pool3d(x4, p), select(a, 0, 1), tol_of(dt));
    }
  }
  // Output sizes: ceil mode adds the partial window unless it would start in the padding.
  Tensor x = zeros({1, 1, 5, 5, 5}, DType::f32);
  CHECK(max_pool3d(x, params({2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false), 1).values.sizes() == DimVec({1, 1, 2, 2, 2}));
  CHECK(max_pool3d(x, params({2, 2, 2}, {2, 2, 2}, {0, 0, 0}, true), 1).values.sizes() == DimVec({1, 1, 3, 3, 3}));
  // (5 + 2 - 3) / 3 rounds up to 2, + 1: but the third window would start at 6 - 1 = 5, in the padding.
  CHECK(max_pool3d(x, params({3, 3, 3}, {3, 3, 3}, {1, 1, 1}, true), 1).values.sizes() == DimVec({1, 1, 2, 2, 2}));
}

TEST_CASE("temporal max pooling pools frames per feature", "[pool]") {
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor xb = strided({2, 9, 4}, dt, 2);  // (nBatch, nFrame, F), frame-major in memory
    for (auto [kw, dw] : {std::pair<int64_t, int64_t>{3, 2}, {1, 1}, {9, 1}, {2, 3}}) {
      INFO(dtype_name(dt) << " kw " << kw << " dw " << dw);
      ValuesIndices m = temporal_max_pool(xb, kw, dw, 1);
      const int64_t frames = (9 - kw) / dw + 1;
      REQUIRE(m.values.sizes() == DimVec({2, frames, 4}));
      for_each_index(m.values.sizes(), [&](const DimVec& q) {
        double best = -1e300;
        int64_t arg = 0;
        for (int64_t t = q[1] * dw; t < q[1] * dw + kw; ++t)
          if (at(xb, {q[0], t, q[2]}) > best) { best = at(xb, {q[0], t, q[2]}); arg = t; }
        REQUIRE(at(m.values, q) == best);
        REQUIRE(at(m.indices, q) == double(arg + 1));
      });
      ValuesIndices one = temporal_max_pool(select(xb, 0, 1), kw, dw, 0);  // 2D input, 0-based indices
      check_close(one.values, select(m.values, 0, 1), 0);
      check_close(one.indices, binary(OpId::csub, select(m.indices, 0, 1), Scalar(1.0)), 0);
      // The gradient lands on the maxima's frames.
      Tensor g = filled(m.values.sizes(), dt, 7);
      Tensor gx = max_pool_backward(g, m.indices, xb.sizes(), 1, 1, 1);
      Tensor ref = zeros(xb.sizes(), DType::f64);
      for_each_index(g.sizes(), [&](const DimVec& q) {
        int64_t l = linear_of(xb.sizes(), {q[0], int64_t(at(m.indices, q)) - 1, q[2]});
        set_item_at(ref, l, item_at(ref, l) + at(g, q));
      });
      check_close(gx, ref, 0);
    }
  }
}

TEST_CASE("max pooling gradients scatter into the maxima, accumulating overlaps", "[pool]") {
  Tensor x = strided({2, 3, 4, 6, 5}, DType::f64, 8);
  Pool3dParams p = params({2, 3, 3}, {1, 1, 2}, {1, 1, 1}, true);
  ValuesIndices m = max_pool3d(x, p, 1);
  Tensor g = filled(m.values.sizes(), DType::f64, 3);
  Tensor gx = max_pool_backward(g, m.indices, x.sizes(), 2, 3, 1);
  Tensor ref = zeros(x.sizes(), DType::f64);
  for_each_index(g.sizes(), [&](const DimVec& q) {
    int64_t l = (q[0] * 3 + q[1]) * (4 * 6 * 5) + int64_t(at(m.indices, q)) - 1;
    set_item_at(ref, l, item_at(ref, l) + at(g, q));
  });
  check_close(gx, ref, 0);
  Tensor out = empty({3}, DType::f64);
  max_pool_backward_out(out, g, m.indices, x.sizes(), 2, 3, 1);
  check_close(out, ref, 0);
  CHECK_THROWS_WITH(max_pool_backward(g, m.indices, {2, 3, 4, 6}, 2, 3, 1),
                    Catch::Contains("pooled dims 3..5 do not fit an input of size 2x3x4x6"));
  CHECK_THROWS_WITH(max_pool_backward(g, to_dtype(m.indices, DType::f64), x.sizes(), 2, 3, 1),
                    "[maxPoolBackward] indices must be a torch.LongTensor, got a torch.DoubleTensor");
}

TEST_CASE("pooling into out tensors: reused, non-contiguous and aliasing results", "[pool]") {
  Tensor x = filled({2, 3, 6, 6}, DType::f32, 2);
  ValuesIndices ref = adaptive_max_pool2d(x, 2, 3, 1);
  Tensor v = empty({1}, DType::f32), i = empty({1}, DType::i64);
  adaptive_max_pool2d_out(v, i, x, 2, 3, 1);
  check_close(v, ref.values, 0);
  check_same(i, ref.indices);
  uint32_t version = v.version();
  adaptive_max_pool2d_out(v, i, x, 2, 3, 1);  // same sizes: written in place, version bumped
  CHECK(v.version() != version);
  Tensor nc = transpose(empty({2, 3, 3, 2}, DType::f32), 2, 3);  // non-contiguous result
  adaptive_avg_pool2d_out(nc, x, 2, 3);
  check_close(nc, adaptive_avg_pool2d(x, 2, 3), 0);
  Tensor self = clone(x);  // the result is the input: computed aside first
  adaptive_avg_pool2d_out(self, self, 3, 3);
  check_close(self, adaptive_avg_pool2d(x, 3, 3), 0);
  CHECK_THROWS_WITH(adaptive_avg_pool2d_out(empty({1}, DType::f64), x, 2, 2),
                    "[adaptiveAvgPool2d] the result tensor is a torch.DoubleTensor but should be a torch.FloatTensor");
  CHECK_THROWS_WITH(adaptive_max_pool2d_out(v, empty({1}, DType::i32), x, 2, 2, 1),
                    "[adaptiveMaxPool2d] indices must be a torch.LongTensor, got a torch.IntTensor");
}

TEST_CASE("half-precision pooling agrees with float", "[pool]") {
  Tensor x = filled({2, 2, 6, 6, 6}, DType::f32, 6);
  Pool3dParams p = params({3, 3, 3}, {2, 2, 2}, {1, 1, 1}, true);
  for (DType dt : {DType::f16, DType::bf16}) {
    INFO(dtype_name(dt));
    Tensor xh = to_dtype(x, dt);
    check_close(max_pool3d(xh, p, 1).values, max_pool3d(x, p, 1).values, 0);
    check_close(avg_pool3d(xh, p), avg_pool3d(x, p), 0.05);
    check_close(adaptive_avg_pool2d(select(xh, 2, 0), 4, 4), adaptive_avg_pool2d(select(x, 2, 0), 4, 4), 0.05);
  }
}

TEST_CASE("pooling rejects bad input with messages naming the op", "[pool]") {
  Tensor x = zeros({2, 3, 4, 4}, DType::f32);
  CHECK_THROWS_WITH(adaptive_max_pool2d(zeros({4, 4}, DType::f32), 2, 2, 1),
                    "[adaptiveMaxPool2d] expected a 3D or 4D (N x C x H x W) tensor, got size 4x4");
  CHECK_THROWS_WITH(adaptive_avg_pool2d(x, 0, 2), "[adaptiveAvgPool2d] output size 0x2 must be positive");
  CHECK_THROWS_WITH(adaptive_avg_pool2d(zeros({2, 3, 0, 4}, DType::f32), 2, 2),
                    "[adaptiveAvgPool2d] input of size 2x3x0x4 has an empty plane");
  CHECK_THROWS_WITH(adaptive_avg_pool2d(zeros({2, 3, 4}, DType::i64), 2, 2),
                    "[adaptiveAvgPool2d] expected a floating-point tensor, got a torch.LongTensor");
  CHECK_THROWS_WITH(max_pool3d(x, params({4, 3, 3}, {1, 1, 1}, {0, 0, 0}, false), 1),
                    "[maxPool3d] input of size 2x3x4x4 is too small for kernel 4x3x3 with padding 0,0,0 (the output "
                    "would be 0x2x2)");
  CHECK_THROWS_WITH(avg_pool3d(x, params({2, 2, 2}, {1, 1, 1}, {0, 2, 0}, false)),
                    "[avgPool3d] padding 0,2,0 must be at most half of kernel 2x2x2");
  CHECK_THROWS_WITH(avg_pool3d(x, params({2, 0, 2}, {1, 1, 1}, {0, 0, 0}, false)),
                    Catch::Contains("kernel sizes and strides must be positive"));
  CHECK_THROWS_WITH(max_pool3d(x, params({int64_t(1) << 62, 1, 1}, {1, 1, 1}, {int64_t(1) << 61, 0, 0}, false), 1),
                    Catch::Contains("is too large"));
  CHECK_THROWS_WITH(temporal_max_pool(zeros({3, 5}, DType::f64), int64_t(1) << 62, int64_t(1) << 62, 1),
                    "[temporalMaxPool] kernel width 4611686018427387904 or step 4611686018427387904 is too large");
  CHECK_THROWS_WITH(temporal_max_pool(zeros({3, 5}, DType::f64), 4, 1, 1),
                    "[temporalMaxPool] input of size 3x5 has 3 frames, fewer than the kernel width 4");
  CHECK_THROWS_WITH(avg_pool3d_backward(zeros({2, 3, 1, 1}, DType::f32), {2, 3, 4, 4},
                                        params({2, 2, 2}, {2, 2, 2}, {0, 0, 0}, false)),
                    "[avgPool3dBackward] grad is 2x3x1x1 but the output for an input of size 2x3x4x4 is 2x1x2x2");
  CHECK_THROWS_WITH(adaptive_avg_pool2d_backward(zeros({2, 3, 2, 2}, DType::f32), {2, 3, 4}),
                    "[adaptiveAvgPool2dBackward] grad is 2x3x2x2 but the input is 2x3x4");
}
