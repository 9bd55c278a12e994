// Graph nodes of the dynamic autograd tape (DESIGN.md decision 5). A Node remembers what the
// vector-Jacobian formula of its op needs (saved tensors with their versions, attributes, input
// shapes) and where the input gradients go (edges to the nodes that produced the inputs, or to
// the accumulators of leaves).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "core/op_id.h"
#include "core/small_vector.h"
#include "core/tensor.h"

namespace tocha {

struct Node;
// Note [Tape allocations]: recording an op allocates only its Node (from a per-thread pool, see
// make_node in node.cpp); the short lists a node keeps (edges, input shapes, saved tensors) and
// the gradient lists of backward live inline (SmallVector) for the one to three entries almost
// every op has. malloc was a quarter of the instructions of a tiny forward+backward before.
using Grads = SmallVector<Tensor, 2>;  // an undefined Tensor means "no gradient" (zero)

struct Edge {
  std::shared_ptr<Node> node;
  int input_nr = 0;  // which output slot of `node` receives the gradient
  bool valid() const { return bool(node); }
};

// Shape, dtype and device of a forward input: the engine reduces broadcast gradients to the
// shape and casts them to the dtype (Note [Gradient layout] in engine.cpp).
struct InputMeta {
  DimVec shape;
  DType dtype = DType::f32;
  Device device;
};

// Note [Saved-tensor hooks]: under torch.autograd.graph.savedTensorsHooks(pack, unpack, fn) a
// saved tensor is handed to the Lua pack hook, which returns any Lua value, kept under a key; the
// node keeps the key (and the tensor's metadata) instead of the tensor, and backward asks the
// unpack hook for the tensor again (PyTorch's saved_tensors_hooks). A leaf that requires grad is
// not packed: it is alive anyway (a parameter) and double backward must reach its accumulator.
struct PackedSaved {
  int64_t key = 0;
  InputMeta meta;
  explicit PackedSaved(int64_t k, InputMeta m) : key(k), meta(std::move(m)) {}
  PackedSaved(const PackedSaved&) = delete;
  PackedSaved& operator=(const PackedSaved&) = delete;
  ~PackedSaved();  // releases the key to the Lua state (node.cpp)
};

// A tensor saved for backward. Note [Saved tensors without their impl]: every saved tensor but a
// leaf that requires grad is stored as a bare alias of its storage (the version counter lives
// there), and one that had a grad_fn gets it back when unpacked. Holding the tensor's own impl
// would hold whatever grad_fn it has later: a saved output's is this node, and an input written
// in place afterwards (y:add_(y * y), or a plain buffer that buf:copy(x) gives x's history) may
// get a grad_fn that leads back here. Either is a reference cycle, so the graph would never be
// freed (the fuzzer found both; backward would refuse the stale input anyway). A leaf that
// requires grad is never given a history by an in-place op (Note [In-place updates of leaves]).
struct SavedTensor {
  Tensor data;
  std::shared_ptr<PackedSaved> packed;  // set when a pack hook took the tensor
  uint32_t version = 0;
  bool is_output = false;
  int output_nr = 0;                  // the slot of grad_fn (or of this node, for an output)
  std::shared_ptr<Node> grad_fn;      // a saved input's history when it was saved
};

// attrs.i[1] of a selection node (max, min, median, mode, kthvalue) that reduced a flattened copy
// of the whole input: its gradient is shared among ties as a reduction over all elements.
constexpr int64_t kWholeSelection = 1;

// Op attributes a formula needs (dims, scalars, shapes); meaning is per op.
struct Attrs {
  int64_t i[4] = {0, 0, 0, 0};
  double d[3] = {0, 0, 0};
  DimVec shape;
  DimVec shape2;
  DimVec shape3;
};

struct Node : std::enable_shared_from_this<Node> {
  explicit Node(OpId op);
  virtual ~Node();

  OpId op;
  SmallVector<Edge, 2> next;        // one per differentiable tensor input, in forward order
  SmallVector<InputMeta, 2> inputs; // same length as next
  SmallVector<InputMeta, 1> outputs;  // metadata of each output (zeros for missing gradients)
  SmallVector<SavedTensor, 4> saved;  // pointwise ops save up to 3 inputs and the output
  Attrs attrs;
  uint64_t sequence_nr;             // creation order; later nodes run first when both are ready
  std::string forward_trace;        // where the forward op was called (anomaly detection)
  std::vector<std::vector<int64_t>> pre_hooks;  // Lua hook keys per output slot
  std::vector<Tensor> retained;     // gradients kept per output slot (retainGrad)
  std::vector<bool> retain_slot;
  bool released = false;            // saved tensors freed by a backward without retainGraph
  // Non-empty when an in-place op wrote through a view into this node's result: a backward
  // through it raises (Note [In-place ops on views of tensors with history], record.cpp).
  std::string modified_through_view;
  uint64_t task_epoch = 0;          // Note [Graph task bookkeeping] (engine.cpp)
  int task_index = -1;

  // Computes the gradients of the inputs from those of the outputs.
  virtual Grads apply(const Grads& grad_outputs);
  virtual std::string name() const;
  // Whether the formula of input k may be skipped (its edge leads nowhere).
  bool needs_input_grad(int k) const { return k < int(next.size()) && next[k].valid(); }

  // Saves t for backward (an output of this node when is_output).
  void save(const Tensor& t, bool is_output = false, int output_nr = 0);
  // The k-th saved tensor, checked against in-place modification since it was saved.
  Tensor saved_tensor(int k);
  // Frees the saved tensors (after a backward that does not retain the graph).
  virtual void release_saved();
};

// The sink of a leaf: adds incoming gradients into leaf.grad (in place when it exists, so .grad
// may alias other storage, see Note [Gradient accumulation] in engine.cpp).
struct AccumulateGrad : Node {
  explicit AccumulateGrad(const Tensor& leaf);
  Tensor leaf;
  Grads apply(const Grads& grad_outputs) override;
  std::string name() const override { return "AccumulateGrad"; }
};

// A new Node for op / AccumulateGrad for leaf, allocated from the per-thread node pool.
std::shared_ptr<Node> make_node(OpId op);
std::shared_ptr<Node> make_accumulator(const Tensor& leaf);

// A node whose backward is Lua code (torch.autograd.Function, nn modules as coarse nodes):
// apply() calls back into Lua with `key` (see lua_callbacks.h).
struct LuaNode : Node {
  LuaNode(int64_t key, std::string label);
  ~LuaNode() override;
  int64_t key;
  std::string label;
  Grads apply(const Grads& grad_outputs) override;
  std::string name() const override { return label; }
  void release_saved() override;
};

}  // namespace tocha
