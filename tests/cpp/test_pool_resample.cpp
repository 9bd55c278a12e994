// Padding and resampling front-ends and kernels (core/ops/resample.h) against naive references:
// constant/reflect/replicate padding of 1-3 dims with crops, every dtype for constant padding,
// nearest and bilinear resampling both ways, the backward ops, `out` forms and the errors.
#include <cmath>
#include "core/ops/resample.h"
#include "test_index_util.h"

using namespace tocha;
using namespace index_test;

namespace {

// The input index output index o reads along a dim, or -1 for the constant (written as a walk,
// independently of the kernel's closed forms).
int64_t ref_source(int64_t o, int64_t before, int64_t n, PadMode mode) {
  int64_t j = o - before;
  if (j >= 0 && j < n) return j;
  if (mode == PadMode::constant) return -1;
  if (mode == PadMode::replicate) return j < 0 ? 0 : n - 1;
  while (j < 0 || j >= n) j = j < 0 ? -j : 2 * (n - 1) - j;  // bounce off the edges
  return j;
}

Tensor ref_pad(const Tensor& x, const std::vector<int64_t>& pads, PadMode mode, double value) {
  const int k = int(pads.size()) / 2, nd = x.dim();
  DimVec shape = x.sizes();
  for (int i = 0; i < k; ++i) shape[nd - 1 - i] += pads[size_t(2 * i)] + pads[size_t(2 * i + 1)];
  Tensor r = empty(shape, DType::f64);
  for_each_index(shape, [&](const DimVec& q) {
    DimVec src = q;
    bool inside = true;
    for (int i = 0; i < k; ++i) {
      const int d = nd - 1 - i;
      src[d] = ref_source(q[d], pads[size_t(2 * i)], x.size(d), mode);
      inside = inside && src[d] >= 0;
    }
    set_item_at(r, linear_of(shape, q), inside ? at(x, src) : value);
  });
  return r;
}

Tensor ref_pad_backward(const Tensor& g, const DimVec& in, const std::vector<int64_t>& pads, PadMode mode) {
  const int k = int(pads.size()) / 2, nd = in.size();
  Tensor gx = zeros(in, DType::f64);
  for_each_index(g.sizes(), [&](const DimVec& q) {
    DimVec src = q;
    for (int i = 0; i < k; ++i) {
      const int d = nd - 1 - i;
      src[d] = ref_source(q[d], pads[size_t(2 * i)], in[d], mode);
      if (src[d] < 0) return;
    }
    int64_t l = linear_of(in, src);
    set_item_at(gx, l, item_at(gx, l) + at(g, q));
  });
  return gx;
}

// Source coordinate of output index o (PyTorch's documented formulas).
double ref_coord(int64_t o, int64_t in, int64_t out, bool align) {
  if (align) return out > 1 ? double(o) * (in - 1) / (out - 1) : 0.0;
  return std::max(0.0, (o + 0.5) * double(in) / out - 0.5);
}

// Naive resampling of a 4D tensor; with `grad`, the transposed operation (g -> input gradient).
Tensor ref_upsample(const Tensor& x, int64_t oh, int64_t ow, UpsampleMode mode, bool align) {
  DimVec shape{x.size(0), x.size(1), oh, ow};
  Tensor r = empty(shape, DType::f64);
  const int64_t H = x.size(2), W = x.size(3);
  for_each_index(shape, [&](const DimVec& q) {
    double v;
    if (mode == UpsampleMode::nearest) {
      v = at(x, {q[0], q[1], int64_t(std::floor(double(q[2]) * H / oh)), int64_t(std::floor(double(q[3]) * W / ow))});
    } else {
      double sh = ref_coord(q[2], H, oh, align), sw = ref_coord(q[3], W, ow, align);
      int64_t h0 = std::min<int64_t>(int64_t(sh), H - 1), w0 = std::min<int64_t>(int64_t(sw), W - 1);
      int64_t h1 = std::min(h0 + 1, H - 1), w1 = std::min(w0 + 1, W - 1);
      double lh = sh - h0, lw = sw - w0;
      v = (1 - lh) * ((1 - lw) * at(x, {q[0], q[1], h0, w0}) + lw * at(x, {q[0], q[1], h0, w1})) +
          lh * ((1 - lw) * at(x, {q[0], q[1], h1, w0}) + lw * at(x, {q[0], q[1], h1, w1}));
    }
    set_item_at(r, linear_of(shape, q), v);
  });
  return r;
}

void check_close(const Tensor& got, const Tensor& ref, double tol) {
  REQUIRE(got.sizes() == ref.sizes());
  for (int64_t i = 0; i < ref.numel(); ++i) {
    INFO("element " << i);
    REQUIRE(std::abs(item_at(got, i) - item_at(ref, i)) <= tol);
  }
}

}  // namespace

TEST_CASE("padding matches a naive reference in every mode, with crops", "[pool][pad]") {
  const std::vector<std::vector<int64_t>> cases = {
      {2, 1}, {0, 3}, {2, 1, 3, 2}, {-1, 2, 1, -2}, {3, 3, 0, 0}, {1, 2, 2, 0, 1, 1}, {-1, 1, 1, -1, 0, 2}};
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor x = strided({2, 3, 4, 5, 6}, dt, 4);
    for (const auto& pads : cases) {
      for (PadMode mode : {PadMode::constant, PadMode::reflect, PadMode::replicate}) {
        INFO(dtype_name(dt) << " mode " << int(mode) << " pads " << pads.size() << ": " << pads[0] << "," << pads[1]);
        Tensor y = pad(x, pads, mode, mode == PadMode::constant ? 2.5 : 0);
        check_close(y, ref_pad(x, pads, mode, mode == PadMode::constant ? 2.5 : 0), 0);
        Tensor g = filled(y.sizes(), dt, 6);
        check_close(pad_backward(g, x.sizes(), pads, mode), ref_pad_backward(g, x.sizes(), pads, mode), 0);
      }
    }
  }
  // Constant padding copies any dtype; a crop to nothing gives an empty result.
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    Tensor x = filled({3, 4}, dt, 2);
    Tensor ref = to_dtype(ref_pad(x, {1, -2, 2, 0}, PadMode::constant, 1), dt);
    check_same(pad(x, {1, -2, 2, 0}, PadMode::constant, 1), ref);
  }
  CHECK(pad(zeros({2, 3}, DType::f32), {-2, -1}, PadMode::constant).sizes() == DimVec({2, 0}));
  // Reflect reaches pads of size n - 1; replicate any size.
  Tensor v = filled({1, 3}, DType::f64, 3);
  check_close(pad(v, {2, 2}, PadMode::reflect), ref_pad(v, {2, 2}, PadMode::reflect, 0), 0);
  check_close(pad(v, {7, 5}, PadMode::replicate), ref_pad(v, {7, 5}, PadMode::replicate, 0), 0);
}

TEST_CASE("pad_out writes into reused and aliasing results", "[pool][pad]") {
  Tensor x = filled({2, 3, 4}, DType::f32, 1);
  Tensor out = empty({1}, DType::f32);
  pad_out(out, x, {1, 1, 1, 1}, PadMode::reflect);
  check_close(out, ref_pad(x, {1, 1, 1, 1}, PadMode::reflect, 0), 0);
  Tensor self = clone(x);
  pad_out(self, self, {0, 2}, PadMode::replicate);
  check_close(self, ref_pad(x, {0, 2}, PadMode::replicate, 0), 0);
  Tensor gx = empty({5}, DType::f32);
  pad_backward_out(gx, filled({2, 5, 6}, DType::f32, 2), x.sizes(), {1, 1, 1, 1}, PadMode::reflect);
  check_close(gx, ref_pad_backward(filled({2, 5, 6}, DType::f32, 2), x.sizes(), {1, 1, 1, 1}, PadMode::reflect), 0);
}

TEST_CASE("padding rejects bad pads with messages naming the op", "[pool][pad]") {
  Tensor x = zeros({2, 3, 4}, DType::f32);
  CHECK_THROWS_WITH(pad(x, {1, 2, 3}, PadMode::constant), Catch::Contains("expected 2, 4 or 6 pads"));
  CHECK_THROWS_WITH(pad(x, {4, 0, 1, 1}, PadMode::reflect),
                    "[pad] reflect padding (4,0,1,1) must be smaller than the padded dims, but dim 3 of the input "
                    "(size 2x3x4) has 4 elements");
  CHECK_THROWS_WITH(pad(x, {0, 0, 0, 3}, PadMode::reflect), Catch::Contains("dim 2 of the input (size 2x3x4) has 3"));
  CHECK_THROWS_WITH(pad(zeros({2, 0}, DType::f32), {1, 0}, PadMode::replicate),
                    "[pad] replicate padding (1,0) of an empty dim 2 (input of size 2x0)");
  CHECK_THROWS_WITH(pad(x, {-3, -2}, PadMode::constant),
                    "[pad] padding (-3,-2) crops more than dim 3 of an input of size 2x3x4 holds");
  CHECK_THROWS_WITH(pad(zeros({4}, DType::f32), {1, 1, 1, 1}, PadMode::constant),
                    "[pad] 4 pads need a tensor of at least 2 dims, got size 4");
  CHECK_THROWS_WITH(pad(x, {1, 1}, PadMode(7)), "[pad] invalid padding mode 7");
  CHECK_THROWS_WITH(pad(x, {INT64_MAX, INT64_MAX}, PadMode::constant), Catch::Contains("is too large"));
  // Large pads under the bound reach the ordinary checks (a crop beyond the dim), without overflow.
  CHECK_THROWS_WITH(pad(x, {-(int64_t(1) << 39), 0}, PadMode::constant), Catch::Contains("crops more than dim 3"));
  CHECK_THROWS_WITH(pad_backward(zeros({2, 3, 5}, DType::f32), x.sizes(), {1, 1}, PadMode::reflect),
                    "[padBackward] grad is 2x3x5 but padding (1,1) of an input of size 2x3x4 gives 2x3x6");
}

TEST_CASE("nearest and bilinear resampling match naive formulas", "[pool][upsample]") {
  const std::pair<int64_t, int64_t> sizes[] = {{7, 9}, {10, 12}, {5, 5}, {3, 2}, {1, 1}, {1, 7}};
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor x = strided({2, 3, 5, 6}, dt, 7);
    for (auto [oh, ow] : sizes) {
      for (UpsampleMode mode : {UpsampleMode::nearest, UpsampleMode::bilinear}) {
        for (bool align : {false, true}) {
          INFO(dtype_name(dt) << " " << oh << "x" << ow << " mode " << int(mode) << " align " << align);
          Tensor y = upsample2d(x, oh, ow, mode, align);
          const double tol = dt == DType::f32 ? 1e-5 : 1e-12;
          check_close(y, ref_upsample(x, oh, ow, mode, align), tol);
          // The backward is the transpose: <upsample(x), g> == <x, backward(g)>.
          Tensor g = filled(y.sizes(), dt, 3);
          Tensor gx = upsample2d_backward(g, x.sizes(), mode, align);
          double lhs = 0, rhs = 0;
          for (int64_t i = 0; i < y.numel(); ++i) lhs += item_at(y, i) * item_at(g, i);
          Tensor xc = contiguous(x);
          for (int64_t i = 0; i < x.numel(); ++i) rhs += item_at(xc, i) * item_at(gx, i);
          REQUIRE(std::abs(lhs - rhs) <= tol * 100 * (1 + std::abs(lhs)));
          // One sample (3D) gives the batch's first sample.
          check_close(upsample2d(select(x, 0, 0), oh, ow, mode, align), select(y, 0, 0), 0);
        }
      }
    }
  }
  // Integer nearest scales repeat pixels; aligned bilinear keeps the corners.
  Tensor x = filled({1, 1, 2, 3}, DType::f64, 1);
  Tensor y = upsample2d(x, 4, 6, UpsampleMode::nearest, false);
  for_each_index(y.sizes(), [&](const DimVec& q) { REQUIRE(at(y, q) == at(x, {0, 0, q[2] / 2, q[3] / 2})); });
  Tensor b = upsample2d(x, 5, 7, UpsampleMode::bilinear, true);
  CHECK(at(b, {0, 0, 4, 6}) == at(x, {0, 0, 1, 2}));
  CHECK(at(b, {0, 0, 2, 3}) == at(x, {0, 0, 0, 1}) * 0.5 + at(x, {0, 0, 1, 1}) * 0.5);
}

TEST_CASE("resampling into out tensors and its errors", "[pool][upsample]") {
  Tensor x = filled({2, 2, 3, 3}, DType::f32, 2);
  Tensor out = transpose(empty({2, 2, 6, 6}, DType::f32), 2, 3);
  upsample2d_out(out, x, 6, 6, UpsampleMode::bilinear, true);
  check_close(out, ref_upsample(x, 6, 6, UpsampleMode::bilinear, true), 1e-5);
  Tensor gx = empty({1}, DType::f32);
  upsample2d_backward_out(gx, filled({2, 2, 6, 6}, DType::f32, 1), x.sizes(), UpsampleMode::nearest, false);
  CHECK(gx.sizes() == x.sizes());
  CHECK_THROWS_WITH(upsample2d(zeros({3, 3}, DType::f32), 2, 2, UpsampleMode::nearest, false),
                    "[upsample2d] expected a 3D (C x H x W) or 4D (N x C x H x W) tensor, got size 3x3");
  CHECK_THROWS_WITH(upsample2d(x, 0, 3, UpsampleMode::nearest, false), "[upsample2d] output size 0x3 must be positive");
  CHECK_THROWS_WITH(upsample2d(zeros({1, 0, 3}, DType::f32), 2, 2, UpsampleMode::bilinear, true),
                    "[upsample2d] input of size 1x0x3 has an empty plane");
  CHECK_THROWS_WITH(upsample2d(zeros({1, 2, 3}, DType::i32), 2, 2, UpsampleMode::bilinear, true),
                    "[upsample2d] expected a floating-point tensor, got a torch.IntTensor");
  CHECK_THROWS_WITH(upsample2d(x, 2, 2, UpsampleMode(5), true), "[upsample2d] invalid mode 5");
  CHECK_THROWS_WITH(upsample2d_backward(zeros({2, 2, 6, 6}, DType::f32), {2, 3, 3, 3}, UpsampleMode::nearest, false),
                    "[upsample2dBackward] grad is 2x2x6x6 but the input is 2x3x3x3");
}
