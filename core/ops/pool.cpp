// Pooling front-ends: checks naming the op and what it received, output sizes, a (N, C, T, H, W)
// description of input and result for the shared pool kernels, and recording. See pool.h.
#include "core/ops/pool.h"
#include "core/type_name.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/index_scatter.h"
#include "core/ops/nn_result.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {

namespace {

// Note [Pooling layouts]: every pooling runs on the same kernels, which see planes of (T, H, W)
// cells. A spatial tensor (N, C, H, W) has T = 1; Torch7's temporal layout (N, T, F) pools frames
// of each feature, so its planes are the features (C = F) with the frames as W and strides that
// walk the frame-major memory in place. The pooled dims of each layout are also the dims whose
// flat positions max poolings return as indices.
enum class Layout { spatial, volumetric, temporal };

int pooled_count(Layout l) { return l == Layout::volumetric ? 3 : l == Layout::spatial ? 2 : 1; }
// The first pooled dim of a tensor of rank ndim.
int first_pooled(Layout l, int ndim) { return l == Layout::volumetric ? ndim - 3 : ndim - 2; }

// Sizes in (T, H, W) order of the pooled dims of `sizes`.
void pooled_sizes(Layout l, const DimVec& sizes, int64_t out[3]) {
  const int n = sizes.size();
  out[0] = l == Layout::volumetric ? sizes[n - 3] : 1;
  out[1] = l == Layout::temporal ? 1 : sizes[n - 2];
  out[2] = l == Layout::temporal ? sizes[n - 2] : sizes[n - 1];
}
// `sizes` with the pooled dims replaced by p (T, H, W).
DimVec with_pooled(Layout l, const DimVec& sizes, const int64_t p[3]) {
  DimVec r = sizes;
  const int n = r.size();
  if (l == Layout::volumetric) { r[n - 3] = p[0]; r[n - 2] = p[1]; r[n - 1] = p[2]; }
  else if (l == Layout::spatial) { r[n - 2] = p[1]; r[n - 1] = p[2]; }
  else r[n - 2] = p[2];
  return r;
}

// Describes a tensor (sizes, strides) of the layout as planes of (T, H, W) cells for the kernel.
void describe(Layout l, const DimVec& sz, const DimVec& st, int64_t size3[3], int64_t stride5[5], int64_t* batch,
              int64_t* channels) {
  const int n = sz.size();
  const bool batched = l == Layout::volumetric ? n == 5 : l == Layout::spatial ? n == 4 : n == 3;
  *batch = batched ? sz[0] : 1;
  stride5[0] = batched ? st[0] : 0;
  pooled_sizes(l, sz, size3);
  if (l == Layout::temporal) {  // (N,) T, F: channels are the features, frames the W dim
    *channels = sz[n - 1];
    stride5[1] = st[n - 1];
    stride5[2] = 0;
    stride5[3] = 0;
    stride5[4] = st[n - 2];
    return;
  }
  const int c = first_pooled(l, n) - 1;
  *channels = sz[c];
  stride5[1] = st[c];
  stride5[2] = l == Layout::volumetric ? st[n - 3] : 0;
  stride5[3] = st[n - 2];
  stride5[4] = st[n - 1];
}

int64_t pooled_size(int64_t in, int64_t k, int64_t d, int64_t pad, bool ceil_mode) {
  int64_t span = in + 2 * pad - k;
  if (span < 0) return 0;
  int64_t o = (ceil_mode ? (span + d - 1) / d : span / d) + 1;
  if (ceil_mode && (o - 1) * d >= in + pad) --o;  // the last window must start inside input or left pad
  return o;
}

std::string triple(const int64_t v[3], const char* sep) { return str_cat(v[0], sep, v[1], sep, v[2]); }

// Bounds window arithmetic (in + 2 pad - k...) far from overflow; no real window comes close.
constexpr int64_t kMaxWindow = int64_t(1) << 40;

void check_params(const char* op, const Pool3dParams& p) {
  for (int i = 0; i < 3; ++i) {
    TOCHA_CHECK(p.k[i] < kMaxWindow && p.d[i] < kMaxWindow && p.pad[i] < kMaxWindow, op, "kernel ", triple(p.k, "x"),
                ", stride ", triple(p.d, ","), " or padding ", triple(p.pad, ","), " is too large");
    TOCHA_CHECK(p.k[i] > 0 && p.d[i] > 0 && p.pad[i] >= 0, op, "kernel ", triple(p.k, "x"), ", stride ",
                triple(p.d, ","), " and padding ", triple(p.pad, ","),
                ": kernel sizes and strides must be positive, padding non-negative");
    TOCHA_CHECK(p.pad[i] <= p.k[i] / 2, op, "padding ", triple(p.pad, ","), " must be at most half of kernel ",
                triple(p.k, "x"));
  }
}

// The (T, H, W) output sizes of a regular pooling of an input of `sizes`.
void regular_out(const char* op, Layout l, const DimVec& sizes, const Pool3dParams& p, int64_t out[3]) {
  int64_t in[3];
  pooled_sizes(l, sizes, in);
  bool ok = true;
  for (int i = 0; i < 3; ++i) {
    out[i] = pooled_size(in[i], p.k[i], p.d[i], p.pad[i], p.ceil_mode);
    ok = ok && out[i] > 0;
  }
  TOCHA_CHECK(ok, op, "input of size ", shape_str(sizes), " is too small for kernel ", triple(p.k, "x"),
              " with padding ", triple(p.pad, ","), " (the output would be ", triple(out, "x"), ")");
}

// A pooling call: which op, the layout, the windows and the output's (T, H, W) sizes.
struct Call {
  Call(OpId i, Layout l) : id(i), layout(l) {}
  OpId id;
  Layout layout;
  bool adaptive = false;
  Pool3dParams p;
  int64_t out[3] = {1, 1, 1};
};

PoolArgs make_args(const Call& c, const DimVec& xs, const DimVec& xst, const DimVec& ys, const DimVec& yst) {
  PoolArgs a;
  describe(c.layout, xs, xst, a.x_size, a.x_stride, &a.batch, &a.channels);
  int64_t b, ch;
  describe(c.layout, ys, yst, a.y_size, a.y_stride, &b, &ch);
  a.adaptive = c.adaptive;
  for (int i = 0; i < 3; ++i) {
    a.k[i] = c.p.k[i];
    a.d[i] = c.p.d[i];
    a.pad[i] = c.p.pad[i];
  }
  a.count_include_pad = c.p.count_include_pad;
  return a;
}

// Forward of every pooling; indices are computed when `with_indices` (max poolings).
ValuesIndices run_forward(const Call& c, const Tensor& x, const Tensor* values_out, const Tensor* indices_out,
                          bool with_indices, int64_t index_base) {
  const char* op = op_name(c.id);
  autograd::Recording rec(c.id, values_out, {&x});
  DimVec shape = with_pooled(c.layout, x.sizes(), c.out);
  auto kernel = kernel_for<PoolKernel>(c.id, x.device().type, x.dtype());
  Tensor y = result_target(op, values_out, shape, x.dtype(), x);
  Tensor idx;
  if (with_indices) {
    TOCHA_CHECK(!indices_out || indices_out->dtype() == DType::i64, op, "indices must be a torch.LongTensor, got a ",
                dtype_tensor_name(indices_out->dtype()));
    idx = result_target(op, indices_out, shape, DType::i64, x, values_out);
  }
  if (y.numel() > 0) {
    PoolArgs a = make_args(c, x.sizes(), x.strides(), y.sizes(), y.strides());
    a.x = x.raw_data();
    a.y = y.raw_data();
    a.indices = with_indices ? idx.data<int64_t>() : nullptr;
    a.index_base = index_base;
    kernel(a);
  }
  ValuesIndices r{result_finish(values_out, y), with_indices ? result_finish(indices_out, idx) : Tensor()};
  if (auto n = rec.finish({&x}, {&r.values})) {
    n->attrs.i[0] = first_pooled(c.layout, x.dim());
    n->attrs.i[1] = pooled_count(c.layout);
    n->attrs.i[2] = index_base;
    n->attrs.i[3] = c.p.ceil_mode | (c.p.count_include_pad << 1);
    n->attrs.shape = DimVec(c.p.k, 3);
    n->attrs.shape2 = DimVec(c.p.d, 3);
    n->attrs.shape3 = DimVec(c.p.pad, 3);
    if (with_indices) n->save(r.indices);
  }
  return r;
}

// Backward of the average poolings: grad has the output's shape for an input of input_shape.
Tensor run_avg_backward(const Call& c, const Tensor& grad, const DimVec& input_shape, const Tensor* out) {
  const char* op = op_name(c.id);
  autograd::Recording rec(c.id, out, {&grad});
  DimVec expect = with_pooled(c.layout, input_shape, c.out);
  TOCHA_CHECK(grad.sizes() == expect, op, "grad is ", shape_str(grad.sizes()), " but the output for an input of size ",
              shape_str(input_shape), " is ", shape_str(expect));
  auto kernel = kernel_for<PoolKernel>(c.id, grad.device().type, grad.dtype());
  Tensor gx = result_target(op, out, input_shape, grad.dtype(), grad);
  if (gx.numel() > 0) {
    PoolArgs a = make_args(c, gx.sizes(), gx.strides(), grad.sizes(), grad.strides());
    a.x = gx.raw_data();
    a.y = grad.raw_data();
    kernel(a);
  }
  Tensor r = result_finish(out, gx);
  if (auto n = rec.finish({&grad}, {&r})) {
    n->attrs.i[3] = c.p.ceil_mode | (c.p.count_include_pad << 1);
    n->attrs.shape = DimVec(c.p.k, 3);
    n->attrs.shape2 = DimVec(c.p.d, 3);
    n->attrs.shape3 = DimVec(c.p.pad, 3);
  }
  return r;
}

// ---- per-op geometry ----------------------------------------------------------------------------

Call adaptive_call(OpId id, const Tensor& x, int64_t oh, int64_t ow) {
  const char* op = op_name(id);
  check_rank(op, x, 3, "N x C x H x W");
  check_floating(op, x);
  TOCHA_CHECK(oh > 0 && ow > 0, op, "output size ", oh, "x", ow, " must be positive");
  const int n = x.dim();
  TOCHA_CHECK(x.size(n - 1) > 0 && x.size(n - 2) > 0, op, "input of size ", shape_str(x.sizes()),
              " has an empty plane");
  Call c(id, Layout::spatial);
  c.adaptive = true;
  c.out[1] = oh;
  c.out[2] = ow;
  return c;
}

Call volumetric_call(OpId id, const Tensor& x, const Pool3dParams& p) {
  const char* op = op_name(id);
  check_rank(op, x, 4, "N x C x T x H x W");
  check_floating(op, x);
  check_params(op, p);
  Call c(id, Layout::volumetric);
  c.p = p;
  regular_out(op, c.layout, x.sizes(), p, c.out);
  return c;
}

Call temporal_call(const Tensor& x, int64_t kw, int64_t dw) {
  const char* op = op_name(OpId::temporalMaxPool);
  check_rank(op, x, 2, "N x T x F");
  check_floating(op, x);
  TOCHA_CHECK(kw > 0 && dw > 0, op, "kernel width ", kw, " and step ", dw, " must be positive");
  TOCHA_CHECK(kw < kMaxWindow && dw < kMaxWindow, op, "kernel width ", kw, " or step ", dw, " is too large");
  const int64_t frames = x.size(x.dim() - 2);
  TOCHA_CHECK(frames >= kw, op, "input of size ", shape_str(x.sizes()), " has ", frames,
              " frames, fewer than the kernel width ", kw);
  Call c(OpId::temporalMaxPool, Layout::temporal);
  c.p.k[2] = kw;
  c.p.d[2] = dw;
  c.out[2] = (frames - kw) / dw + 1;
  return c;
}

void check_input_shape(const char* op, const DimVec& s, int lo, const char* layout) {
  TOCHA_CHECK(s.size() == lo || s.size() == lo + 1, op, "expected the size of a ", lo, "D or ", lo + 1, "D (",
              layout, ") input, got ", shape_str(s));
  for (int64_t v : s) TOCHA_CHECK(v >= 0, op, "invalid input size ", shape_str(s));
}

}  // namespace

// ---- adaptive 2D ------------------------------------------------------------------------------------

ValuesIndices adaptive_max_pool2d(const Tensor& x, int64_t oh, int64_t ow, int64_t base) {
  return run_forward(adaptive_call(OpId::adaptiveMaxPool2d, x, oh, ow), x, nullptr, nullptr, true, base);
}
void adaptive_max_pool2d_out(const Tensor& values, const Tensor& indices, const Tensor& x, int64_t oh, int64_t ow,
                             int64_t base) {
  run_forward(adaptive_call(OpId::adaptiveMaxPool2d, x, oh, ow), x, &values, &indices, true, base);
}
Tensor adaptive_avg_pool2d(const Tensor& x, int64_t oh, int64_t ow) {
  return run_forward(adaptive_call(OpId::adaptiveAvgPool2d, x, oh, ow), x, nullptr, nullptr, false, 0).values;
}
void adaptive_avg_pool2d_out(const Tensor& out, const Tensor& x, int64_t oh, int64_t ow) {
  run_forward(adaptive_call(OpId::adaptiveAvgPool2d, x, oh, ow), x, &out, nullptr, false, 0);
}

static Tensor adaptive_avg_backward(const Tensor& grad, const DimVec& input_shape, const Tensor* out) {
  const char* op = op_name(OpId::adaptiveAvgPool2dBackward);
  check_input_shape(op, input_shape, 3, "N x C x H x W");
  check_floating(op, grad);
  TOCHA_CHECK(grad.dim() == input_shape.size(), op, "grad is ", shape_str(grad.sizes()), " but the input is ",
              shape_str(input_shape));
  const int n = grad.dim();
  TOCHA_CHECK(input_shape[n - 1] > 0 && input_shape[n - 2] > 0 && grad.size(n - 1) > 0 && grad.size(n - 2) > 0, op,
              "grad of size ", shape_str(grad.sizes()), " and input of size ", shape_str(input_shape),
              " must have non-empty planes");
  Call c(OpId::adaptiveAvgPool2dBackward, Layout::spatial);
  c.adaptive = true;
  c.out[1] = grad.size(n - 2);
  c.out[2] = grad.size(n - 1);
  return run_avg_backward(c, grad, input_shape, out);
}
Tensor adaptive_avg_pool2d_backward(const Tensor& grad, const DimVec& input_shape) {
  return adaptive_avg_backward(grad, input_shape, nullptr);
}
void adaptive_avg_pool2d_backward_out(const Tensor& grad_input, const Tensor& grad, const DimVec& input_shape) {
  adaptive_avg_backward(grad, input_shape, &grad_input);
}

// ---- volumetric -----------------------------------------------------------------------------------

ValuesIndices max_pool3d(const Tensor& x, const Pool3dParams& p, int64_t base) {
  return run_forward(volumetric_call(OpId::maxPool3d, x, p), x, nullptr, nullptr, true, base);
}
void max_pool3d_out(const Tensor& values, const Tensor& indices, const Tensor& x, const Pool3dParams& p,
                    int64_t base) {
  run_forward(volumetric_call(OpId::maxPool3d, x, p), x, &values, &indices, true, base);
}
Tensor avg_pool3d(const Tensor& x, const Pool3dParams& p) {
  return run_forward(volumetric_call(OpId::avgPool3d, x, p), x, nullptr, nullptr, false, 0).values;
}
void avg_pool3d_out(const Tensor& out, const Tensor& x, const Pool3dParams& p) {
  run_forward(volumetric_call(OpId::avgPool3d, x, p), x, &out, nullptr, false, 0);
}

static Tensor avg3d_backward(const Tensor& grad, const DimVec& input_shape, const Pool3dParams& p, const Tensor* out) {
  const char* op = op_name(OpId::avgPool3dBackward);
  check_input_shape(op, input_shape, 4, "N x C x T x H x W");
  check_floating(op, grad);
  check_params(op, p);
  Call c(OpId::avgPool3dBackward, Layout::volumetric);
  c.p = p;
  regular_out(op, c.layout, input_shape, p, c.out);
  return run_avg_backward(c, grad, input_shape, out);
}
Tensor avg_pool3d_backward(const Tensor& grad, const DimVec& input_shape, const Pool3dParams& p) {
  return avg3d_backward(grad, input_shape, p, nullptr);
}
void avg_pool3d_backward_out(const Tensor& grad_input, const Tensor& grad, const DimVec& input_shape,
                             const Pool3dParams& p) {
  avg3d_backward(grad, input_shape, p, &grad_input);
}

// ---- temporal -------------------------------------------------------------------------------------

ValuesIndices temporal_max_pool(const Tensor& x, int64_t kw, int64_t dw, int64_t base) {
  return run_forward(temporal_call(x, kw, dw), x, nullptr, nullptr, true, base);
}
void temporal_max_pool_out(const Tensor& values, const Tensor& indices, const Tensor& x, int64_t kw, int64_t dw,
                           int64_t base) {
  run_forward(temporal_call(x, kw, dw), x, &values, &indices, true, base);
}

// ---- max pooling gradient -------------------------------------------------------------------------

// The scatter target seen as (outer, pooled, inner) for grad and indices seen the same way.
static Tensor max_backward(const Tensor& grad, const Tensor& indices, const DimVec& input_shape, int first, int count,
                           int64_t base, const Tensor* out) {
  const char* op = "maxPoolBackward";
  const int n = input_shape.size();
  TOCHA_CHECK(first >= 0 && count >= 1 && first + count <= n, op, "pooled dims ", first + 1, "..", first + count,
              " do not fit an input of size ", shape_str(input_shape));
  TOCHA_CHECK(indices.dtype() == DType::i64, op, "indices must be a torch.LongTensor, got a ",
              tensor_type_name(indices));
  check_floating(op, grad);
  check_same_device(op, grad, indices);
  TOCHA_CHECK(grad.sizes() == indices.sizes(), op, "grad is ", shape_str(grad.sizes()), " but indices are ",
              shape_str(indices.sizes()));
  bool fits = grad.dim() == n;
  for (int d = 0; fits && d < n; ++d) fits = (d >= first && d < first + count) || grad.size(d) == input_shape[d];
  TOCHA_CHECK(fits, op, "grad of size ", shape_str(grad.sizes()), " does not match an input of size ",
              shape_str(input_shape), " outside the pooled dims");
  int64_t outer = 1, plane = 1, inner = 1, cells = 1;
  for (int d = 0; d < n; ++d) {
    TOCHA_CHECK(input_shape[d] >= 0, op, "invalid input size ", shape_str(input_shape));
    if (d < first) outer *= input_shape[d];
    else if (d < first + count) { plane *= input_shape[d]; cells *= grad.size(d); }
    else inner *= input_shape[d];
  }
  Tensor g3 = reshape(grad, {outer, cells, inner}), i3 = reshape(indices, {outer, cells, inner});
  if (!out || autograd::needs_record(grad)) {  // made of recorded ops
    Tensor z = zeros({outer, plane, inner}, grad.dtype(), grad.device());
    Tensor r = reshape(scatter_add(z, 1, i3, g3, base), input_shape);
    if (!out) return r;
    resize_(*out, input_shape);
    copy_(*out, r);  // recorded as an in-place copy
    return *out;
  }
  Tensor target = result_target(op, out, input_shape, grad.dtype(), grad, &indices);
  fill_(target, 0);
  scatter_add_(view_as_shape(target, {outer, plane, inner}), 1, i3, g3, base);
  return result_finish(out, target);
}
Tensor max_pool_backward(const Tensor& grad, const Tensor& indices, const DimVec& input_shape, int first, int count,
                         int64_t base) {
  return max_backward(grad, indices, input_shape, first, count, base, nullptr);
}
void max_pool_backward_out(const Tensor& grad_input, const Tensor& grad, const Tensor& indices,
                           const DimVec& input_shape, int first, int count, int64_t base) {
  max_backward(grad, indices, input_shape, first, count, base, &grad_input);
}

}  // namespace tocha
