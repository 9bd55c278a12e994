// C ABI of autograd. See tocha_autograd.h.
#include "capi.h"
#include "core/type_name.h"
#include <algorithm>
#include <unordered_set>
#include "core/autograd/engine.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/lua_callbacks.h"
#include "core/autograd/meta.h"
#include "core/autograd/node.h"
#include "core/autograd/record.h"

using namespace tocha;
using namespace tocha::capi;

namespace {
std::vector<Tensor> tensor_list(int n, tocha_tensor** list, const char* op, bool allow_null) {
  TOCHA_CHECK(n >= 0 && (n == 0 || list), op, "invalid tensor list");
  std::vector<Tensor> v;
  for (int i = 0; i < n; ++i) v.push_back(allow_null && !list[i] ? Tensor() : arg(list[i], op));
  return v;
}
}  // namespace

int tocha_tensor_set_requires_grad(tocha_tensor* t, int flag) noexcept {
  return guard_int([&] {
    Tensor a = arg(t, "requiresGrad");
    AutogradMeta* m = autograd::meta_if(a);
    if (m && m->grad_fn) {
      TOCHA_CHECK(flag, "requiresGrad", "cannot turn off requiresGrad on a tensor computed by ", m->grad_fn->name(),
                  "; use detach()");
      return;
    }
    TOCHA_CHECK(!flag || is_floating(a.dtype()), "requiresGrad", "only floating-point tensors can require grad, got a ",
                tensor_type_name(a));
    if (!flag && !m) return;
    autograd::meta(a).requires_grad = flag != 0;
    autograd::refresh_flag(a);
  });
}

int tocha_tensor_is_leaf(const tocha_tensor* t) noexcept {
  int r = 1;
  guard_int([&] { r = autograd::is_leaf(arg(t, "isLeaf")) ? 1 : 0; });
  return r;
}

int tocha_tensor_get_grad(const tocha_tensor* t, tocha_tensor** grad) noexcept {
  return guard_int([&] {
    *grad = nullptr;
    Tensor a = arg(t, "grad");
    AutogradMeta* m = autograd::meta_if(a);
    if (!m) return;
    Tensor g = m->grad;
    if (m->grad_fn) {
      auto& r = m->grad_fn->retained;
      g = size_t(m->output_nr) < r.size() ? r[size_t(m->output_nr)] : Tensor();
    }
    if (g.defined()) *grad = g.release();
  });
}

int tocha_tensor_set_grad(tocha_tensor* t, const tocha_tensor* grad) noexcept {
  return guard_int([&] {
    Tensor a = arg(t, "grad");
    if (!grad) {
      if (AutogradMeta* m = autograd::meta_if(a)) m->grad = Tensor();
      return;
    }
    Tensor g = arg(grad, "grad");
    TOCHA_CHECK(g.sizes() == a.sizes(), "grad", "gradient of size ", shape_str(g.sizes()), " for a tensor of size ",
                shape_str(a.sizes()));
    TOCHA_CHECK(g.dtype() == a.dtype(), "grad", "gradient of type ", tensor_type_name(g), " for a ",
                tensor_type_name(a));
    TOCHA_CHECK(g.device() == a.device(), "grad", "gradient on ", g.device().str(), " for a tensor on ", a.device().str());
    autograd::meta(a).grad = g;
  });
}

const char* tocha_tensor_grad_fn(const tocha_tensor* t) noexcept {
  if (!t || t == freed_sentinel()) return nullptr;
  AutogradMeta* m = static_cast<const TensorImpl*>(t)->autograd.get();
  if (!m || !m->grad_fn) return nullptr;
  thread_local std::string name;
  name = m->grad_fn->name();
  return name.c_str();
}

tocha_tensor* tocha_tensor_detach(const tocha_tensor* t) noexcept {
  return guard_tensor([&] { return autograd::detach(arg(t, "detach")); });
}
int tocha_tensor_detach_(tocha_tensor* t) noexcept {
  return guard_int([&] { autograd::detach_(arg(t, "detach_")); });
}

int tocha_tensor_retain_grad(tocha_tensor* t) noexcept {
  return guard_int([&] {
    Tensor a = arg(t, "retainGrad");
    AutogradMeta* m = autograd::meta_if(a);
    TOCHA_CHECK(a.requires_grad(), "retainGrad", "the tensor does not require grad");
    if (!m->grad_fn) return;  // leaves keep their gradient anyway
    Node& n = *m->grad_fn;
    if (n.retain_slot.size() <= size_t(m->output_nr)) n.retain_slot.resize(size_t(m->output_nr) + 1, false);
    n.retain_slot[size_t(m->output_nr)] = true;
  });
}

uint32_t tocha_tensor_version(const tocha_tensor* t) noexcept {
  if (!t || t == freed_sentinel() || !t->storage) return 0;
  return static_cast<const TensorImpl*>(t)->storage_ref->version();
}

int tocha_tensor_add_hook(tocha_tensor* t, int64_t key) noexcept {
  return guard_int([&] {
    Tensor a = arg(t, "registerHook");
    TOCHA_CHECK(a.requires_grad(), "registerHook", "cannot register a hook on a tensor that does not require grad");
    AutogradMeta& m = autograd::meta(a);
    if (m.grad_fn) {
      Node& n = *m.grad_fn;
      if (n.pre_hooks.size() <= size_t(m.output_nr)) n.pre_hooks.resize(size_t(m.output_nr) + 1);
      n.pre_hooks[size_t(m.output_nr)].push_back(key);
    } else {
      m.hooks.push_back(key);
    }
    autograd::callbacks_live_add(1);
  });
}

int tocha_tensor_remove_hook(tocha_tensor* t, int64_t key) noexcept {
  return guard_int([&] {
    Tensor a = arg(t, "removeHook");
    AutogradMeta* m = autograd::meta_if(a);
    if (!m) return;
    int dropped = 0;
    auto drop = [&](std::vector<int64_t>& v) {
      auto it = std::remove(v.begin(), v.end(), key);
      dropped += int(v.end() - it);
      v.erase(it, v.end());
    };
    drop(m->hooks);
    if (m->grad_fn && size_t(m->output_nr) < m->grad_fn->pre_hooks.size()) drop(m->grad_fn->pre_hooks[size_t(m->output_nr)]);
    // Note [Removing a hook another node holds]: a hook added to a non-leaf belongs to the node that
    // made the tensor then; after an in-place op the tensor has another grad_fn and the key is not
    // found here. Releasing it anyway let Lua reuse the key while the old node still held it, and
    // that node's destructor released it a second time (another callback's key by then). The
    // key is released once, by whoever drops it; Lua forgets the function at once, so the old
    // node skips it (a missing hook is a no-op).
    if (dropped > 0) {
      autograd::callbacks_live_add(-dropped);
      autograd::queue_release(key);
    }
  });
}

int tocha_backward(int n, tocha_tensor** outputs, tocha_tensor** grads, int retain_graph, int create_graph) noexcept {
  return guard_int([&] {
    std::vector<Tensor> outs = tensor_list(n, outputs, "backward", false);
    std::vector<Tensor> gs = grads ? tensor_list(n, grads, "backward", true) : std::vector<Tensor>(size_t(n));
    autograd::backward(outs, gs, autograd::BackwardOptions{retain_graph != 0, create_graph != 0});
  });
}

int tocha_autograd_grad(int nout, tocha_tensor** outputs, tocha_tensor** grads, int nin, tocha_tensor** inputs,
                        int retain_graph, int create_graph, int allow_unused, tocha_tensor** results) noexcept {
  return guard_int([&] {
    std::vector<Tensor> outs = tensor_list(nout, outputs, "grad", false);
    std::vector<Tensor> gs = grads ? tensor_list(nout, grads, "grad", true) : std::vector<Tensor>(size_t(nout));
    std::vector<Tensor> ins = tensor_list(nin, inputs, "grad", false);
    std::vector<Tensor> r = autograd::grad(
        outs, gs, ins, autograd::BackwardOptions{retain_graph != 0, create_graph != 0},
        allow_unused != 0);
    for (int i = 0; i < nin; ++i) results[i] = r[size_t(i)].defined() ? r[size_t(i)].release() : nullptr;
  });
}

// Note [Leaves outside a transform]: torch.func.grad(f)(x) at the outermost level detaches its
// results unless something outside the transform needs their graph. An argument that requires
// grad shows on the arguments; a tensor f closes over (f = function(x) return torch.sum(x * w) end
// with w a parameter) shows only in the graph: this walk finds its accumulator. Nodes are visited
// once; LuaNodes (Functions, Torch7 modules) keep their input edges like any other node.
int tocha_autograd_reaches_other_leaf(int nout, tocha_tensor** outputs, int nleaves, tocha_tensor** leaves) noexcept {
  int found = 0;
  int rc = guard_int([&] {
    std::vector<Tensor> outs = tensor_list(nout, outputs, "func", false);
    std::vector<Tensor> own = tensor_list(nleaves, leaves, "func", false);
    auto is_own = [&](const Tensor& t) {
      return std::any_of(own.begin(), own.end(), [&](const Tensor& o) { return o.impl() == t.impl(); });
    };
    std::vector<Node*> stack;
    std::unordered_set<Node*> seen;
    for (const Tensor& t : outs) {
      AutogradMeta* m = autograd::meta_if(t);
      if (!m) continue;
      if (m->grad_fn) stack.push_back(m->grad_fn.get());
      else if (m->requires_grad && !is_own(t)) found = 1;
    }
    while (!stack.empty() && !found) {
      Node* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      if (auto* acc = dynamic_cast<AccumulateGrad*>(n)) {
        if (!is_own(acc->leaf)) found = 1;
        continue;
      }
      for (const Edge& e : n->next) if (e.node) stack.push_back(e.node.get());
    }
  });
  return rc != 0 ? -1 : found;
}

int tocha_set_grad_enabled(int on) noexcept {
  int prev = autograd::grad_enabled() ? 1 : 0;
  autograd::set_grad_enabled(on != 0);
  return prev;
}
int tocha_is_grad_enabled(void) noexcept { return autograd::grad_enabled() ? 1 : 0; }
void tocha_set_anomaly_enabled(int on) noexcept { autograd::set_anomaly_enabled(on != 0); }
int tocha_is_anomaly_enabled(void) noexcept { return autograd::anomaly_enabled() ? 1 : 0; }

tocha_tensor* tocha_autograd_saved_output(const tocha_tensor* data, int slot) noexcept {
  return guard_tensor([&] { return autograd::saved_output_alias(arg(data, "savedTensors"), slot); });
}

int tocha_autograd_set_callbacks(tocha_lua_node_fn node, tocha_lua_hook_fn hook, tocha_lua_trace_fn trace) noexcept {
  return autograd::set_lua_callbacks(node, hook, trace);
}
int tocha_autograd_set_saved_callbacks(int owner, tocha_lua_pack_fn pack, tocha_lua_unpack_fn unpack) noexcept {
  return autograd::set_lua_saved_callbacks(owner, pack, unpack);
}
int64_t tocha_autograd_set_saved_hooks(int64_t hooks) noexcept { return autograd::set_saved_tensors_hooks(hooks); }
void tocha_autograd_clear_callbacks(int owner) noexcept { autograd::clear_lua_callbacks(owner); }
void tocha_autograd_set_current_owner(int owner) noexcept { autograd::set_current_owner(owner); }
void tocha_autograd_set_callback_error(const char* msg) noexcept {
  autograd::set_callback_error(msg ? msg : "");
}

int tocha_autograd_record_lua(int64_t key, const char* label, int nin, tocha_tensor** inputs, int nout,
                              tocha_tensor** outputs) noexcept {
  return guard_int([&] {
    std::vector<Tensor> ins = tensor_list(nin, inputs, "Function", false);
    std::vector<Tensor> outs = tensor_list(nout, outputs, "Function", false);
    auto node = std::make_shared<LuaNode>(key, label ? label : "LuaFunction");
    autograd::connect(node, ins, outs);
  });
}

// Note [Dirty inputs]: a Function's forward that writes into an input and returns it (marked with
// ctx:markDirty) makes that tensor an output of the Lua node, so its history moves to the node
// while the node's input edge keeps the old history (connect reads inputs before it sets
// outputs), as PyTorch's mark_dirty. A leaf that requires grad cannot change in place under
// recording (PyTorch refuses the same), and a view cannot either: the tensor it views would keep
// a stale history (the engine refuses such writes, Note [In-place writes into buffers]).
int tocha_autograd_check_dirty(const tocha_tensor* t, const char* label) noexcept {
  return guard_int([&] {
    const char* op = label ? label : "Function";
    Tensor x = arg(t, op);
    AutogradMeta* m = autograd::meta_if(x);
    TOCHA_CHECK(!(m && m->requires_grad && !m->grad_fn), op,
                "a leaf tensor that requires grad (of size ", shape_str(x.sizes()),
                ") was modified in place by forward (marked dirty); modify a clone, or run under torch.noGrad");
    TOCHA_CHECK(!x.impl()->is_view, op, "a view (of size ", shape_str(x.sizes()),
                ") was modified in place by forward (marked dirty): autograd cannot follow the write into "
                "the viewed tensor; pass a contiguous clone");
  });
}

int tocha_autograd_drain_released(int owner, int64_t* keys, int max) noexcept {
  return autograd::drain_released(owner, keys, max);
}
int tocha_autograd_callbacks_live(void) noexcept { return autograd::callbacks_live(); }
