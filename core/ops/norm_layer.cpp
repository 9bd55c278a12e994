// Layer normalization front-ends (fused kernels in kernels/cpu/norm_layer.cpp): x is normalized
// over its last ndims dims, viewed as M rows of K values; weight and bias have those dims' shape.
#include <cmath>
#include "core/autocast.h"
#include "core/type_name.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/norm.h"
#include "core/ops/norm_kernels.h"
#include "core/ops/norm_util.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

using namespace norm_util;

namespace {

const char* const kFwd = "layerNorm";
const char* const kBwd = "layerNormBackward";

// The number of normalized values per row (K), after checking x, ndims, weight and bias.
int64_t check_layer(const char* op, const Tensor& x, int ndims, const Tensor& weight, const Tensor& bias) {
  TOCHA_CHECK(x.defined(), op, "expected an input tensor");
  TOCHA_CHECK(is_floating(x.dtype()), op, "expected a floating-point tensor, got a ", tensor_type_name(x));
  TOCHA_CHECK(ndims >= 1 && ndims <= x.dim(), op, "cannot normalize over the last ", ndims,
              " dims of a tensor of size ", shape_str(x.sizes()));
  DimVec norm_shape(x.sizes().data() + (x.dim() - ndims), ndims);
  for (const Tensor* p : {&weight, &bias}) {
    if (!p->defined()) continue;
    TOCHA_CHECK(p->sizes() == norm_shape, op, "weight and bias must have size ", shape_str(norm_shape), ", got ",
                shape_str(p->sizes()));
    TOCHA_CHECK(p->dtype() == x.dtype(), op, p == &weight ? "weight" : "bias", " is a ",
                dtype_tensor_name(p->dtype()), " but the input is a ", tensor_type_name(x));
    check_same_device(op, *p, x);
  }
  return shape_numel(norm_shape);
}

// A vector of one statistic per row.
void check_stats(const char* op, const char* name, const Tensor& s, int64_t rows) {
  TOCHA_CHECK(s.defined() && s.dim() == 1 && s.size(0) == rows, op, name, " must be a vector of ", rows,
              " elements (one per normalized row), got ", s.defined() ? describe(s) : std::string("none"));
}

void run_forward(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& x,
                 int64_t k, const Tensor& weight, const Tensor& bias, double eps) {
  auto kernel = kernel_for<LayerNormKernel>(OpId::layerNorm, x.device().type, x.dtype());
  Tensor xc = contiguous(x), w = contig(weight), b = contig(bias);
  Tensor y = writable_buffer(out, {&x, &weight, &bias});
  Tensor sm = writable_buffer(save_mean, {}), si = writable_buffer(save_invstd, {});
  LayerNormArgs a;
  a.m = save_mean.numel();
  a.k = k;
  a.x = xc.raw_data();
  a.y = y.raw_data();
  a.weight = ptr(w);
  a.bias = ptr(b);
  a.save_mean = sm.raw_data();
  a.save_invstd = si.raw_data();
  a.eps = eps;
  kernel(a);
  commit(out, y);
  commit(save_mean, sm);
  commit(save_invstd, si);
}

int64_t rows_of(const Tensor& x, int ndims) {
  int64_t m = 1;
  for (int d = 0; d < x.dim() - ndims; ++d) m *= x.size(d);
  return m;
}

void save_for_backward(Node& n, const Tensor& x, const Tensor& weight, const Tensor& mean, const Tensor& invstd,
                       int ndims, double eps) {
  n.save(x);
  n.save(weight);
  n.save(mean);
  n.save(invstd);
  n.attrs.i[0] = ndims;
  n.attrs.d[0] = eps;
}

}  // namespace

LayerNormResult layer_norm_stats(const Tensor& x, int ndims, const Tensor& weight, const Tensor& bias, double eps) {
  if (autocast::active() && autocast::needs_f32(x))  // Note [Autocast]: in f32
    return layer_norm_stats(autocast::to_f32(x), ndims, weight, bias, eps);
  autograd::Recording rec(OpId::layerNorm, nullptr, {&x, &weight, &bias});
  int64_t k = check_layer(kFwd, x, ndims, weight, bias);
  TOCHA_CHECK(std::isfinite(eps) && eps >= 0, kFwd, "eps must be finite and >= 0, got ", eps);
  int64_t m = rows_of(x, ndims);
  LayerNormResult r{empty(x.sizes(), x.dtype(), x.device()), empty({m}, x.dtype(), x.device()),
                    empty({m}, x.dtype(), x.device())};
  run_forward(r.output, r.save_mean, r.save_invstd, x, k, weight, bias, eps);
  if (auto n = rec.finish({&x, &weight, &bias}, {&r.output}))
    save_for_backward(*n, x, weight, r.save_mean, r.save_invstd, ndims, eps);
  return r;
}

Tensor layer_norm(const Tensor& x, int ndims, const Tensor& weight, const Tensor& bias, double eps) {
  return layer_norm_stats(x, ndims, weight, bias, eps).output;
}

void layer_norm_out(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& x, int ndims,
                    const Tensor& weight, const Tensor& bias, double eps) {
  if (autocast::active() && autocast::needs_f32(x))  // Note [Autocast]: in f32
    return layer_norm_out(out, save_mean, save_invstd, autocast::to_f32(x), ndims, weight, bias, eps);
  autograd::Recording rec(OpId::layerNorm, &out, {&x, &weight, &bias});
  int64_t k = check_layer(kFwd, x, ndims, weight, bias);
  TOCHA_CHECK(std::isfinite(eps) && eps >= 0, kFwd, "eps must be finite and >= 0, got ", eps);
  check_result(kFwd, "output", out, x);
  check_result(kFwd, "save_mean", save_mean, x);
  check_result(kFwd, "save_invstd", save_invstd, x);
  for (const Tensor* s : {&save_mean, &save_invstd}) {
    const char* name = s == &save_mean ? "save_mean" : "save_invstd";
    check_disjoint(kFwd, name, *s, "the input", x);
    check_disjoint(kFwd, name, *s, "the output", out);
  }
  check_disjoint(kFwd, "save_mean", save_mean, "save_invstd", save_invstd);
  int64_t m = rows_of(x, ndims);
  const Tensor kx = rec.keep(x);  // Note [Results written into inputs]: out may be x itself
  resize_(out, x.sizes());
  resize_(save_mean, {m});
  resize_(save_invstd, {m});
  run_forward(out, save_mean, save_invstd, x, k, weight, bias, eps);
  if (auto n = rec.finish({&x, &weight, &bias}, {&out}))
    save_for_backward(*n, kx, weight, clone(save_mean), clone(save_invstd), ndims, eps);
}

namespace {

void run_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                  const Tensor& grad_out, const Tensor& x, int64_t k, const Tensor& weight, const Tensor& mean,
                  const Tensor& invstd, double scale) {
  auto kernel = kernel_for<LayerNormBackwardKernel>(OpId::layerNormBackward, x.device().type, x.dtype());
  Tensor g = contiguous(grad_out), xc = contiguous(x), m = contiguous(mean), is = contiguous(invstd);
  bool weight_written = weight.defined() && ((grad_weight.defined() && weight.shares_storage(grad_weight)) ||
                                             (grad_bias.defined() && weight.shares_storage(grad_bias)));
  Tensor w = weight_written ? clone(weight) : contig(weight);
  Tensor gi = grad_input.defined() ? writable_buffer(grad_input, {&g, &xc, &w, &m, &is}) : Tensor();
  Tensor gw = grad_weight.defined() && !grad_weight.is_contiguous() ? clone(grad_weight) : grad_weight;
  Tensor gb = grad_bias.defined() && !grad_bias.is_contiguous() ? clone(grad_bias) : grad_bias;
  LayerNormBackwardArgs a;
  a.m = mean.numel();
  a.k = k;
  a.grad_out = g.raw_data();
  a.x = xc.raw_data();
  a.weight = ptr(w);
  a.mean = m.raw_data();
  a.invstd = is.raw_data();
  a.grad_input = ptr(gi);
  a.grad_weight = ptr(gw);
  a.grad_bias = ptr(gb);
  a.scale = scale;
  kernel(a);
  if (gi.defined()) commit(grad_input, gi);
  if (gw.defined()) commit(grad_weight, gw);
  if (gb.defined()) commit(grad_bias, gb);
}

int64_t check_backward(const Tensor& grad_out, const Tensor& x, int ndims, const Tensor& weight, const Tensor& mean,
                       const Tensor& invstd) {
  int64_t k = check_layer(kBwd, x, ndims, weight, Tensor());
  TOCHA_CHECK(grad_out.defined() && grad_out.sizes() == x.sizes(), kBwd, "gradOutput must have the input's size ",
              shape_str(x.sizes()), ", got ", grad_out.defined() ? describe(grad_out) : std::string("none"));
  TOCHA_CHECK(grad_out.dtype() == x.dtype(), kBwd, "gradOutput is a ", tensor_type_name(grad_out),
              " but the input is a ", tensor_type_name(x));
  check_same_device(kBwd, grad_out, x);
  int64_t m = rows_of(x, ndims);
  check_stats(kBwd, "save_mean", mean, m);
  check_stats(kBwd, "save_invstd", invstd, m);
  for (const Tensor* s : {&mean, &invstd}) {
    TOCHA_CHECK(s->dtype() == x.dtype(), kBwd, "the saved statistics are ", dtype_tensor_name(s->dtype()),
                "s but the input is a ", tensor_type_name(x));
    check_same_device(kBwd, *s, x);
  }
  return k;
}

}  // namespace

NormGrads layer_norm_backward(const Tensor& grad_out, const Tensor& x, int ndims, const Tensor& weight,
                              const Tensor& mean, const Tensor& invstd, bool need_input, bool need_weight,
                              bool need_bias) {
  autograd::Recording rec(OpId::layerNormBackward, nullptr, {});
  int64_t k = check_backward(grad_out, x, ndims, weight, mean, invstd);
  DimVec norm_shape(x.sizes().data() + (x.dim() - ndims), ndims);
  NormGrads r;
  if (need_input) r.grad_input = empty(x.sizes(), x.dtype(), x.device());
  if (need_weight) r.grad_weight = zeros(norm_shape, x.dtype(), x.device());
  if (need_bias) r.grad_bias = zeros(norm_shape, x.dtype(), x.device());
  run_backward(r.grad_input, r.grad_weight, r.grad_bias, grad_out, x, k, weight, mean, invstd, 1);
  rec.finish({}, {});
  return r;
}

void layer_norm_backward_out(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                             const Tensor& grad_out, const Tensor& x, int ndims, const Tensor& weight,
                             const Tensor& mean, const Tensor& invstd, double scale) {
  autograd::Recording rec(OpId::layerNormBackward, grad_input.defined() ? &grad_input : nullptr, {});
  int64_t k = check_backward(grad_out, x, ndims, weight, mean, invstd);
  TOCHA_CHECK(std::isfinite(scale), kBwd, "scale must be finite, got ", scale);
  DimVec norm_shape(x.sizes().data() + (x.dim() - ndims), ndims);
  if (grad_input.defined()) check_result(kBwd, "gradInput", grad_input, x);
  for (const Tensor* p : {&grad_weight, &grad_bias}) {
    if (!p->defined()) continue;
    const char* name = p == &grad_weight ? "gradWeight" : "gradBias";
    check_result(kBwd, name, *p, x);
    TOCHA_CHECK(p->sizes() == norm_shape, kBwd, name, " must have size ", shape_str(norm_shape), ", got ",
                describe(*p));
    check_disjoint(kBwd, name, *p, "gradOutput", grad_out);
    check_disjoint(kBwd, name, *p, "the input", x);
    check_disjoint(kBwd, name, *p, "gradInput", grad_input);
  }
  check_disjoint(kBwd, "gradWeight", grad_weight, "gradBias", grad_bias);
  if (grad_input.defined()) resize_(grad_input, x.sizes());
  run_backward(grad_input, grad_weight, grad_bias, grad_out, x, k, weight, mean, invstd, scale);
  rec.finish({}, {});
}

}  // namespace tocha
