// Front-ends of the fused optimizer updates (see optim.h): option checks, operand checks, staging
// of operands the kernels cannot read directly, and dispatch to the (op, device, dtype) kernel.
#include "core/ops/optim.h"
#include "core/type_name.h"
#include <cmath>
#include <cstring>
#include <utility>
#include "core/autograd/grad_mode.h"
#include "core/autograd/meta.h"
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/optim_batch.h"
#include "core/ops/optim_kernels.h"
#include "core/ops/pointwise.h"

namespace tocha {

namespace {

struct Operand {
  const Tensor* t;  // null: an absent optional operand
  const char* name;
  bool written;
};

// Bytes [begin, end) a tensor's elements span in its storage.
void span_of(const Tensor& t, int64_t* begin, int64_t* end) {
  int64_t lo = t.storage_offset(), hi = t.storage_offset();
  for (int d = 0; d < t.dim(); ++d) {
    int64_t ext = (t.size(d) - 1) * t.stride(d);
    if (ext < 0) lo += ext; else hi += ext;
  }
  *begin = lo * int64_t(t.elsize());
  *end = (hi + 1) * int64_t(t.elsize());
}

bool same_geometry(const Tensor& a, const Tensor& b) {
  return a.raw_data() == b.raw_data() && a.dtype() == b.dtype() && a.sizes() == b.sizes() &&
         a.strides() == b.strides();
}

// Operands that overlap in memory would make the result depend on the order of the loop: a
// written operand may only alias another operand exactly (the gradient passed as the parameter
// reads each element before writing it), and never another written one.
void check_overlap(const char* op, const Operand* ops, int n) {
  for (int i = 0; i < n; ++i) {
    if (!ops[i].t || ops[i].t->numel() == 0) continue;
    for (int j = i + 1; j < n; ++j) {
      if (!ops[j].t || ops[j].t->numel() == 0) continue;
      if (!ops[i].written && !ops[j].written) continue;
      const Tensor &a = *ops[i].t, &b = *ops[j].t;
      if (!a.shares_storage(b)) continue;
      int64_t ab, ae, bb, be;
      span_of(a, &ab, &ae);
      span_of(b, &bb, &be);
      if (ae <= bb || be <= ab) continue;
      TOCHA_CHECK(!(ops[i].written && ops[j].written), op, ops[i].name, " and ", ops[j].name,
                  " share memory; each state tensor needs its own storage");
      TOCHA_CHECK(same_geometry(a, b), op, ops[i].name, " and ", ops[j].name, " overlap partially in memory");
    }
  }
}

void check_operands(const char* op, const Operand* ops, int n) {
  const Tensor& param = *ops[0].t;
  for (int i = 0; i < n; ++i) {
    if (!ops[i].t) continue;
    const Tensor& t = *ops[i].t;
    TOCHA_CHECK(t.defined(), op, ops[i].name, " is undefined");
    TOCHA_CHECK(is_floating(t.dtype()), op, ops[i].name, " must be a floating-point tensor, got a ",
                tensor_type_name(t));
    TOCHA_CHECK(t.device() == param.device(), op, ops[i].name, " is on ", t.device().str(), " but param is on ",
                param.device().str());
    TOCHA_CHECK(t.numel() == param.numel(), op, ops[i].name, " has ", t.numel(), " elements but param has ",
                param.numel());
    if (ops[i].written) {
      check_writable(op, t);
      // A tensor with history is a value inside a graph, not a parameter: updating it in place
      // unrecorded would silently corrupt that graph's gradients.
      TOCHA_CHECK(autograd::is_leaf(t), op, ops[i].name, " has autograd history; optimizers update leaf tensors "
                  "(parameters) only");
    }
  }
  check_overlap(op, ops, n);
}

// Inside a batch (Note [Multi-tensor optimizer steps], optim_batch.cpp), queues the update of a
// CUDA parameter whose operands all take the direct path, keeping them alive until the launch.
template <class C>
bool try_queue(OpId op, DType compute, const Operand* ops, int n, const Tensor* staged, const OptimSpan& span,
               const C& consts) {
  static_assert(sizeof(C) <= sizeof(detail::QueuedStep::consts), "optimizer constants too large to queue");
  const Tensor& param = *ops[0].t;
  if (!detail::optim_batch_active() || param.device().type != DeviceType::cuda) return false;
  for (int i = 0; i < n; ++i)
    if (staged[i].defined()) return false;
  void* list_kernel = find_optim_list_kernel(op, compute);
  if (!list_kernel) return false;
  detail::QueuedStep q;
  q.op = op;
  q.dtype = compute;
  q.device = param.device().index;
  q.span = span;
  q.bytes = size_t(span.n) * dtype_size(compute);
  std::memcpy(q.consts, &consts, sizeof(C));
  for (int i = 0; i < n; ++i) {
    if (ops[i].t) q.keep[i] = *ops[i].t;
    q.written[i] = ops[i].t && ops[i].written;
  }
  q.list_kernel = list_kernel;
  q.launch = &detail::launch_queued<C>;
  detail::optim_batch_push(std::move(q));
  for (int i = 0; i < n; ++i)
    if (ops[i].t && ops[i].written) ops[i].t->bump_version();
  return true;
}

// Note [Optimizer operands]: kernels read contiguous f32 or f64 memory (the compute dtype: f64
// for f64 parameters, f32 otherwise, so f16/bf16 parameters compute through float). Operands
// that are strided or of another dtype are copied into contiguous temporaries, updated there
// and copied back; parameters from getParameters() or nn modules take the direct path.
template <class C>
void run(OpId op, const Operand* ops, int n, const C& consts) {
  const char* name = op_name(op);
  check_operands(name, ops, n);
  const Tensor& param = *ops[0].t;
  DType compute = param.dtype() == DType::f64 ? DType::f64 : DType::f32;
  auto kernel = kernel_for<OptimKernel<C>>(op, param.device().type, compute);
  if (param.numel() == 0) return;
  autograd::GradModeGuard no_grad(false);
  OptimSpan span;
  span.n = param.numel();
  Tensor staged[kMaxOptimOperands];
  for (int i = 0; i < n; ++i) {
    if (!ops[i].t) continue;
    const Tensor& t = *ops[i].t;
    if (t.dtype() == compute && t.is_contiguous()) {
      span.data[i] = t.raw_data();
    } else {
      // An update that is staged is not queued: the updates queued before it are launched first,
      // before its staging copies read (Note [Multi-tensor optimizer steps]).
      optim_batch_flush();
      staged[i] = contiguous(to_dtype(t, compute));  // a new tensor: t itself takes the direct path
      span.data[i] = staged[i].raw_data();
    }
  }
  if (try_queue(op, compute, ops, n, staged, span, consts)) return;
  optim_batch_flush();  // queued ones first, as above (a CPU update needs none)
  kernel(span, consts);
  for (int i = 0; i < n; ++i) {
    if (!ops[i].t || !ops[i].written) continue;
    if (staged[i].defined()) copy_(*ops[i].t, staged[i]);
    else ops[i].t->bump_version();
  }
}

void check_option(bool ok, const char* op, const char* what, double v) {
  TOCHA_CHECK(ok, op, "invalid ", what, ": ", v);
}
void nonneg(const char* op, const char* what, double v) { check_option(std::isfinite(v) && v >= 0, op, what, v); }
void finite(const char* op, const char* what, double v) { check_option(std::isfinite(v), op, what, v); }
void unit(const char* op, const char* what, double v) { check_option(v >= 0 && v < 1, op, what, v); }

}  // namespace

void sgd_step(const Tensor& param, const Tensor& grad, const Tensor* momentum_buf, const Tensor* learning_rates,
              const Tensor* weight_decays, const SgdOptions& o) {
  const char* op = "sgdStep";
  nonneg(op, "learning rate", o.lr);
  nonneg(op, "momentum", o.momentum);
  finite(op, "dampening", o.dampening);
  nonneg(op, "weight decay", o.weight_decay);
  TOCHA_CHECK(o.momentum == 0 || momentum_buf, op, "momentum ", o.momentum, " needs a momentum buffer");
  TOCHA_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), op,
              "Nesterov momentum needs a momentum > 0 and zero dampening");
  Operand ops[] = {{&param, "param", true},
                   {&grad, "grad", false},
                   {o.momentum != 0 ? momentum_buf : nullptr, "momentum buffer", true},
                   {learning_rates, "learning rates", false},
                   {weight_decays, "weight decays", false}};
  run(OpId::sgdStep, ops, 5, SgdConsts{o.lr, o.momentum, o.dampening, o.weight_decay, o.nesterov, o.first_step});
}

// Note [Adam epsilon]: Torch7's optim.adam divides by sqrt(v) + eps and folds both bias
// corrections into the step (lr*sqrt(1-b2^t)/(1-b1^t)); PyTorch divides by sqrt(v/(1-b2^t)) + eps
// with step lr/(1-b1^t). They differ only where sqrt(v) is comparable to eps. Tocha uses Torch7's
// placement in both of its APIs (eps_mode 0), so optim.adam and optim.Adam follow one trajectory;
// eps_mode 1 (optim.Adam's epsMode='pytorch') reproduces PyTorch.
void adam_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const Tensor* max_exp_avg_sq, const AdamOptions& o) {
  const char* op = "adamStep";
  nonneg(op, "learning rate", o.lr);
  unit(op, "beta1", o.beta1);
  unit(op, "beta2", o.beta2);
  nonneg(op, "epsilon", o.eps);
  nonneg(op, "weight decay", o.weight_decay);
  TOCHA_CHECK(o.step >= 1, op, "step count must be at least 1, got ", o.step);
  TOCHA_CHECK(o.eps_mode == 0 || o.eps_mode == 1, op, "eps_mode must be 0 (Torch7) or 1 (PyTorch), got ", o.eps_mode);
  double bc1 = 1 - std::pow(o.beta1, double(o.step)), bc2 = 1 - std::pow(o.beta2, double(o.step));
  AdamConsts c{};
  c.beta1 = o.beta1;
  c.beta2 = o.beta2;
  c.eps = o.eps;
  if (o.eps_mode == 0) {
    c.step_size = o.lr * std::sqrt(bc2) / bc1;
    c.denom_scale = 1;
  } else {
    c.step_size = o.lr / bc1;
    c.denom_scale = 1 / std::sqrt(bc2);
  }
  c.weight_decay = o.decoupled ? 0 : o.weight_decay;
  c.decay = o.decoupled ? 1 - o.lr * o.weight_decay : 1;
  Operand ops[] = {{&param, "param", true},
                   {&grad, "grad", false},
                   {&exp_avg, "exp_avg", true},
                   {&exp_avg_sq, "exp_avg_sq", true},
                   {max_exp_avg_sq, "max_exp_avg_sq", true}};
  run(OpId::adamStep, ops, 5, c);
}

void adamax_step(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_inf,
                 const AdamaxOptions& o) {
  const char* op = "adamaxStep";
  nonneg(op, "learning rate", o.lr);
  unit(op, "beta1", o.beta1);
  unit(op, "beta2", o.beta2);
  nonneg(op, "epsilon", o.eps);
  nonneg(op, "weight decay", o.weight_decay);
  TOCHA_CHECK(o.step >= 1, op, "step count must be at least 1, got ", o.step);
  AdamaxConsts c{o.lr / (1 - std::pow(o.beta1, double(o.step))), o.beta1, o.beta2, o.eps, o.weight_decay};
  Operand ops[] = {{&param, "param", true}, {&grad, "grad", false}, {&exp_avg, "exp_avg", true},
                   {&exp_inf, "exp_inf", true}};
  run(OpId::adamaxStep, ops, 4, c);
}

void rmsprop_step(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor* grad_avg,
                  const Tensor* momentum_buf, const RmspropOptions& o) {
  const char* op = "rmspropStep";
  nonneg(op, "learning rate", o.lr);
  check_option(o.alpha >= 0 && o.alpha <= 1, op, "alpha", o.alpha);
  nonneg(op, "epsilon", o.eps);
  nonneg(op, "weight decay", o.weight_decay);
  nonneg(op, "momentum", o.momentum);
  TOCHA_CHECK(o.momentum == 0 || momentum_buf, op, "momentum ", o.momentum, " needs a momentum buffer");
  Operand ops[] = {{&param, "param", true},
                   {&grad, "grad", false},
                   {&square_avg, "square_avg", true},
                   {grad_avg, "grad_avg", true},
                   {o.momentum != 0 ? momentum_buf : nullptr, "momentum buffer", true}};
  run(OpId::rmspropStep, ops, 5, RmspropConsts{o.lr, o.alpha, o.eps, o.weight_decay, o.momentum});
}

void adagrad_step(const Tensor& param, const Tensor& grad, const Tensor& sum, const AdagradOptions& o) {
  const char* op = "adagradStep";
  nonneg(op, "learning rate", o.lr);
  nonneg(op, "epsilon", o.eps);
  nonneg(op, "weight decay", o.weight_decay);
  Operand ops[] = {{&param, "param", true}, {&grad, "grad", false}, {&sum, "sum", true}};
  run(OpId::adagradStep, ops, 3, AdagradConsts{o.lr, o.eps, o.weight_decay});
}

void adadelta_step(const Tensor& param, const Tensor& grad, const Tensor& square_avg, const Tensor& acc_delta,
                   const AdadeltaOptions& o) {
  const char* op = "adadeltaStep";
  nonneg(op, "learning rate", o.lr);
  check_option(o.rho >= 0 && o.rho <= 1, op, "rho", o.rho);
  nonneg(op, "epsilon", o.eps);
  nonneg(op, "weight decay", o.weight_decay);
  Operand ops[] = {{&param, "param", true}, {&grad, "grad", false}, {&square_avg, "square_avg", true},
                   {&acc_delta, "acc_delta", true}};
  run(OpId::adadeltaStep, ops, 4, AdadeltaConsts{o.lr, o.rho, o.eps, o.weight_decay});
}

void rprop_step(const Tensor& param, const Tensor& grad, const Tensor& prev, const Tensor& step_size,
                const RpropOptions& o) {
  const char* op = "rpropStep";
  check_option(std::isfinite(o.etaplus) && o.etaplus >= 1, op, "etaplus (must be >= 1)", o.etaplus);
  check_option(o.etaminus > 0 && o.etaminus <= 1, op, "etaminus (must be in (0, 1])", o.etaminus);
  nonneg(op, "minimum step size", o.step_min);
  check_option(o.step_max >= o.step_min && !std::isnan(o.step_max), op, "maximum step size", o.step_max);
  Operand ops[] = {{&param, "param", true}, {&grad, "grad", false}, {&prev, "prev", true},
                   {&step_size, "step sizes", true}};
  run(OpId::rpropStep, ops, 4, RpropConsts{o.etaplus, o.etaminus, o.step_min, o.step_max});
}

}  // namespace tocha
