// Vector-Jacobian products of indexing, masking, joining and matrix-shape ops.
// Node layout (set by the front-ends in core/ops/index*.cpp, join.cpp, matrix.cpp):
//   attrs.i[0] dim (0-based), i[1] the index base of the saved index tensor, i[2] diag offset k;
//   saved[0] the index or mask tensor (never differentiated), saved[1] the source where needed.
#include "core/autograd/engine.h"
#include "core/autograd/formula_ops.h"
#include "core/autograd/vjp.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/index.h"
#include "core/ops/index_mask.h"
#include "core/ops/index_scatter.h"
#include "core/ops/join.h"
#include "core/ops/matrix.h"

namespace tocha {
namespace autograd {

using namespace f;

namespace {
int dim_of(const Node& n) { return int(n.attrs.i[0]); }
int64_t base_of(const Node& n) { return n.attrs.i[1]; }
const DimVec& in_shape(const Node& n, int k = 0) { return n.inputs[size_t(k)].shape; }
Tensor zeros_of(const Node& n, const Tensor& like, int k = 0) { return zeros(in_shape(n, k), like.dtype(), like.device()); }
}  // namespace

Grads vjp_index(Node& n, const Grads& g) {
  Tensor idx = n.saved_tensor(0);
  return {index_add(zeros_of(n, g[0]), dim_of(n), idx, g[0], base_of(n))};
}

// Inputs: (self, src); the copied positions of self get no gradient.
Grads vjp_indexCopy(Node& n, const Grads& g) {
  Tensor idx = n.saved_tensor(0);
  return {n.needs_input_grad(0) ? index_fill(g[0], dim_of(n), idx, 0, base_of(n)) : Tensor(),
          n.needs_input_grad(1) ? index_select(g[0], dim_of(n), idx, base_of(n)) : Tensor()};
}
Grads vjp_indexAdd(Node& n, const Grads& g) {
  Tensor idx = n.saved_tensor(0);
  return {g[0], n.needs_input_grad(1) ? index_select(g[0], dim_of(n), idx, base_of(n)) : Tensor()};
}
Grads vjp_indexFill(Node& n, const Grads& g) {
  return {index_fill(g[0], dim_of(n), n.saved_tensor(0), 0, base_of(n))};
}

Grads vjp_gather(Node& n, const Grads& g) {
  return {scatter_add(zeros_of(n, g[0]), dim_of(n), n.saved_tensor(0), g[0], base_of(n))};
}
// Inputs: (self, src) or (self) when the scattered value is a number.
Grads vjp_scatter(Node& n, const Grads& g) {
  Tensor idx = n.saved_tensor(0);
  Grads r{n.needs_input_grad(0) ? scatter(g[0], dim_of(n), idx, 0.0, base_of(n)) : Tensor()};
  if (n.next.size() > 1) r.push_back(n.needs_input_grad(1) ? gather(g[0], dim_of(n), idx, base_of(n)) : Tensor());
  return r;
}
Grads vjp_scatterAdd(Node& n, const Grads& g) {
  Tensor idx = n.saved_tensor(0);
  return {g[0], n.needs_input_grad(1) ? gather(g[0], dim_of(n), idx, base_of(n)) : Tensor()};
}

Grads vjp_maskedSelect(Node& n, const Grads& g) {
  Tensor m = n.saved_tensor(0);
  Tensor z = zeros_of(n, g[0]);
  // The mask may broadcast to the input: expand the input's gradient to the mask's shape first.
  return {masked_copy(z, m, g[0])};
}
// Inputs: (self, src); src's first k elements (k = number of selected positions) were used.
Grads vjp_maskedCopy(Node& n, const Grads& g) {
  Tensor m = n.saved_tensor(0);
  Grads r{n.needs_input_grad(0) ? masked_fill(g[0], m, 0) : Tensor(), Tensor()};
  if (n.needs_input_grad(1)) {
    Tensor used = masked_select(g[0], m);
    int64_t total = shape_numel(in_shape(n, 1));
    Tensor flat = used.numel() < total ? cat({used, zeros({total - used.numel()}, g[0].dtype(), g[0].device())}, 0) : used;
    r[1] = reshape(flat, in_shape(n, 1));
  }
  return r;
}
Grads vjp_maskedFill(Node& n, const Grads& g) { return {masked_fill(g[0], n.saved_tensor(0), 0)}; }

// Each input gets its slice of the gradient along the joined dim.
Grads vjp_cat(Node& n, const Grads& g) {
  Grads r;
  int d = dim_of(n);
  int64_t offset = 0;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    const DimVec& s = n.inputs[k].shape;
    // Torch7 accepts empty tensors of any shape among the inputs; they get an empty gradient of
    // their own shape (PyTorch's; they had none: e.grad stayed nil).
    if (shape_numel(s) == 0) {
      r.push_back(n.needs_input_grad(int(k)) ? zeros(s, g[0].dtype(), g[0].device()) : Tensor());
      continue;
    }
    // Inputs with fewer dims count as having trailing dims of size 1 (Torch7).
    int64_t len = d < s.size() ? s[d] : 1;
    r.push_back(n.needs_input_grad(int(k)) ? reshape(narrow(g[0], d, offset, len), s) : Tensor());
    offset += len;
  }
  return r;
}

Grads vjp_diag(Node& n, const Grads& g) {
  int64_t k = n.attrs.i[2];
  const DimVec& s = in_shape(n);
  if (s.size() == 1) return {diag(g[0], k)};
  // A matrix's diagonal: place the vector back on the diagonal of a matrix of the input's shape.
  Tensor d = diag(g[0], k);  // square, (len + |k|)
  Tensor r = d;
  if (r.size(0) < s[0]) r = cat({r, zeros({s[0] - r.size(0), r.size(1)}, g[0].dtype(), g[0].device())}, 0);
  if (r.size(1) < s[1]) r = cat({r, zeros({r.size(0), s[1] - r.size(1)}, g[0].dtype(), g[0].device())}, 1);
  return {narrow(narrow(r, 0, 0, s[0]), 1, 0, s[1])};
}
Grads vjp_tril(Node& n, const Grads& g) { return {tril(g[0], n.attrs.i[2])}; }
Grads vjp_triu(Node& n, const Grads& g) { return {triu(g[0], n.attrs.i[2])}; }

namespace {

// The storage offset of every element of the view (sizes, strides, offset), in row-major order.
Tensor storage_offsets(const DimVec& sizes, const DimVec& strides, int64_t offset) {
  Tensor offsets = empty({shape_numel(sizes)}, DType::i64);
  int64_t* p = offsets.data<int64_t>();
  DimVec idx = DimVec::filled(sizes.size(), 0);
  int64_t off = offset;
  for (int64_t e = 0; e < offsets.numel(); ++e) {
    p[e] = off;
    for (int d = sizes.size() - 1; d >= 0; --d) {
      off += strides[d];
      if (++idx[d] < sizes[d]) break;
      off -= sizes[d] * strides[d];
      idx[d] = 0;
    }
  }
  return offsets;
}

}  // namespace

// Note [as_strided gradients of overlapping inputs]
// as_strided: every output element reads one storage element; overlapping reads add up. When
// several elements of the input share a storage element (an expanded input, an overlapping
// view), they are one value seen several times, so each gets its share: the storage gradient over
// their count, as PyTorch's as_strided_backward. Handing each the whole of it made an expanded
// input's gradient count every copy (x:expand(3, 3):asStrided(...) gave 3 where it is 1).
Grads vjp_asStrided(Node& n, const Grads& g) {
  const DimVec& out_sizes = n.attrs.shape;
  const DimVec& out_strides = n.attrs.shape2;
  const DimVec& in_strides = n.attrs.shape3;
  int64_t out_offset = n.attrs.i[0], in_offset = n.attrs.i[1];
  const DimVec& in_sizes = in_shape(n);
  int64_t span = std::max(required_storage_elems(out_sizes, out_strides, out_offset),
                          required_storage_elems(in_sizes, in_strides, in_offset));
  const Device dev = g[0].device();
  Tensor offsets = storage_offsets(out_sizes, out_strides, out_offset);
  Tensor storage = zeros({span}, g[0].dtype(), dev);
  storage = index_add(storage, 0, to_device(offsets, dev), reshape(g[0], {offsets.numel()}), 0);
  if (may_overlap(in_sizes.size(), in_sizes.data(), in_strides.data())) {
    Tensor in_offsets = to_device(storage_offsets(in_sizes, in_strides, in_offset), dev);
    Tensor counts = index_add(zeros({span}, g[0].dtype(), dev), 0, in_offsets,
                              ones({in_offsets.numel()}, g[0].dtype(), dev), 0);
    storage = div(storage, clamp(counts, 1.0, std::nullopt));
  }
  return {as_strided(storage, in_sizes, in_strides, in_offset)};
}

}  // namespace autograd
}  // namespace tocha
