// flip front-end (see flip.h): checks the dims, then one index_select per reversed dim.
#include "core/ops/flip.h"
#include "core/error.h"
#include "core/ops/index.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/shape.h"

namespace tocha {

// Note [Flip as index_select]
// flip is a composite, not a primitive of core/ops.def: reversing a dim is index_select with the
// indices n-1 .. 0, so every device and dtype that has an index kernel flips, and autograd
// records the index_selects (their backward, an index_add of the gradient, is the gradient
// flipped back; double backward works too). Several dims take one pass each; dims of size 0 or
// 1 are skipped. The result never shares storage with x (PyTorch's flip copies; Tensor has no
// negative strides for a view to use).

namespace {

// n-1, n-2, ..., 0 on x's device.
Tensor reversed_indices(int64_t n, Device device) {
  Tensor idx = empty({n}, DType::i64);
  int64_t* p = idx.data<int64_t>();
  for (int64_t k = 0; k < n; ++k) p[k] = n - 1 - k;
  return to_device(idx, device);
}

}  // namespace

Tensor flip(const Tensor& x, const DimVec& dims) {
  const char* op = "flip";
  bool seen[kMaxDims] = {};
  DimVec wrapped;
  for (int i = 0; i < dims.size(); ++i) {
    int d = wrap_dim(dims[i], x.dim(), op);  // a 0-dim tensor accepts 0 / -1, like PyTorch
    TOCHA_CHECK(!seen[d], op, "dimension ", d + 1, " appears more than once in dims ", list_str(dims, true),
                " (tensor of size ", shape_str(x.sizes()), ")");
    seen[d] = true;
    wrapped.push_back(d);
  }
  Tensor r;
  for (int i = 0; i < wrapped.size(); ++i) {
    int d = int(wrapped[i]);
    // Reversing 0 or 1 elements changes nothing, nor does reversing any dim of an empty tensor
    // (whose other dims may be huge: 0 x 2^40 would build a 2^40-long index).
    if (x.dim() == 0 || x.size(d) <= 1 || x.numel() == 0) continue;
    r = index_select(r.defined() ? r : x, d, reversed_indices(x.size(d), x.device()), 0);
  }
  return r.defined() ? r : clone(x);
}

}  // namespace tocha
