// What op front-ends call to put a node on the tape (step 4 of DESIGN.md decision 2).
#pragma once
#include <initializer_list>
#include "core/autograd/node.h"

namespace tocha {
namespace autograd {

// A borrowed list of tensor pointers: built from `{&a, &b}` or a vector without allocating.
// Only ever a by-value parameter: the braced list it views lives until the call returns.
struct TensorList {
  const Tensor* const* ptr = nullptr;
  size_t n = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
  TensorList(std::initializer_list<const Tensor*> l) : ptr(l.begin()), n(l.size()) {}  // NOLINT
#pragma GCC diagnostic pop
  TensorList(const std::vector<const Tensor*>& v) : ptr(v.data()), n(v.size()) {}      // NOLINT
  const Tensor* const* begin() const { return ptr; }
  const Tensor* const* end() const { return ptr + n; }
  size_t size() const { return n; }
};

// True when grad mode is on and one of the tensors requires grad: the op must be recorded.
bool needs_record(const Tensor* const* begin, const Tensor* const* end);
inline bool needs_record(std::initializer_list<const Tensor*> in) { return needs_record(in.begin(), in.end()); }
inline bool needs_record(const std::vector<const Tensor*>& in) { return needs_record(in.data(), in.data() + in.size()); }
inline bool needs_record(const Tensor& a) { const Tensor* p = &a; return needs_record(&p, &p + 1); }

// Creates a node for `op` with edges from the given inputs (undefined tensors and inputs that do
// not require grad get no edge) and makes it the grad_fn of each output. Returns the node so the
// caller can save tensors and attributes.
std::shared_ptr<Node> record(OpId op, TensorList inputs, TensorList outputs);
// Same for a node built by the caller (e.g. a LuaNode).
void connect(const std::shared_ptr<Node>& node, const std::vector<Tensor>& inputs,
             const std::vector<Tensor>& outputs);

// Before an in-place op on `t`: refuses what autograd cannot follow (an in-place op on a view
// that requires grad). In-place updates of leaves are allowed and not recorded (Note [In-place
// updates of leaves]). Returns true when the op must be recorded as a new history of t.
bool prepare_in_place(const char* op, const Tensor& t, const Tensor* const* begin, const Tensor* const* end);
inline bool prepare_in_place(const char* op, const Tensor& t, std::initializer_list<const Tensor*> in) {
  return prepare_in_place(op, t, in.begin(), in.end());
}
// Note [Fills drop history]: a fill whose values depend on nothing (fill, the random fills, a
// multinomial or randperm written into a buffer) leaves a tensor with history without it: its
// gradient is zero from then on (y = x * 2; y:uniform() passed gradient to x through the old
// values). The guard runs prepare_in_place's checks when built (a view of a tensor with history
// is refused, a leaf parameter is initialized freely) and drops the history when its scope ends
// without an exception.
class FillGuard {
 public:
  FillGuard(const char* op, const Tensor& t);
  ~FillGuard();
  FillGuard(const FillGuard&) = delete;
  FillGuard& operator=(const FillGuard&) = delete;

 private:
  const Tensor& t_;
  bool had_history_;
  int exceptions_;
};
inline bool prepare_in_place(const char* op, const Tensor& t, const std::vector<const Tensor*>& in) {
  return prepare_in_place(op, t, in.data(), in.data() + in.size());
}

// The edge a gradient for t should flow along (its grad_fn slot, or its leaf accumulator).
Edge gradient_edge(const Tensor& t);
// Makes `node` (output slot nr) the history of t.
void set_history(const Tensor& t, const std::shared_ptr<Node>& node, int nr);

}  // namespace autograd
}  // namespace tocha

namespace tocha {
namespace autograd {
// Removes t's history in place (it becomes a leaf that does not require grad).
void detach_(const Tensor& t);
// A new tensor sharing t's storage, without history.
Tensor detach(const Tensor& t);
}  // namespace autograd
}  // namespace tocha

namespace tocha {
namespace autograd {

// Note [Results written into inputs]: an op may write its result into an input's storage (an
// in-place call, or a res form: torch.mm(A, A, B), torch.gesv(b, a, b, a)); saving that input
// after the op would save the result, and backward would silently use it. The input's value as
// the op reads it: t itself, or a copy taken now when `written` or `also_written` shares t's
// storage. Call it before computing, with grad mode off.
Tensor value_before_write(const Tensor& t, const Tensor* written, const Tensor* also_written = nullptr);

// Note [Recording an op]: the pattern every differentiable front-end follows.
//   Recording rec(OpId::gather, nullptr, {&input});   // decides, then turns grad mode off
//   Tensor r = ...compute with any helpers...;        // nothing inside is recorded
//   if (auto n = rec.finish({&input}, {&r})) { n->attrs... ; n->save(...); }
// `out` is the tensor an in-place or `res` form writes into (see prepare_in_place); its old
// history becomes the node's input edge when it is one of `inputs`.
class Recording {
 public:
  Recording(OpId op, const Tensor* out, TensorList inputs);
  ~Recording();
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;
  bool active() const { return on_; }
  // The value of input t to save for backward when the op is recorded (value_before_write with
  // out, and also_written: gesv's LU); call it before computing.
  Tensor keep(const Tensor& t, const Tensor* also_written = nullptr) const {
    return on_ ? value_before_write(t, out_, also_written) : t;
  }
  // Records the node when active (restoring grad mode first); nullptr otherwise.
  std::shared_ptr<Node> finish(TensorList inputs, TensorList outputs);

 private:
  OpId op_;
  const Tensor* out_ = nullptr;
  bool on_ = false;
  bool prev_mode_;
  bool restored_ = false;
  const Tensor* detach_out_ = nullptr;  // a non-differentiable op overwrote a tensor with history
};

}  // namespace autograd
}  // namespace tocha
