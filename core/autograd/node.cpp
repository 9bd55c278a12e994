// Node bookkeeping: saving and unpacking tensors with version checks, the vjp dispatch, and the
// leaf accumulator.
#include "core/autograd/node.h"
#include "core/type_name.h"
#include <atomic>
#include "core/autograd/grad_mode.h"
#include "core/autograd/meta.h"
#include "core/autograd/lua_callbacks.h"
#include "core/autograd/record.h"
#include "core/autograd/vjp.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/pool_allocator.h"

namespace tocha {

namespace {
std::atomic<uint64_t> g_sequence{0};
}

Node::Node(OpId o) : op(o), sequence_nr(g_sequence.fetch_add(1, std::memory_order_relaxed)) {}
Node::~Node() {
  for (auto& hooks : pre_hooks)
    for (int64_t key : hooks) {
      autograd::queue_release(key);
      autograd::callbacks_live_add(-1);
    }
}

std::string Node::name() const { return op_name(op); }

Grads Node::apply(const Grads& grad_outputs) { return autograd::run_vjp(*this, grad_outputs); }

void Node::save(const Tensor& t, bool is_output, int output_nr) {
  SavedTensor s;
  s.is_output = is_output;
  s.output_nr = output_nr;
  if (t.defined()) {
    s.version = t.version();
    // Note [Saved tensors without their impl]
    const AutogradMeta* m = is_output ? nullptr : autograd::meta_if(t);
    if (m && m->grad_fn) {
      s.grad_fn = m->grad_fn;
      s.output_nr = m->output_nr;
    }
    const bool leaf_with_grad = !is_output && !s.grad_fn && m && m->requires_grad;
    if (autograd::saved_tensors_hooks() && !leaf_with_grad) {  // Note [Saved-tensor hooks]
      InputMeta meta{t.sizes(), t.dtype(), t.device()};
      // the hook sees an alias without history: a saved output holding this node would be a cycle
      Tensor bare = alias_with(t, t.sizes(), t.strides(), t.storage_offset());
      s.packed = std::make_shared<PackedSaved>(autograd::lua_pack(bare), std::move(meta));
      saved.push_back(std::move(s));
      return;
    }
    s.data = leaf_with_grad ? t : alias_with(t, t.sizes(), t.strides(), t.storage_offset());
  }
  saved.push_back(std::move(s));
}

Tensor Node::saved_tensor(int k) {
  TOCHA_CHECK(!released, "backward", "trying to backward through the graph of ", name(),
              " a second time: its saved tensors were freed by the first backward; pass retainGraph=true "
              "to the first backward to keep them");
  TOCHA_ASSERT(k >= 0 && k < int(saved.size()));
  SavedTensor& s = saved[k];
  if (s.packed) {
    Tensor d = autograd::lua_unpack(s.packed->key);
    const InputMeta& m = s.packed->meta;
    TOCHA_CHECK(d.sizes() == m.shape && d.dtype() == m.dtype && d.device() == m.device, "backward",
                "the unpack hook of a saved-tensor hook returned a ", tensor_type_name(d), " of size ",
                shape_str(d.sizes()), " on ", d.device().str(), " for a saved ", dtype_tensor_name(m.dtype),
                " of size ", shape_str(m.shape), " on ", m.device.str(), " (", name(), " needs it back as it was)");
    if ((!s.is_output && !s.grad_fn) || !autograd::grad_enabled()) return d;
    Tensor out = alias_with(d, d.sizes(), d.strides(), d.storage_offset());
    autograd::set_history(out, s.is_output ? shared_from_this() : s.grad_fn, s.output_nr);
    return out;
  }
  if (!s.data.defined()) return s.data;
  TOCHA_CHECK(s.data.version() == s.version, "backward",
              "a tensor of size ", shape_str(s.data.sizes()), " needed to compute the gradient of ", name(),
              " was modified by an in-place operation after ", name(), " saved it (version ", s.data.version(),
              ", saved at version ", s.version, "); clone() it before modifying it, or modify a copy");
  // Without grad mode (a first-order backward) nothing records the formula's ops, so the saved
  // tensor needs no history back.
  if ((!s.is_output && !s.grad_fn) || !autograd::grad_enabled()) return s.data;
  Tensor out = alias_with(s.data, s.data.sizes(), s.data.strides(), s.data.storage_offset());
  autograd::set_history(out, s.is_output ? shared_from_this() : s.grad_fn, s.output_nr);
  return out;
}

PackedSaved::~PackedSaved() { autograd::release_packed(key); }

void Node::release_saved() {
  if (saved.empty()) return;
  saved.clear();
  saved.shrink_to_fit();
  released = true;
}

AccumulateGrad::AccumulateGrad(const Tensor& l) : Node(OpId::COUNT), leaf(l) {
  InputMeta m{l.sizes(), l.dtype(), l.device()};
  outputs.push_back(m);
}

namespace {
constexpr uint32_t kNodesPerGcStep = 256;  // Note [Graph-driven GC steps] (core/memory.cpp)
__attribute__((tls_model("initial-exec"))) thread_local uint32_t t_nodes_made = 0;
}  // namespace

std::shared_ptr<Node> make_node(OpId op) {
  if (++t_nodes_made % kNodesPerGcStep == 0) memory_request_gc_step();
  return std::allocate_shared<Node>(PoolAllocator<Node>(), op);
}
std::shared_ptr<Node> make_accumulator(const Tensor& leaf) {
  return std::allocate_shared<AccumulateGrad>(PoolAllocator<AccumulateGrad>(), leaf);
}

LuaNode::LuaNode(int64_t k, std::string l) : Node(OpId::COUNT), key(k), label(std::move(l)) {
  autograd::callbacks_live_add(1);
}

}  // namespace tocha
