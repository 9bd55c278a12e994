// Per-tensor autograd state (DESIGN.md decision 5), allocated only for tensors that take part in
// autograd: leaves that require grad and results of recorded ops.
#pragma once
#include <memory>
#include <vector>
#include "core/tensor.h"

namespace tocha {

struct Node;

struct AutogradMeta {
  Tensor grad;                        // accumulated gradient; undefined until a backward reaches it
  std::shared_ptr<Node> grad_fn;      // the node that produced this tensor (null for leaves)
  std::weak_ptr<Node> accumulator;    // leaves: the node that accumulates into `grad`
  int output_nr = 0;                  // which output of grad_fn this tensor is
  bool requires_grad = false;         // leaves: set by the user
  bool retains_grad = false;          // non-leaves: keep .grad after backward (retainGrad)
  std::vector<int64_t> hooks;         // Lua hook keys, called with the gradient in order
  ~AutogradMeta();
  // Every recorded op's output gets one: from a per-thread free list (core/pool_allocator.h).
  static void* operator new(size_t n);
  static void operator delete(void* p, size_t n);
};

namespace autograd {

// The meta of t, created on demand.
AutogradMeta& meta(const Tensor& t);
// The meta of t or nullptr.
inline AutogradMeta* meta_if(const Tensor& t) { return t.impl()->autograd.get(); }
// Whether t is a leaf (no grad_fn).
inline bool is_leaf(const Tensor& t) {
  AutogradMeta* m = meta_if(t);
  return !m || !m->grad_fn;
}
// Keeps the header flag in sync with the meta (Lua reads the flag directly).
void refresh_flag(const Tensor& t);

}  // namespace autograd
}  // namespace tocha
