// Front-ends of the fused class losses (see loss.h): checks naming the op and what it received,
// the kernel call, and the autograd node (formulas in core/autograd/formulas/loss.cpp).
//
// Note [Fused class losses]: ClassNLLCriterion and CrossEntropyCriterion are on the hot path of
// every classifier. As chains of small ops (logSoftmax, gather, where, dot, sum...) they cost a
// dozen allocations and calls per step; fused, the loss is one pass over the scores and the
// gradient another. The first-order gradient uses the same kernel; under createGraph the formula
// rebuilds it from recorded ops (softmax, onehot) so it can be differentiated again.
#include "core/ops/loss.h"
#include "core/type_name.h"
#include "core/autocast.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

struct Prepared {
  Tensor input;   // contiguous N x C (a vector becomes one row)
  Tensor target;  // contiguous i64, N elements
  Tensor weight;  // contiguous, or undefined
  const ClassLossKernels* kernels = nullptr;
  ClassLossArgs args;
};

Prepared prepare(OpId id, const Tensor& input, const Tensor& target, const ClassLossOptions& o) {
  const char* op = op_name(id);
  TOCHA_CHECK(is_floating(input.dtype()), op, "expected floating-point scores, got a ",
              tensor_type_name(input));
  TOCHA_CHECK(input.dim() == 1 || input.dim() == 2, op,
              "expected a vector of class scores or a batch of them (N x C), got size ", shape_str(input.sizes()));
  const int64_t n = input.dim() == 2 ? input.size(0) : 1, c = input.size(input.dim() - 1);
  TOCHA_CHECK(c > 0, op, "expected at least one class, got size ", shape_str(input.sizes()));
  TOCHA_CHECK(is_integral(target.dtype(), false), op,
              "targets must be integer class numbers (a LongTensor), got a ", tensor_type_name(target));
  TOCHA_CHECK(target.numel() == n, op, target.numel(), " targets for a batch of ", n, " (target size ",
              shape_str(target.sizes()), ", input size ", shape_str(input.sizes()), ")");
  check_same_device(op, input, target);
  if (o.weight.defined()) {
    TOCHA_CHECK(o.weight.dim() == 1 && o.weight.numel() == c, op, "weights must be a vector of ", c,
                " elements (one per class), got size ", shape_str(o.weight.sizes()));
    TOCHA_CHECK(o.weight.dtype() == input.dtype(), op, "weights are a ", tensor_type_name(o.weight),
                " but the input is a ", tensor_type_name(input));
    check_same_device(op, input, o.weight);
  }
  Prepared p;
  p.kernels = kernel_for<const ClassLossKernels*>(id, input.device().type, input.dtype());
  p.input = contiguous(input);
  p.target = contiguous(to_dtype(target, DType::i64));
  if (o.weight.defined()) p.weight = contiguous(o.weight);
  // Device targets are checked by the kernels, not through a copy to the host that would wait for
  // the GPU (Note [Deferred device errors], kernels/cuda/device_errors.h).
  if (p.target.is_cpu()) {
    const int64_t* ht = p.target.data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      if (ht[i] == o.ignore_index) continue;
      TOCHA_CHECK(ht[i] >= o.index_base && ht[i] < c + o.index_base, op, "target ", ht[i], " (sample ",
                  i + o.index_base, ") is out of range: classes are ", o.index_base, "..", c - 1 + o.index_base);
    }
  }
  const int64_t* t = p.target.data<int64_t>();
  ClassLossArgs& a = p.args;
  a.n = n;
  a.c = c;
  a.input = p.input.raw_data();
  a.target = t;
  a.weight = p.weight.defined() ? p.weight.raw_data() : nullptr;
  a.ignore_index = o.ignore_index;
  a.base = o.index_base;
  a.size_average = o.size_average;
  return p;
}

Tensor class_loss(OpId id, const Tensor& input, const Tensor& target, const ClassLossOptions& o) {
  autograd::Recording rec(id, nullptr, {&input});
  Prepared p = prepare(id, input, target, o);
  Tensor r;
  if (input.is_cpu()) {
    double sums[2] = {0, 0};
    p.args.sums = sums;
    p.kernels->forward(p.args);
    double loss = o.size_average && sums[1] != 0 ? sums[0] / sums[1] : sums[0];
    r = full(DimVec{}, loss, input.dtype(), input.device());
  } else {
    r = empty(DimVec{}, p.input.dtype(), input.device());
    p.args.result = r.raw_data();
    p.kernels->forward(p.args);
  }
  if (auto n = rec.finish({&input}, {&r})) {
    n->save(input);
    n->save(p.target);
    n->save(o.weight);
    n->attrs.i[0] = o.size_average ? 1 : 0;
    n->attrs.i[1] = o.ignore_index;
    n->attrs.i[2] = o.index_base;
  }
  return r;
}

// Into *out when given (resized to the input's size; Torch7's criterions keep their gradInput,
// so a training step allocates nothing here), else into a new tensor.
Tensor class_loss_backward(OpId id, double grad, const Tensor& input, const Tensor& target,
                           const ClassLossOptions& o, const Tensor* out = nullptr) {
  const char* op = op_name(id);
  Prepared p = prepare(id, input, target, o);
  if (out) {
    TOCHA_CHECK(out->dtype() == input.dtype() && out->device() == input.device(), op, "gradient tensor is a ",
                dtype_tensor_name(out->dtype()), " on ", out->device().str(), " but the input is a ",
                tensor_type_name(input), " on ", input.device().str());
    resize_(*out, input.sizes());
  }
  const bool direct = out && out->is_contiguous() && !out->shares_storage(p.input) &&
                      !out->shares_storage(p.target) && !(p.weight.defined() && out->shares_storage(p.weight));
  Tensor g = direct ? *out : empty(input.sizes(), input.dtype(), input.device());
  p.args.grad_input = g.raw_data();
  p.args.scale = grad;
  p.kernels->backward(p.args);
  if (!out) return g;
  if (direct) out->bump_version();
  else copy_(*out, g);
  return *out;
}

}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const ClassLossOptions& opts) {
  if (autocast::active() && autocast::needs_f32(input))  // Note [Autocast]: in f32
    return nll_loss(autocast::to_f32(input), target, opts);
  return class_loss(OpId::nllLoss, input, target, opts);
}
Tensor cross_entropy(const Tensor& input, const Tensor& target, const ClassLossOptions& opts) {
  if (autocast::active() && autocast::needs_f32(input))  // Note [Autocast]: in f32
    return cross_entropy(autocast::to_f32(input), target, opts);
  return class_loss(OpId::crossEntropy, input, target, opts);
}
Tensor nll_loss_backward(double grad, const Tensor& input, const Tensor& target, const ClassLossOptions& opts) {
  return class_loss_backward(OpId::nllLoss, grad, input, target, opts);
}
Tensor cross_entropy_backward(double grad, const Tensor& input, const Tensor& target, const ClassLossOptions& opts) {
  return class_loss_backward(OpId::crossEntropy, grad, input, target, opts);
}
void class_loss_backward_out(const Tensor& out, bool cross_entropy, double grad, const Tensor& input,
                             const Tensor& target, const ClassLossOptions& opts) {
  class_loss_backward(cross_entropy ? OpId::crossEntropy : OpId::nllLoss, grad, input, target, opts, &out);
}

}  // namespace tocha
