// The backward engine: runs the vector-Jacobian products of a graph in dependency order,
// accumulating gradients per node input (DESIGN.md decision 5).
#pragma once
#include <vector>
#include "core/tensor.h"

namespace tocha {
namespace autograd {

struct BackwardOptions {
  bool retain_graph = false;  // keep saved tensors so another backward can run through the graph
  bool create_graph = false;  // record the backward itself (higher-order gradients)
};

// Accumulates d(roots)/d(leaf) into every leaf's .grad. grad_roots[i] may be undefined for a
// one-element root (then 1 is used).
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots, BackwardOptions opts);

// Returns d(outputs)/d(inputs) without touching .grad. An input the outputs do not depend on gets
// an undefined tensor when allow_unused, else an error.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs,
                         const std::vector<Tensor>& inputs, BackwardOptions opts, bool allow_unused);

// Sums a broadcast gradient back to `shape` (the inverse of broadcasting).
Tensor sum_to(const Tensor& g, const DimVec& shape);

}  // namespace autograd
}  // namespace tocha
