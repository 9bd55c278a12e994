// Recording ops on the tape. See record.h.
#include "core/autograd/record.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/lua_callbacks.h"
#include "core/autograd/meta.h"

namespace tocha {
namespace autograd {

}  // namespace autograd

AutogradMeta::~AutogradMeta() {
  for (int64_t key : hooks) {
    autograd::queue_release(key);
    autograd::callbacks_live_add(-1);
  }
}

namespace autograd {

AutogradMeta& meta(const Tensor& t) {
  TensorImpl* impl = t.impl();
  if (!impl->autograd) impl->autograd = std::make_unique<AutogradMeta>();
  return *impl->autograd;
}

void refresh_flag(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  bool on = m && (m->requires_grad || m->grad_fn);
  if (on) t.impl()->flags |= TOCHA_FLAG_REQUIRES_GRAD;
  else t.impl()->flags &= ~TOCHA_FLAG_REQUIRES_GRAD;
}

bool needs_record(const Tensor* const* begin, const Tensor* const* end) {
  if (!grad_enabled()) return false;
  for (const Tensor* const* p = begin; p != end; ++p)
    if (*p && (*p)->defined() && (*p)->requires_grad()) return true;
  return false;
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  if (!m) return Edge{};
  if (m->grad_fn) return Edge{m->grad_fn, m->output_nr};
  if (!m->requires_grad) return Edge{};
  std::shared_ptr<Node> acc = m->accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m->accumulator = acc;
  }
  return Edge{acc, 0};
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& node, int nr) {
  AutogradMeta& m = meta(t);
  m.grad_fn = node;
  m.output_nr = nr;
  m.requires_grad = false;
  refresh_flag(t);
}

static void add_input(Node& n, const Tensor& t) {
  n.next.push_back(t.defined() && t.requires_grad() ? gradient_edge(t) : Edge{});
  if (t.defined()) n.inputs.push_back(InputMeta{t.sizes(), t.dtype(), t.device()});
  else n.inputs.push_back(InputMeta{});
}

static void add_outputs(const std::shared_ptr<Node>& node, TensorList outs) {
  node->outputs.clear();
  node->outputs.reserve(outs.size());
  int nr = 0;
  for (const Tensor* o : outs) {
    node->outputs.push_back(InputMeta{o->sizes(), o->dtype(), o->device()});
    set_history(*o, node, nr++);
  }
  if (anomaly_enabled()) node->forward_trace = lua_forward_trace();
}

std::shared_ptr<Node> record(OpId op, TensorList inputs, TensorList outputs) {
  auto node = std::make_shared<Node>(op);
  node->next.reserve(inputs.size());
  node->inputs.reserve(inputs.size());
  for (const Tensor* t : inputs) add_input(*node, *t);
  add_outputs(node, outputs);
  return node;
}

void connect(const std::shared_ptr<Node>& node, const std::vector<Tensor>& inputs,
             const std::vector<Tensor>& outputs) {
  for (const Tensor& t : inputs) add_input(*node, t);
  std::vector<const Tensor*> outs;
  for (const Tensor& t : outputs) outs.push_back(&t);
  add_outputs(node, TensorList(outs));
}

// Note [In-place updates of leaves]: Torch7 scripts and optim update parameters in place
// (p:add(-lr, g)). Such updates of leaves are allowed and never recorded; if a pending graph
// saved the old value, the version counter makes its backward fail with a clear message.
// An in-place op on a tensor with history is recorded as that tensor's new history. Views are
// the exception autograd cannot follow (their base would not see the new history), so an
// in-place op on a view that would need recording is refused.
bool prepare_in_place(const char* op, const Tensor& t, const Tensor* const* begin, const Tensor* const* end) {
  if (!grad_enabled()) return false;
  AutogradMeta* m = meta_if(t);
  bool t_is_leaf_param = m && m->requires_grad && !m->grad_fn;
  if (t_is_leaf_param) return false;
  bool any = t.requires_grad();
  for (const Tensor* const* p = begin; p != end; ++p)
    if (*p && (*p)->defined() && (*p)->requires_grad()) any = true;
  if (!any) return false;
  TOCHA_CHECK(!t.impl()->is_view, op, "in-place operation on a view (of size ", shape_str(t.sizes()),
              ") with inputs that require grad: autograd cannot follow it into the viewed tensor; "
              "use an out-of-place operation (or clone() the view first)");
  return true;
}

}  // namespace autograd
}  // namespace tocha

namespace tocha {
namespace autograd {

void detach_(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  if (!m) return;
  m->grad_fn.reset();
  m->output_nr = 0;
  m->requires_grad = false;
  refresh_flag(t);
}

Tensor detach(const Tensor& t) {
  Tensor r = make_view(t.storage(), t.dtype(), t.sizes(), t.strides(), t.storage_offset());
  return r;
}

}  // namespace autograd
}  // namespace tocha

namespace tocha {
namespace autograd {

Recording::Recording(OpId op, const Tensor* out, TensorList inputs)
    : op_(op), prev_mode_(grad_enabled()) {
  if (op_differentiable(op)) {
    on_ = out ? prepare_in_place(op_name(op), *out, inputs.begin(), inputs.end())
              : needs_record(inputs.begin(), inputs.end());
  } else if (out && prepare_in_place(op_name(op), *out, {})) {
    detach_out_ = out;
  }
  set_grad_enabled(false);
}

Recording::~Recording() {
  if (!restored_) set_grad_enabled(prev_mode_);
}

std::shared_ptr<Node> Recording::finish(TensorList inputs, TensorList outputs) {
  set_grad_enabled(prev_mode_);
  restored_ = true;
  if (detach_out_) detach_(*detach_out_);
  if (!on_) return nullptr;
  return record(op_, inputs, outputs);
}

}  // namespace autograd
}  // namespace tocha
