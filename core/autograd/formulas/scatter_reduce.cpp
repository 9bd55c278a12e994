// Vector-Jacobian product of scatterReduce (core/ops/scatter_reduce.cpp), PyTorch 1.13's rules.
// Node: attrs.i = {dim, index base, ScatterReduce, include_self}; saved = {index, self, src,
// result}. Index and tensors are as the kernel saw them (0-dim ones as vectors of one element).
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/index_scatter.h"
#include "core/ops/join.h"
#include "core/ops/scatter_reduce.h"
#include "core/ops/tensor_ops.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {

// t (index-shaped) padded with zeros to `shape` (src may be larger than the index): recorded
// cats, so the formula stays differentiable.
Tensor pad_to(const Tensor& t, const DimVec& shape) {
  Tensor r = t;
  for (int k = 0; k < shape.size(); ++k) {
    if (r.size(k) == shape[k]) continue;
    DimVec z = r.sizes();
    z[k] = shape[k] - r.size(k);
    r = cat({r, zeros(z, r.dtype(), r.device())}, k);
  }
  return r;
}

// src narrowed to the index's sizes (the elements that took part).
Tensor used_part(const Tensor& src, const Tensor& idx) {
  Tensor r = src;
  for (int k = 0; k < idx.dim(); ++k)
    if (r.size(k) != idx.size(k)) r = narrow(r, k, 0, idx.size(k));
  return r;
}

}  // namespace

// Note [scatterReduce gradients]
// sum: self gets g, src gets g gathered. mean: both divided by the count of values reduced into
// each place. amax/amin: the gradient is shared evenly among the values equal to the result
// (self's and src's), as PyTorch 1.13 does. prod: g * result / x for every nonzero factor x, and
// the product of the other factors for a zero one (PyTorch 1.13's formula). Without
// include_self, self's places that received values get no gradient.
Grads vjp_scatterReduce(Node& n, const Grads& g) {
  const int d = int(n.attrs.i[0]);
  const int64_t base = n.attrs.i[1];
  const ScatterReduce kind = ScatterReduce(n.attrs.i[2]);
  const bool include_self = n.attrs.i[3] != 0;
  Tensor idx = n.saved_tensor(0), self = n.saved_tensor(1), src = n.saved_tensor(2);
  const DimVec self_shape = n.inputs[0].shape, src_shape = n.inputs[1].shape;
  Tensor gv = reshape(g[0], self.dim() == 0 ? DimVec{1} : self.sizes());
  Tensor selfv = reshape(self, gv.sizes());
  Tensor srcv = src.dim() == 0 ? reshape(src, DimVec{1}) : src;
  Tensor gs, gsrc;
  if (kind == ScatterReduce::sum) {
    gs = gv;
    gsrc = gather(gv, d, idx, base);
  } else if (kind == ScatterReduce::mean) {
    Tensor cnt = include_self ? ones(gv.sizes(), gv.dtype(), gv.device()) : zeros(gv.sizes(), gv.dtype(), gv.device());
    cnt = scatter_add(cnt, d, idx, ones(idx.sizes(), gv.dtype(), gv.device()), base);
    cnt = clamp(cnt, 1.0, std::nullopt);
    gs = div(gv, cnt);
    gsrc = gather(gs, d, idx, base);
  } else if (kind == ScatterReduce::prod) {
    // PyTorch's exact rule: a zero factor's gradient is the product of the other factors,
    // computed by reducing again with that zero (a lone one per place) replaced by 1.
    Tensor used = used_part(srcv, idx);
    Tensor self_zero = mask(OpId::eq, selfv, 0.0, gv.dtype()), src_zero = mask(OpId::eq, used, 0.0, gv.dtype());
    Tensor masked_self = add(selfv, self_zero);
    gs = div(mul(gv, scatter_reduce(masked_self, d, idx, srcv, kind, include_self, base)), masked_self);
    Tensor nzero = gather(scatter_add(zeros_like(gv), d, idx, src_zero, base), d, idx, base);
    Tensor single = mul(src_zero, mask(OpId::eq, nzero, 1.0, gv.dtype()));
    Tensor others = scatter_reduce(selfv, d, idx, add(used, single), kind, include_self, base);
    Tensor result = reshape(n.saved_tensor(3), gv.sizes());
    gsrc = add(mul(single, gather(mul(gv, others), d, idx, base)),
               mul(sub(1.0, single), div(gather(mul(gv, result), d, idx, base), add(used, src_zero))));
  } else {  // amax, amin
    Tensor result = reshape(n.saved_tensor(3), gv.sizes());
    Tensor used = used_part(srcv, idx);
    Tensor self_is = mask(OpId::eq, selfv, result, gv.dtype());
    if (!include_self) self_is = scatter(self_is, d, idx, 0.0, base);
    Tensor src_is = mask(OpId::eq, used, gather(result, d, idx, base), gv.dtype());
    Tensor cnt = scatter_add(self_is, d, idx, src_is, base);
    cnt = clamp(cnt, 1.0, std::nullopt);
    Tensor share = div(gv, cnt);
    gs = mul(self_is, share);
    gsrc = mul(src_is, gather(share, d, idx, base));
  }
  if (!include_self) gs = scatter(gs, d, idx, 0.0, base);
  Grads r{n.needs_input_grad(0) ? reshape(gs, self_shape) : Tensor(),
          n.needs_input_grad(1) ? reshape(pad_to(gsrc, srcv.sizes()), src_shape) : Tensor()};
  return r;
}

}  // namespace autograd
}  // namespace tocha
