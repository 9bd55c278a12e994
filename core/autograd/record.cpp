// Recording ops on the tape. See record.h.
#include "core/autograd/record.h"
#include <exception>
#include "core/autograd/grad_mode.h"
#include "core/autograd/lua_callbacks.h"
#include "core/autograd/meta.h"
#include "core/ops/pointwise.h"

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
    acc = make_accumulator(t);
    m->accumulator = acc;
  }
  return Edge{acc, 0};
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& node, int nr) {
  AutogradMeta& m = meta(t);
  // Note [retainGrad across in-place ops]: the flag lives on the node that made the tensor; an
  // in-place op gives the tensor a new node, so the flag moves there (y:retainGrad(); y:mul(3)
  // then reports the gradient of the final y, as PyTorch 1.13; it was lost).
  Node* old = m.grad_fn.get();
  bool retain = old && old != node.get() && size_t(m.output_nr) < old->retain_slot.size() &&
                old->retain_slot[size_t(m.output_nr)];
  if (retain) old->retain_slot[size_t(m.output_nr)] = false;
  m.grad_fn = node;
  m.output_nr = nr;
  if (retain && node) {
    if (node->retain_slot.size() <= size_t(nr)) node->retain_slot.resize(size_t(nr) + 1, false);
    node->retain_slot[size_t(nr)] = true;
  }
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
    // Note [Integer outputs carry no history]: an integer output (indices returned beside values,
    // by a Lua Function or a Torch7 module's node) cannot have a gradient, so it gets no history,
    // as in PyTorch; with it, it reported needsGrad and torch.load refused the saved flag.
    if (is_floating(o->dtype())) set_history(*o, node, nr);
    ++nr;
  }
  if (anomaly_enabled()) node->forward_trace = lua_forward_trace();
}

std::shared_ptr<Node> record(OpId op, TensorList inputs, TensorList outputs) {
  auto node = make_node(op);
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
// An in-place op on a tensor with history is recorded as that tensor's new history.
//
// Note [In-place writes into buffers]: Torch7 code keeps preallocated buffers and fills parts
// of them (outputs[t]:copy(module.output), jac:select(2, j):copy(...)). When the written
// tensor is a view of a tensor that does not require grad, the write is allowed and NOT
// recorded: the buffer stays a plain buffer, and does not drag the history of every value
// ever written into it (which would grow without bound across iterations). To build a
// differentiable tensor from pieces, use torch.cat/stack or out-of-place index ops. A whole
// (non-view) plain tensor written in place is recorded as in PyTorch (buf:copy(x) makes buf
// carry x's history). Autograd cannot follow a write through a view into a base that has
// history of its own: Note [In-place ops on views of tensors with history].
//
// Note [In-place ops on views of tensors with history]: PyTorch rebases the viewed tensor's history
// onto the write (CopySlices); Tocha's views do not know their base tensor, so the write is
// recorded as the view's new history and the node that computed the base (the first non-view node
// up the view's history) is marked: a backward that reaches it raises, naming the op, instead of
// ignoring the write. Code that modifies a view of a module output and never calls backward
// (char-rnn's sample.lua: prediction:squeeze():div(temperature)) runs as in Torch7; refusing the
// write itself stopped it.

// Whether op's result shares its input's memory.
static bool is_view_op(OpId op) {
  switch (op) {
    case OpId::narrow: case OpId::select: case OpId::transpose: case OpId::permute:
    case OpId::view: case OpId::expand: case OpId::unfold: case OpId::asStrided: return true;
    default: return false;
  }
}
// Whether t is (a chain of views of) a leaf that requires grad: its history is only view ops
// ending at the leaf's accumulator.
static bool view_of_leaf(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  if (!m || !m->grad_fn) return false;
  const Node* n = m->grad_fn.get();
  for (;;) {
    if (!is_view_op(n->op)) return false;
    if (n->next.empty() || !n->next[0].valid()) return false;
    const Node* up = n->next[0].node.get();
    if (dynamic_cast<const AccumulateGrad*>(up)) return true;
    n = up;
  }
}

// Marks the node that computed the tensor t views (Note [In-place ops on views of tensors with
// history]): the first node up t's history that is not a view op.
static void mark_viewed_node(const char* op, const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  Node* n = m ? m->grad_fn.get() : nullptr;
  while (n && is_view_op(n->op) && !n->next.empty() && n->next[0].valid()) n = n->next[0].node.get();
  if (n && n->modified_through_view.empty())
    n->modified_through_view = str_cat(op, " on a view of size ", shape_str(t.sizes()));
}

bool prepare_in_place(const char* op, const Tensor& t, const Tensor* const* begin, const Tensor* const* end) {
  if (!grad_enabled()) return false;
  AutogradMeta* m = meta_if(t);
  bool t_is_leaf_param = m && m->requires_grad && !m->grad_fn;
  if (t_is_leaf_param) return false;
  bool t_requires = t.requires_grad();
  bool any = t_requires;
  for (const Tensor* const* p = begin; p != end; ++p)
    if (*p && (*p)->defined() && (*p)->requires_grad()) any = true;
  if (!any) return false;
  if (!t.impl()->is_view) return true;
  if (!t_requires) return false;  // plain buffer written through a view
  if (view_of_leaf(t)) return false;  // a slice of a parameter updated in place
  mark_viewed_node(op, t);
  return true;
}

}  // namespace autograd
}  // namespace tocha

namespace tocha {
namespace autograd {

FillGuard::FillGuard(const char* op, const Tensor& t)
    : t_(t), had_history_(prepare_in_place(op, t, {})), exceptions_(std::uncaught_exceptions()) {}
FillGuard::~FillGuard() {
  if (had_history_ && std::uncaught_exceptions() == exceptions_) detach_(t_);
}

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

Tensor value_before_write(const Tensor& t, const Tensor* written, const Tensor* also_written) {
  if (!t.defined()) return t;
  for (const Tensor* w : {written, also_written})
    if (w && w->defined() && w->shares_storage(t)) return clone(t);
  return t;
}

Recording::Recording(OpId op, const Tensor* out, TensorList inputs)
    : op_(op), out_(out), prev_mode_(grad_enabled()) {
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
