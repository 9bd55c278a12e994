// Batch normalization front-ends: checks naming the op and what it received, contiguous operands
// for the fused kernels, results copied back into strided or aliasing outputs, and recording.
#include "core/ops/norm.h"
#include "core/type_name.h"
#include <cmath>
#include "core/autocast.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/norm_kernels.h"
#include "core/ops/norm_util.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

using namespace norm_util;

namespace {

const char* const kFwd = "batchNorm";
const char* const kBwd = "batchNormBackward";

void check_input(const char* op, const char* name, const Tensor& x) {
  TOCHA_CHECK(x.defined(), op, "expected a tensor for ", name);
  TOCHA_CHECK(is_floating(x.dtype()), op, "expected a floating-point ", name, ", got a ",
              tensor_type_name(x));
  TOCHA_CHECK(x.dim() >= 2, op, "expected ", name, " of N x C or N x C x ... (at least 2 dims), got ", describe(x));
}

// An optional per-channel vector: C elements of x's dtype on x's device.
void check_channels(const char* op, const char* name, const Tensor& v, const Tensor& x) {
  if (!v.defined()) return;
  TOCHA_CHECK(v.dim() == 1 && v.size(0) == x.size(1), op, name, " must be a vector of ", x.size(1),
              " elements (one per channel of an input of size ", shape_str(x.sizes()), "), got ", describe(v));
  TOCHA_CHECK(v.dtype() == x.dtype(), op, name, " is a ", tensor_type_name(v), " but the input is a ",
              tensor_type_name(x));
  check_same_device(op, v, x);
}

int64_t inner_size(const Tensor& x) {
  int64_t l = 1;
  for (int d = 2; d < x.dim(); ++d) l *= x.size(d);
  return l;
}

void check_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                   const Tensor& running_var, bool training, double momentum, double eps) {
  check_input(kFwd, "input", x);
  check_channels(kFwd, "weight", weight, x);
  check_channels(kFwd, "bias", bias, x);
  check_channels(kFwd, "running_mean", running_mean, x);
  check_channels(kFwd, "running_var", running_var, x);
  TOCHA_CHECK(running_mean.defined() == running_var.defined(), kFwd,
              "running_mean and running_var must be given together");
  TOCHA_CHECK(training || running_mean.defined(), kFwd,
              "evaluation mode needs running_mean and running_var (or use the batch statistics: training = true)");
  TOCHA_CHECK(std::isfinite(eps) && eps >= 0, kFwd, "eps must be finite and >= 0, got ", eps);
  TOCHA_CHECK(std::isfinite(momentum), kFwd, "momentum must be finite, got ", momentum);
  // Note [Empty batches in batch norm]: PyTorch refuses exactly one value per channel in training;
  // an empty batch gives an empty output, leaves the running statistics alone and passes no
  // gradient to weight and bias (the kernels would divide by the count of 0).
  TOCHA_CHECK(!training || x.size(0) * inner_size(x) != 1, kFwd,
              "expected more than 1 value per channel when training, got an input of size ", shape_str(x.sizes()));
  if (training && running_mean.defined()) {
    check_writable(kFwd, running_mean);
    check_writable(kFwd, running_var);
    check_disjoint(kFwd, "running_mean", running_mean, "running_var", running_var);
  }
}


// Runs the kernel; out, save_mean and save_invstd have their final sizes.
void run_forward(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& x,
                 const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                 bool training, double momentum, double eps) {
  if (x.size(0) * inner_size(x) == 0) {  // Note [Empty batches in batch norm]
    fill_(save_mean, 0.0);
    fill_(save_invstd, 0.0);
    return;
  }
  auto kernel = kernel_for<BatchNormKernel>(OpId::batchNorm, x.device().type, x.dtype());
  Tensor xc = contiguous(x), w = contig(weight), b = contig(bias);
  Tensor y = writable_buffer(out, {&x, &weight, &bias, &running_mean, &running_var});
  Tensor sm = writable_buffer(save_mean, {}), si = writable_buffer(save_invstd, {});
  bool update = training && running_mean.defined();
  Tensor rm = update ? writable_buffer(running_mean, {&x, &weight, &bias}) : contig(running_mean);
  Tensor rv = update ? writable_buffer(running_var, {&x, &weight, &bias}) : contig(running_var);
  if (update) {
    if (!rm.is_same(running_mean)) copy_(rm, running_mean);
    if (!rv.is_same(running_var)) copy_(rv, running_var);
  }
  BatchNormArgs a;
  a.n = x.size(0);
  a.c = x.size(1);
  a.l = inner_size(x);
  a.x = xc.raw_data();
  a.y = y.raw_data();
  a.weight = ptr(w);
  a.bias = ptr(b);
  a.running_mean = training && !update ? nullptr : rm.raw_data();
  a.running_var = training && !update ? nullptr : rv.raw_data();
  a.save_mean = sm.raw_data();
  a.save_invstd = si.raw_data();
  a.training = training;
  a.momentum = momentum;
  a.eps = eps;
  kernel(a);
  commit(out, y);
  commit(save_mean, sm);
  commit(save_invstd, si);
  if (update) {
    commit(running_mean, rm);
    commit(running_var, rv);
  }
}

void save_for_backward(Node& n, const Tensor& x, const Tensor& weight, const BatchNormResult& r,
                       bool training, double eps) {
  n.save(x);
  n.save(weight);
  n.save(r.save_mean);
  n.save(r.save_invstd);
  n.attrs.i[0] = training;
  n.attrs.d[0] = eps;
}

}  // namespace

BatchNormResult batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, bool training, double momentum, double eps) {
  if (autocast::active() && autocast::needs_f32(x))  // Note [Autocast]: in f32
    return batch_norm(autocast::to_f32(x), weight, bias, running_mean, running_var, training, momentum, eps);
  autograd::Recording rec(OpId::batchNorm, nullptr, {&x, &weight, &bias});
  check_forward(x, weight, bias, running_mean, running_var, training, momentum, eps);
  BatchNormResult r;
  r.output = empty(x.sizes(), x.dtype(), x.device());
  r.save_mean = empty({x.size(1)}, x.dtype(), x.device());
  r.save_invstd = empty({x.size(1)}, x.dtype(), x.device());
  run_forward(r.output, r.save_mean, r.save_invstd, x, weight, bias, running_mean, running_var, training, momentum,
              eps);
  if (auto n = rec.finish({&x, &weight, &bias}, {&r.output})) save_for_backward(*n, x, weight, r, training, eps);
  return r;
}

void batch_norm_out(const Tensor& out, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& x,
                    const Tensor& weight, const Tensor& bias, const Tensor& running_mean, const Tensor& running_var,
                    bool training, double momentum, double eps) {
  if (autocast::active() && autocast::needs_f32(x))  // Note [Autocast]: in f32
    return batch_norm_out(out, save_mean, save_invstd, autocast::to_f32(x), weight, bias, running_mean, running_var,
                          training, momentum, eps);
  autograd::Recording rec(OpId::batchNorm, &out, {&x, &weight, &bias});
  check_forward(x, weight, bias, running_mean, running_var, training, momentum, eps);
  check_result(kFwd, "output", out, x);
  check_result(kFwd, "save_mean", save_mean, x);
  check_result(kFwd, "save_invstd", save_invstd, x);
  for (const Tensor* s : {&save_mean, &save_invstd}) {
    const char* name = s == &save_mean ? "save_mean" : "save_invstd";
    check_disjoint(kFwd, name, *s, "the input", x);
    check_disjoint(kFwd, name, *s, "the output", out);
    check_disjoint(kFwd, name, *s, "running_mean", running_mean);
    check_disjoint(kFwd, name, *s, "running_var", running_var);
  }
  check_disjoint(kFwd, "save_mean", save_mean, "save_invstd", save_invstd);
  resize_(out, x.sizes());
  resize_(save_mean, {x.size(1)});
  resize_(save_invstd, {x.size(1)});
  run_forward(out, save_mean, save_invstd, x, weight, bias, running_mean, running_var, training, momentum, eps);
  if (auto n = rec.finish({&x, &weight, &bias}, {&out}))
    save_for_backward(*n, x, weight, BatchNormResult{out, clone(save_mean), clone(save_invstd)}, training, eps);
}

namespace {

void check_backward(const Tensor& grad_out, const Tensor& x, const Tensor& weight, const Tensor& save_mean,
                    const Tensor& save_invstd) {
  check_input(kBwd, "input", x);
  TOCHA_CHECK(grad_out.defined() && grad_out.sizes() == x.sizes(), kBwd, "gradOutput must have the input's size ",
              shape_str(x.sizes()), ", got ", grad_out.defined() ? describe(grad_out) : std::string("none"));
  TOCHA_CHECK(grad_out.dtype() == x.dtype(), kBwd, "gradOutput is a ", tensor_type_name(grad_out),
              " but the input is a ", tensor_type_name(x));
  check_same_device(kBwd, grad_out, x);
  check_channels(kBwd, "weight", weight, x);
  TOCHA_CHECK(save_mean.defined() && save_invstd.defined(), kBwd,
              "needs the mean and invstd saved by the forward pass (run the forward first)");
  check_channels(kBwd, "save_mean", save_mean, x);
  check_channels(kBwd, "save_invstd", save_invstd, x);
}

void run_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                  const Tensor& grad_out, const Tensor& x, const Tensor& weight, const Tensor& save_mean,
                  const Tensor& save_invstd, bool training, double scale) {
  if (x.size(0) * inner_size(x) == 0) return;  // Note [Empty batches in batch norm]: nothing to add
  auto kernel = kernel_for<BatchNormBackwardKernel>(OpId::batchNormBackward, x.device().type, x.dtype());
  Tensor g = contiguous(grad_out), xc = contiguous(x), m = contiguous(save_mean), is = contiguous(save_invstd);
  // Torch7's accUpdateGradParameters passes the weight itself as gradWeight: read a copy.
  bool weight_written = weight.defined() && ((grad_weight.defined() && weight.shares_storage(grad_weight)) ||
                                             (grad_bias.defined() && weight.shares_storage(grad_bias)));
  Tensor w = weight_written ? clone(weight) : contig(weight);
  Tensor gi, gw, gb;
  if (grad_input.defined()) gi = writable_buffer(grad_input, {&g, &xc, &w, &m, &is});
  // The parameter gradients accumulate: a copy of their values when they cannot be used directly.
  if (grad_weight.defined()) gw = grad_weight.is_contiguous() ? grad_weight : clone(grad_weight);
  if (grad_bias.defined()) gb = grad_bias.is_contiguous() ? grad_bias : clone(grad_bias);
  BatchNormBackwardArgs a;
  a.n = x.size(0);
  a.c = x.size(1);
  a.l = inner_size(x);
  a.grad_out = g.raw_data();
  a.x = xc.raw_data();
  a.weight = ptr(w);
  a.mean = m.raw_data();
  a.invstd = is.raw_data();
  a.training = training;
  a.grad_input = ptr(gi);
  a.grad_weight = ptr(gw);
  a.grad_bias = ptr(gb);
  a.scale = scale;
  kernel(a);
  if (gi.defined()) commit(grad_input, gi);
  if (gw.defined()) commit(grad_weight, gw);
  if (gb.defined()) commit(grad_bias, gb);
}

}  // namespace

NormGrads batch_norm_backward(const Tensor& grad_out, const Tensor& x, const Tensor& weight,
                                   const Tensor& save_mean, const Tensor& save_invstd, bool training,
                                   bool need_input, bool need_weight, bool need_bias) {
  autograd::Recording rec(OpId::batchNormBackward, nullptr, {});
  check_backward(grad_out, x, weight, save_mean, save_invstd);
  NormGrads r;
  if (need_input) r.grad_input = empty(x.sizes(), x.dtype(), x.device());
  if (need_weight) r.grad_weight = zeros({x.size(1)}, x.dtype(), x.device());
  if (need_bias) r.grad_bias = zeros({x.size(1)}, x.dtype(), x.device());
  run_backward(r.grad_input, r.grad_weight, r.grad_bias, grad_out, x, weight, save_mean, save_invstd, training, 1);
  rec.finish({}, {});
  return r;
}

void batch_norm_backward_out(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                             const Tensor& grad_out, const Tensor& x, const Tensor& weight, const Tensor& save_mean,
                             const Tensor& save_invstd, bool training, double scale) {
  autograd::Recording rec(OpId::batchNormBackward, grad_input.defined() ? &grad_input : nullptr, {});
  check_backward(grad_out, x, weight, save_mean, save_invstd);
  TOCHA_CHECK(std::isfinite(scale), kBwd, "scale must be finite, got ", scale);
  if (grad_input.defined()) check_result(kBwd, "gradInput", grad_input, x);
  for (const Tensor* p : {&grad_weight, &grad_bias}) {
    if (!p->defined()) continue;
    const char* name = p == &grad_weight ? "gradWeight" : "gradBias";
    check_result(kBwd, name, *p, x);
    check_channels(kBwd, name, *p, x);
    check_disjoint(kBwd, name, *p, "gradOutput", grad_out);
    check_disjoint(kBwd, name, *p, "the input", x);
    check_disjoint(kBwd, name, *p, "gradInput", grad_input);
  }
  check_disjoint(kBwd, "gradWeight", grad_weight, "gradBias", grad_bias);
  if (grad_input.defined()) resize_(grad_input, x.sizes());
  run_backward(grad_input, grad_weight, grad_bias, grad_out, x, weight, save_mean, save_invstd, training, scale);
  rec.finish({}, {});
}

}  // namespace tocha
