// The backward engine. See engine.h.
#include "core/autograd/engine.h"
#include <algorithm>
#include <memory>
#include <atomic>
#include "core/autograd/grad_mode.h"
#include "core/autograd/lua_callbacks.h"
#include "core/autograd/meta.h"
#include "core/autograd/node.h"
#include "core/autograd/record.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {
namespace autograd {

namespace {

struct Capture {
  int slot;
  int index;  // position in the result vector
};

struct ReadyOrder {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

// Adds g into buffer slot (out of place, so that a gradient handed to several consumers is
// never modified behind their back).
void accumulate(Grads& buffer, int slot, const Tensor& g) {
  if (!g.defined()) return;
  if (int(buffer.size()) <= slot) buffer.resize(size_t(slot) + 1);
  Tensor& cur = buffer[size_t(slot)];
  cur = cur.defined() ? binary(OpId::add, cur, g) : g;
}

void check_finite(const Node& node, const Tensor& g, int k) {
  if (!g.defined() || !is_floating(g.dtype())) return;
  Tensor bad = binary(OpId::ne, g, g);                                       // NaN
  Tensor inf = binary(OpId::eq, unary(OpId::abs, g), Scalar(INFINITY));    // +-Inf
  if (!any_true(bad) && !any_true(inf)) return;
  std::string where = node.forward_trace.empty() ? std::string("(location unknown)") : node.forward_trace;
  fail("backward", "the gradient of input ", k + 1, " computed by the backward of ", node.name(),
       " contains NaN or Inf; ", node.name(), " was called at: ", where);
}

// Note [Gradient layout]: formulas return gradients in the broadcast shape and the promoted
// dtype of the op; the engine reduces them to each input's shape and casts them to its dtype
// once, here, so no formula has to.
Tensor to_input_layout(const Tensor& g, const InputMeta& m) {
  if (!g.defined()) return g;
  Tensor r = g;
  if (r.sizes() != m.shape) r = sum_to(r, m.shape);
  if (r.dtype() != m.dtype) r = to_dtype(r, m.dtype);
  return r;
}

Tensor run_hooks(const std::vector<int64_t>& hooks, Tensor g) {
  for (int64_t key : hooks) g = lua_hook(key, g);
  return g;
}

// Note [Graph task bookkeeping]: a backward numbers the nodes it reaches (Node::task_epoch and
// task_index) and keeps its per-node state in vectors, so no hashing or allocation per node.
// The vectors belong to a per-thread scratch that the next backward reuses with their capacity
// (Note [Tape allocations], node.h); a backward started from inside a backward (a Lua hook or
// function) takes the next scratch of the stack. One graph is not meant to be run by two backward
// calls at the same time on different threads.
std::atomic<uint64_t> g_task_epoch{0};

struct TaskScratch {
  std::vector<Node*> nodes;
  std::vector<int> deps;
  std::vector<Grads> buffers;
  std::vector<std::vector<Capture>> captures;
  std::vector<char> needed;
  std::vector<char> queued;
  std::vector<Node*> ready;  // a heap ordered by ReadyOrder
  void clear() {
    nodes.clear();
    deps.clear();
    buffers.clear();
    captures.clear();
    needed.clear();
    queued.clear();
    ready.clear();
  }
};

// The scratch of the innermost running backward of this thread.
class ScratchLease {
 public:
  ScratchLease() {
    if (depth_ == stack_.size()) stack_.emplace_back(new TaskScratch());
    scratch_ = stack_[depth_++].get();
  }
  ~ScratchLease() {
    scratch_->clear();
    --depth_;
  }
  TaskScratch& get() { return *scratch_; }
  // Whether this lease is inside another backward of the same thread.
  static bool nested() { return depth_ > 1; }

 private:
  static thread_local std::vector<std::unique_ptr<TaskScratch>> stack_;
  static thread_local size_t depth_;
  TaskScratch* scratch_;
};
thread_local std::vector<std::unique_ptr<TaskScratch>> ScratchLease::stack_;
thread_local size_t ScratchLease::depth_ = 0;

class GraphTask {
 public:
  explicit GraphTask(BackwardOptions opts)
      : opts_(opts), epoch_(++g_task_epoch), s_(lease_.get()), nodes_(s_.nodes), deps_(s_.deps),
        buffers_(s_.buffers), captures_(s_.captures), needed_(s_.needed), nested_(ScratchLease::nested()) {}
  // Note [Nested backward renumbering]: a backward started from inside a backward (a Lua function's
  // backward calling torch.autograd.grad) numbers the nodes it reaches in their task_epoch and
  // task_index fields, which the outer backward is still using for the nodes both reach (a leaf's
  // AccumulateGrad): the outer one then accumulated into another node's slot and lost that leaf's
  // gradient (torch.autograd.grad returned nil for it). A nested task puts the outer numbers back.
  ~GraphTask() {
    for (size_t i = renumbered_.size(); i-- > 0;) {
      renumbered_[i].node->task_epoch = renumbered_[i].epoch;
      renumbered_[i].node->task_index = renumbered_[i].index;
    }
  }

  // The index of n in this task (numbering it the first time).
  int index_of(Node* n) {
    if (n->task_epoch != epoch_) {
      if (nested_) renumbered_.push_back(Renumbered{n, n->task_epoch, n->task_index});
      n->task_epoch = epoch_;
      n->task_index = int(nodes_.size());
      nodes_.push_back(n);
      deps_.push_back(0);
    }
    return n->task_index;
  }
  bool known(const Node* n) const { return n->task_epoch == epoch_; }

  void discover(const std::vector<Edge>& roots) {
    for (const Edge& e : roots)
      if (e.valid()) index_of(e.node.get());
    // nodes_ grows while we walk it: every node is visited once, in discovery order.
    for (size_t i = 0; i < nodes_.size(); ++i) {
      Node* n = nodes_[i];
      for (const Edge& e : n->next) {
        if (!e.valid()) continue;
        int child = index_of(e.node.get());
        deps_[size_t(child)]++;
      }
    }
    buffers_.resize(nodes_.size());
  }

  // grad(): only nodes from which a captured slot can be reached need to run.
  void restrict_to_captures() {
    restricted_ = true;
    needed_.assign(nodes_.size(), 0);
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t i = nodes_.size(); i-- > 0;) {
        if (needed_[i]) continue;
        Node* n = nodes_[i];
        bool need = !captures_.empty() && !captures_[i].empty();
        for (const Edge& e : n->next)
          if (e.valid() && needed_[size_t(e.node->task_index)]) need = true;
        if (need) { needed_[i] = 1; changed = true; }
      }
    }
  }

  void add_capture(Node* n, int slot, int index) {
    if (!known(n)) return;  // not reachable from the outputs: stays undefined (unused input)
    if (captures_.empty()) captures_.resize(nodes_.size());
    captures_[size_t(n->task_index)].push_back(Capture{slot, index});
  }
  void seed(const Edge& e, const Tensor& g) { accumulate(buffers_[size_t(e.node->task_index)], e.input_nr, g); }

  void run(const std::vector<Edge>& roots, std::vector<Tensor>* results) {
    std::vector<Node*>& ready = s_.ready;
    std::vector<char>& queued = s_.queued;
    queued.assign(nodes_.size(), 0);
    auto make_ready = [&](Node* n) {
      ready.push_back(n);
      std::push_heap(ready.begin(), ready.end(), ReadyOrder());
    };
    for (const Edge& e : roots) {
      if (!e.valid()) continue;
      size_t i = size_t(e.node->task_index);
      if (deps_[i] == 0 && !queued[i]) {
        queued[i] = 1;
        make_ready(e.node.get());
      }
    }
    while (!ready.empty()) {
      std::pop_heap(ready.begin(), ready.end(), ReadyOrder());
      Node* n = ready.back();
      ready.pop_back();
      size_t ni = size_t(n->task_index);
      Grads grads = std::move(buffers_[ni]);
      grads.resize(std::max(grads.size(), n->outputs.size()));
      for (size_t s = 0; s < grads.size() && s < n->pre_hooks.size(); ++s)
        if (!n->pre_hooks[s].empty() && grads[s].defined()) grads[s] = run_hooks(n->pre_hooks[s], grads[s]);
      for (size_t s = 0; s < n->retain_slot.size(); ++s)
        if (n->retain_slot[s] && s < grads.size() && grads[s].defined()) {
          if (n->retained.size() <= s) n->retained.resize(s + 1);
          n->retained[s] = n->retained[s].defined() && !opts_.create_graph
                               ? binary(OpId::add, n->retained[s], grads[s]) : grads[s];
        }
      bool is_capture_leaf = false;
      if (!captures_.empty() && !captures_[ni].empty()) {
        for (const Capture& c : captures_[ni])
          if (size_t(c.slot) < grads.size()) (*results)[size_t(c.index)] = grads[size_t(c.slot)];
        is_capture_leaf = dynamic_cast<AccumulateGrad*>(n) != nullptr;
      }
      bool run_it = !is_capture_leaf && (!restricted_ || needed_[ni]);
      bool any = false;
      for (const Tensor& g : grads) any = any || g.defined();
      Grads out;
      if (run_it && any) {
        // Note [In-place ops on views of tensors with history] (record.cpp)
        TOCHA_CHECK(n->modified_through_view.empty(), "backward", "the result of ", n->name(),
                    " was modified in place through a view (", n->modified_through_view,
                    ") after it was computed: autograd cannot follow an in-place op on a view into "
                    "the tensor it views; clone() the view before modifying it, or use an "
                    "out-of-place op");
        out = n->apply(grads);
        if (!opts_.retain_graph) n->release_saved();
      }
      for (size_t k = 0; k < n->next.size(); ++k) {
        const Edge& e = n->next[k];
        if (!e.valid()) continue;
        size_t ci = size_t(e.node->task_index);
        if (k < out.size() && out[k].defined()) {
          Tensor g = to_input_layout(out[k], n->inputs[k]);
          if (anomaly_enabled()) check_finite(*n, g, int(k));
          accumulate(buffers_[ci], e.input_nr, g);
        }
        if (--deps_[ci] == 0 && !queued[ci]) {
          queued[ci] = 1;
          make_ready(e.node.get());
        }
      }
    }
  }

 private:
  BackwardOptions opts_;
  uint64_t epoch_;
  ScratchLease lease_;
  TaskScratch& s_;
  std::vector<Node*>& nodes_;
  std::vector<int>& deps_;
  std::vector<Grads>& buffers_;
  std::vector<std::vector<Capture>>& captures_;
  std::vector<char>& needed_;
  bool restricted_ = false;
  bool nested_;
  struct Renumbered {
    Node* node;
    uint64_t epoch;
    int index;
  };
  std::vector<Renumbered> renumbered_;  // Note [Nested backward renumbering]
};

// The gradient to start from: given, or ones for a one-element root.
Tensor root_grad(const Tensor& root, const Tensor& given, size_t i) {
  if (given.defined()) {
    TOCHA_CHECK(given.sizes() == root.sizes(), "backward", "gradient ", i + 1, " has size ", shape_str(given.sizes()),
                " but output ", i + 1, " has size ", shape_str(root.sizes()));
    return given;
  }
  TOCHA_CHECK(root.numel() == 1, "backward", "a gradient must be given for output ", i + 1, " of size ",
              shape_str(root.sizes()), " (only one-element outputs get an implicit gradient of 1)");
  return full(root.sizes(), 1, root.dtype(), root.device());
}

std::vector<Edge> root_edges(const std::vector<Tensor>& roots) {
  std::vector<Edge> edges;
  for (size_t i = 0; i < roots.size(); ++i) {
    TOCHA_CHECK(roots[i].requires_grad(), "backward", "output ", i + 1, " (size ", shape_str(roots[i].sizes()),
                ") does not require grad and has no history: nothing to differentiate");
    edges.push_back(gradient_edge(roots[i]));
  }
  return edges;
}

}  // namespace

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots, BackwardOptions opts) {
  GradModeGuard mode(opts.create_graph);
  std::vector<Edge> edges = root_edges(roots);
  GraphTask task(opts);
  task.discover(edges);
  for (size_t i = 0; i < roots.size(); ++i)
    task.seed(edges[i], root_grad(roots[i], i < grad_roots.size() ? grad_roots[i] : Tensor(), i));
  task.run(edges, nullptr);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                         const std::vector<Tensor>& inputs, BackwardOptions opts, bool allow_unused) {
  GradModeGuard mode(opts.create_graph);
  std::vector<Edge> edges = root_edges(outputs);
  GraphTask task(opts);
  task.discover(edges);
  for (size_t i = 0; i < inputs.size(); ++i) {
    TOCHA_CHECK(inputs[i].requires_grad(), "grad", "input ", i + 1, " (size ", shape_str(inputs[i].sizes()),
                ") does not require grad");
    Edge e = gradient_edge(inputs[i]);
    task.add_capture(e.node.get(), e.input_nr, int(i));
  }
  task.restrict_to_captures();
  for (size_t i = 0; i < outputs.size(); ++i)
    task.seed(edges[i], root_grad(outputs[i], i < grad_outputs.size() ? grad_outputs[i] : Tensor(), i));
  std::vector<Tensor> results(inputs.size());
  task.run(edges, &results);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (results[i].defined()) {
      results[i] = to_input_layout(results[i], InputMeta{inputs[i].sizes(), inputs[i].dtype(), inputs[i].device()});
    } else {
      TOCHA_CHECK(allow_unused, "grad", "input ", i + 1, " was not used to compute the outputs; pass allowUnused=true "
                  "to get nil for it");
    }
  }
  return results;
}

}  // namespace autograd

// ---- node kinds whose apply lives with the engine ------------------------------------------------

// Note [Gradient accumulation]: the first gradient of a leaf is stored as a fresh tensor; later
// ones are added in place, so .grad keeps its identity (nn's gradWeight is weight.grad, and
// getParameters() re-points .grad into a flat tensor). Under createGraph the sum is out of place
// so the graph of the gradient is kept.
Grads AccumulateGrad::apply(const Grads& grad_outputs) {
  Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[0];
  if (!g.defined()) return {};
  AutogradMeta& m = autograd::meta(leaf);
  g = autograd::run_hooks(m.hooks, g);
  if (!pre_hooks.empty()) g = autograd::run_hooks(pre_hooks[0], g);
  if (!g.defined()) return {};
  if (g.dtype() != leaf.dtype()) g = to_dtype(g, leaf.dtype());
  if (!m.grad.defined()) {
    // A copy in either mode (recorded under createGraph): g may be the caller's gradOutput or an
    // expanded tensor, and a later backward adds into .grad in place (it changed the caller's go).
    m.grad = clone(g);
  } else if (autograd::grad_enabled()) {
    m.grad = binary(OpId::add, m.grad, g);
  } else {
    binary_out(OpId::add, m.grad, m.grad, g);
  }
  return {};
}

Grads LuaNode::apply(const Grads& grad_outputs) {
  TOCHA_CHECK(!released, "backward", "trying to backward through ", label, " a second time: its saved state was "
              "freed by the first backward; pass retainGraph=true to the first backward to keep it");
  autograd::CurrentLuaNode current(this);  // Note [Saved outputs in double backward]
  return autograd::lua_node_apply(key, grad_outputs, int(next.size()));
}

LuaNode::~LuaNode() {
  autograd::queue_release(key);
  autograd::callbacks_live_add(-1);
}
void LuaNode::release_saved() {
  Node::release_saved();
  released = true;
}

}  // namespace tocha
