// Padding and resampling front-ends: checks naming the op and what it received, result sizes,
// contiguous operands for the kernels, and recording. See resample.h.
#include "core/ops/resample.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/nn_result.h"
#include "core/ops/pointwise.h"

namespace tocha {

namespace {

// ---- padding ---------------------------------------------------------------------------------------

std::string pads_str(const std::vector<int64_t>& pads) {
  std::string s;
  for (size_t i = 0; i < pads.size(); ++i) s += (i ? "," : "") + std::to_string(pads[i]);
  return s;
}

// Checks pads against an input of `in` sizes and returns the padded sizes.
DimVec padded_shape(const char* op, const DimVec& in, const std::vector<int64_t>& pads, PadMode mode) {
  TOCHA_CHECK(int(mode) >= 0 && int(mode) <= 2, op, "invalid padding mode ", int(mode));
  const int k = int(pads.size()) / 2;
  TOCHA_CHECK(pads.size() % 2 == 0 && k >= 1 && k <= 3, op, "expected 2, 4 or 6 pads (before and after, from the ",
              "last dim), got ", pads.size());
  TOCHA_CHECK(in.size() >= k, op, pads.size(), " pads need a tensor of at least ", k, " dims, got size ",
              in.empty() ? std::string("[] (0-dim)") : shape_str(in));
  DimVec out = in;
  for (int i = 0; i < k; ++i) {
    const int d = in.size() - 1 - i;
    const int64_t before = pads[size_t(2 * i)], after = pads[size_t(2 * i + 1)], n = in[d];
    constexpr int64_t kMaxPad = int64_t(1) << 40;  // keeps n + before + after far from overflow
    TOCHA_CHECK(before > -kMaxPad && before < kMaxPad && after > -kMaxPad && after < kMaxPad, op, "padding (",
                pads_str(pads), ") is too large");
    if (mode == PadMode::reflect)
      TOCHA_CHECK(before < n && after < n, op, "reflect padding (", pads_str(pads),
                  ") must be smaller than the padded dims, but dim ", d + 1, " of the input (size ", shape_str(in),
                  ") has ", n, " elements");
    if (mode == PadMode::replicate)
      TOCHA_CHECK(n > 0 || (before <= 0 && after <= 0), op, "replicate padding (", pads_str(pads),
                  ") of an empty dim ", d + 1, " (input of size ", shape_str(in), ")");
    out[d] = n + before + after;
    TOCHA_CHECK(out[d] >= 0, op, "padding (", pads_str(pads), ") crops more than dim ", d + 1, " of an input of size ",
                shape_str(in), " holds");
  }
  return out;
}

PadArgs pad_args(const DimVec& xs, const DimVec& ys, const std::vector<int64_t>& pads, PadMode mode, double value) {
  PadArgs a;
  const int k = int(pads.size()) / 2, n = xs.size();
  a.outer = 1;
  for (int d = 0; d < n - k; ++d) a.outer *= xs[d];
  for (int i = 0; i < k; ++i) {  // dim n-1-i goes to slot 2-i
    a.x_size[2 - i] = xs[n - 1 - i];
    a.y_size[2 - i] = ys[n - 1 - i];
    a.before[2 - i] = pads[size_t(2 * i)];
  }
  a.mode = mode;
  a.value = value;
  return a;
}

Tensor pad_impl(const Tensor& x, const std::vector<int64_t>& pads, PadMode mode, double value, const Tensor* out) {
  const char* op = "pad";
  autograd::Recording rec(OpId::pad, out, {&x});
  DimVec shape = padded_shape(op, x.sizes(), pads, mode);
  auto kernel = kernel_for<PadKernel>(OpId::pad, x.device().type, x.dtype());
  Tensor xc = contiguous(x);
  Tensor y = result_target(op, out, shape, x.dtype(), x);
  if (y.numel() > 0) {
    PadArgs a = pad_args(xc.sizes(), shape, pads, mode, value);
    a.x = xc.raw_data();
    a.y = y.raw_data();
    kernel(a);
  }
  Tensor r = result_finish(out, y);
  if (auto n = rec.finish({&x}, {&r})) {
    n->attrs.i[0] = int64_t(mode);
    n->attrs.shape = DimVec(pads.data(), int(pads.size()));
  }
  return r;
}

Tensor pad_backward_impl(const Tensor& grad, const DimVec& input_shape, const std::vector<int64_t>& pads,
                         PadMode mode, const Tensor* out) {
  const char* op = "padBackward";
  autograd::Recording rec(OpId::padBackward, out, {&grad});
  check_floating(op, grad);
  for (int64_t v : input_shape) TOCHA_CHECK(v >= 0, op, "invalid input size ", shape_str(input_shape));
  DimVec expect = padded_shape(op, input_shape, pads, mode);
  TOCHA_CHECK(grad.sizes() == expect, op, "grad is ", shape_str(grad.sizes()), " but padding (", pads_str(pads),
              ") of an input of size ", shape_str(input_shape), " gives ", shape_str(expect));
  auto kernel = kernel_for<PadKernel>(OpId::padBackward, grad.device().type, grad.dtype());
  Tensor gc = contiguous(grad);
  Tensor gx = result_target(op, out, input_shape, grad.dtype(), grad);
  if (gx.numel() > 0) {
    PadArgs a = pad_args(input_shape, expect, pads, mode, 0);
    a.x = gx.raw_data();
    a.y = gc.raw_data();
    kernel(a);
  }
  Tensor r = result_finish(out, gx);
  if (auto n = rec.finish({&grad}, {&r})) {
    n->attrs.i[0] = int64_t(mode);
    n->attrs.shape = DimVec(pads.data(), int(pads.size()));
  }
  return r;
}

// ---- resampling --------------------------------------------------------------------------------------

void check_upsample(const char* op, const DimVec& in, int64_t oh, int64_t ow, UpsampleMode mode) {
  TOCHA_CHECK(mode == UpsampleMode::nearest || mode == UpsampleMode::bilinear, op, "invalid mode ", int(mode));
  const int n = in.size();
  TOCHA_CHECK(n == 3 || n == 4, op, "expected a 3D (C x H x W) or 4D (N x C x H x W) tensor, got ",
              n == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(in));
  TOCHA_CHECK(in[n - 1] > 0 && in[n - 2] > 0, op, "input of size ", shape_str(in), " has an empty plane");
  TOCHA_CHECK(oh > 0 && ow > 0, op, "output size ", oh, "x", ow, " must be positive");
}

UpsampleArgs upsample_args(const DimVec& in, int64_t oh, int64_t ow, UpsampleMode mode, bool align_corners) {
  UpsampleArgs a;
  const int n = in.size();
  a.planes = in[0] * (n == 4 ? in[1] : 1);
  a.xh = in[n - 2];
  a.xw = in[n - 1];
  a.yh = oh;
  a.yw = ow;
  a.mode = mode;
  a.align_corners = align_corners;
  return a;
}

DimVec resampled(const DimVec& in, int64_t oh, int64_t ow) {
  DimVec r = in;
  r[r.size() - 2] = oh;
  r[r.size() - 1] = ow;
  return r;
}

Tensor upsample_impl(const Tensor& x, int64_t oh, int64_t ow, UpsampleMode mode, bool align_corners,
                     const Tensor* out) {
  const char* op = "upsample2d";
  autograd::Recording rec(OpId::upsample2d, out, {&x});
  check_floating(op, x);
  check_upsample(op, x.sizes(), oh, ow, mode);
  auto kernel = kernel_for<UpsampleKernel>(OpId::upsample2d, x.device().type, x.dtype());
  Tensor xc = contiguous(x);
  Tensor y = result_target(op, out, resampled(x.sizes(), oh, ow), x.dtype(), x);
  if (y.numel() > 0) {
    UpsampleArgs a = upsample_args(x.sizes(), oh, ow, mode, align_corners);
    a.x = xc.raw_data();
    a.y = y.raw_data();
    kernel(a);
  }
  Tensor r = result_finish(out, y);
  if (auto n = rec.finish({&x}, {&r})) {
    n->attrs.i[0] = int64_t(mode);
    n->attrs.i[1] = align_corners;
  }
  return r;
}

Tensor upsample_backward_impl(const Tensor& grad, const DimVec& input_shape, UpsampleMode mode, bool align_corners,
                              const Tensor* out) {
  const char* op = "upsample2dBackward";
  autograd::Recording rec(OpId::upsample2dBackward, out, {&grad});
  check_floating(op, grad);
  TOCHA_CHECK(grad.dim() == input_shape.size() && (grad.dim() == 3 || grad.dim() == 4), op, "grad is ",
              shape_str(grad.sizes()), " but the input is ", shape_str(input_shape));
  const int n = grad.dim();
  const int64_t oh = grad.size(n - 2), ow = grad.size(n - 1);
  check_upsample(op, input_shape, oh, ow, mode);
  TOCHA_CHECK(grad.sizes() == resampled(input_shape, oh, ow), op, "grad is ", shape_str(grad.sizes()),
              " but the input is ", shape_str(input_shape));
  auto kernel = kernel_for<UpsampleKernel>(OpId::upsample2dBackward, grad.device().type, grad.dtype());
  Tensor gc = contiguous(grad);
  Tensor gx = result_target(op, out, input_shape, grad.dtype(), grad);
  if (gx.numel() > 0) {
    UpsampleArgs a = upsample_args(input_shape, oh, ow, mode, align_corners);
    a.x = gx.raw_data();
    a.y = gc.raw_data();
    kernel(a);
  }
  Tensor r = result_finish(out, gx);
  if (auto nd = rec.finish({&grad}, {&r})) {
    nd->attrs.i[0] = int64_t(mode);
    nd->attrs.i[1] = align_corners;
  }
  return r;
}

}  // namespace

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, PadMode mode, double value) {
  return pad_impl(x, pads, mode, value, nullptr);
}
void pad_out(const Tensor& out, const Tensor& x, const std::vector<int64_t>& pads, PadMode mode, double value) {
  pad_impl(x, pads, mode, value, &out);
}
Tensor pad_backward(const Tensor& grad, const DimVec& input_shape, const std::vector<int64_t>& pads, PadMode mode) {
  return pad_backward_impl(grad, input_shape, pads, mode, nullptr);
}
void pad_backward_out(const Tensor& grad_input, const Tensor& grad, const DimVec& input_shape,
                      const std::vector<int64_t>& pads, PadMode mode) {
  pad_backward_impl(grad, input_shape, pads, mode, &grad_input);
}

Tensor upsample2d(const Tensor& x, int64_t oh, int64_t ow, UpsampleMode mode, bool align_corners) {
  return upsample_impl(x, oh, ow, mode, align_corners, nullptr);
}
void upsample2d_out(const Tensor& out, const Tensor& x, int64_t oh, int64_t ow, UpsampleMode mode,
                    bool align_corners) {
  upsample_impl(x, oh, ow, mode, align_corners, &out);
}
Tensor upsample2d_backward(const Tensor& grad, const DimVec& input_shape, UpsampleMode mode, bool align_corners) {
  return upsample_backward_impl(grad, input_shape, mode, align_corners, nullptr);
}
void upsample2d_backward_out(const Tensor& grad_input, const Tensor& grad, const DimVec& input_shape,
                             UpsampleMode mode, bool align_corners) {
  upsample_backward_impl(grad, input_shape, mode, align_corners, &grad_input);
}

}  // namespace tocha
