// Vector-Jacobian products of the view ops. Gradients of views are embedded back into the
// input's shape; the engine already reduces expanded dims (Note [Gradient layout]).
#include "core/autograd/engine.h"
#include "core/autograd/formula_ops.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/vjp.h"
#if __has_include("core/ops/join.h")
#include "core/ops/join.h"
#define TOCHA_HAVE_CAT 1
#endif

namespace tocha {
namespace autograd {

namespace {

// A tensor of `shape` that is g on [start, start + g.size(dim)) along dim and zero elsewhere.
// Under createGraph it is built from cat (differentiable); otherwise written into zeros.
Tensor embed(const Tensor& g, const DimVec& shape, int dim, int64_t start) {
  int64_t len = g.size(dim);
#ifdef TOCHA_HAVE_CAT
  int64_t n = shape[dim];
  if (grad_enabled()) {
    std::vector<Tensor> parts;
    DimVec s = shape;
    if (start > 0) { s[dim] = start; parts.push_back(zeros(s, g.dtype(), g.device())); }
    parts.push_back(g);
    if (start + len < n) { s[dim] = n - start - len; parts.push_back(zeros(s, g.dtype(), g.device())); }
    return parts.size() == 1 ? g : cat(parts, dim);
  }
#endif
  Tensor r = zeros(shape, g.dtype(), g.device());
  copy_(narrow(r, dim, start, len), g);
  return r;
}

}  // namespace

Grads vjp_narrow(Node& n, const Grads& g) {
  return {embed(g[0], n.inputs[0].shape, int(n.attrs.i[0]), n.attrs.i[1])};
}

Grads vjp_select(Node& n, const Grads& g) {
  int d = int(n.attrs.i[0]);
  return {embed(unsqueeze(g[0], d), n.inputs[0].shape, d, n.attrs.i[1])};
}

Grads vjp_transpose(Node& n, const Grads& g) { return {transpose(g[0], n.attrs.i[0], n.attrs.i[1])}; }

Grads vjp_permute(Node& n, const Grads& g) {
  const DimVec& perm = n.attrs.shape;
  DimVec inverse = DimVec::filled(perm.size(), 0);
  for (int i = 0; i < perm.size(); ++i) inverse[int(perm[i])] = i;
  return {permute(g[0], inverse)};
}

Grads vjp_view(Node& n, const Grads& g) { return {reshape(g[0], n.inputs[0].shape)}; }

Grads vjp_expand(Node&, const Grads& g) { return {g[0]}; }

// Each window k covers [k*step, k*step + size) of dim; overlapping windows add up.
Grads vjp_unfold(Node& n, const Grads& g) {
  const DimVec& shape = n.inputs[0].shape;
  int d = int(n.attrs.i[0]);
  int64_t size = n.attrs.i[1], step = n.attrs.i[2];
  int last = g[0].dim() - 1;
  Tensor total;
  if (shape.empty()) return {sum_to(g[0], shape)};
  for (int64_t k = 0; k < g[0].size(d); ++k) {
    // window k: g[..., k, ..., :] with the window elements moved back to dim d
    Tensor w = select(g[0], d, k);                  // dims: others..., size (last)
    w = unsqueeze(w, d);                            // put a placeholder at d
    w = transpose(w, d, last);                      // window elements at d, size-1 dim last
    w = squeeze(w, last);
    Tensor part = embed(w, shape, d, k * step);
    total = total.defined() ? f::add(total, part) : part;
  }
  (void)size;
  return {total.defined() ? total : zeros(shape, g[0].dtype(), g[0].device())};
}

}  // namespace autograd
}  // namespace tocha
