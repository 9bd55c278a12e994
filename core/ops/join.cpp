// cat and stack front-ends: checks, promotion, then one cat kernel call for the contiguous inputs
// of the result's dtype and strided copies for the others. See join.h.
#include "core/ops/join.h"
#include "core/autograd/record.h"
#include <algorithm>
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {

namespace {

// Torch7's empty tensor (torch.Tensor()) is 1D of size 0; cat ignores it, as Torch7 and PyTorch do.
bool is_legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

// Copies the inputs into target (of the final shape) one after another along dim d.
void fill_cat(const Tensor& target, const std::vector<const Tensor*>& inputs, int d) {
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < d; ++k) outer *= target.size(k);
  for (int k = d + 1; k < target.dim(); ++k) inner *= target.size(k);
  std::vector<const char*> ptrs;
  std::vector<int64_t> rows, offsets;
  int64_t at = 0;
  for (const Tensor* t : inputs) {
    int64_t n = t->size(d);
    if (t->numel() > 0) {
      if (target.is_contiguous() && t->is_contiguous() && t->dtype() == target.dtype()) {
        ptrs.push_back(static_cast<const char*>(t->raw_data()));
        rows.push_back(n * inner);
        offsets.push_back(at * inner);
      } else {
        copy_(narrow(target, d, at, n), *t);  // converts dtypes and walks strides
      }
    }
    at += n;
  }
  if (!ptrs.empty() && target.numel() > 0) {
    CatArgs a;
    a.out = static_cast<char*>(target.raw_data());
    a.outer = outer;
    a.out_row = target.size(d) * inner;
    a.ninputs = int(ptrs.size());
    a.in = ptrs.data();
    a.in_row = rows.data();
    a.in_offset = offsets.data();
    kernel_for<CatKernel>(OpId::cat, target.device().type, target.dtype())(a);
  }
  target.bump_version();
}

Tensor cat_compute(const Tensor* out, const std::vector<Tensor>& tensors, int64_t dim, int* dim_used) {
  const char* op = "cat";
  TOCHA_CHECK(!tensors.empty(), op, "expected at least one tensor");
  DType rt = tensors[0].dtype();
  std::vector<const Tensor*> used;
  std::vector<size_t> positions;  // 1-based, for messages
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    check_same_device(op, tensors[0], t);
    rt = promote_types(rt, t.dtype());
    if (!is_legacy_empty(t)) {
      used.push_back(&t);
      positions.push_back(i + 1);
    }
  }
  DimVec shape{0};
  int d = 0;
  std::vector<Tensor> padded;
  if (!used.empty()) {
    int maxnd = 0;
    for (const Tensor* t : used) {
      TOCHA_CHECK(t->dim() > 0, op, "cannot concatenate 0-dim tensors (tensor ", int(t - tensors.data()) + 1, ")");
      maxnd = std::max(maxnd, t->dim());
    }
    // Torch7: a dim one past the inputs' last makes a new trailing dim.
    if (dim == maxnd && maxnd < kMaxDims) d = maxnd;
    else d = wrap_dim(dim, maxnd, op);
    *dim_used = d;
    const int nd = std::max(maxnd, d + 1);
    // Torch7: inputs with fewer dims count as having trailing dims of size 1.
    padded.reserve(used.size());
    for (const Tensor*& t : used) {
      if (t->dim() == nd) continue;
      DimVec sz = t->sizes(), st = t->strides();
      sz.resize(nd, 1);
      st.resize(nd, 1);
      padded.push_back(alias_with(*t, sz, st, t->storage_offset()));
      t = &padded.back();
    }
    const Tensor& ref = *used[0];
    shape = ref.sizes();
    shape[d] = 0;
    for (size_t i = 0; i < used.size(); ++i) {
      const Tensor* t = used[i];
      bool ok = true;
      for (int k = 0; ok && k < nd; ++k) ok = k == d || t->size(k) == ref.size(k);
      TOCHA_CHECK(ok, op, "tensor ", positions[i], " has size ", shape_str(tensors[positions[i] - 1].sizes()),
                  " but tensor ", positions[0], " has size ", shape_str(tensors[positions[0] - 1].sizes()),
                  "; they must match except in dimension ", d + 1);
      shape[d] += t->size(d);
    }
  }
  Device dev = tensors[0].device();
  if (!out) {
    Tensor r = empty(shape, rt, dev);
    fill_cat(r, used, d);
    return r;
  }
  check_same_device(op, *out, tensors[0]);
  TOCHA_CHECK(can_cast(rt, out->dtype()), op, "result of type ", dtype_tensor_name(rt), " cannot be written into a ",
              dtype_tensor_name(out->dtype()));
  bool overlaps = false;
  for (const Tensor& t : tensors) overlaps |= out->shares_storage(t);
  if (overlaps) {  // resizing out could move an input's storage: build the result aside
    Tensor r = empty(shape, out->dtype(), dev);
    fill_cat(r, used, d);
    resize_(*out, shape);
    copy_(*out, r);
  } else {
    resize_(*out, shape);
    check_writable(op, *out);
    fill_cat(*out, used, d);
  }
  return *out;
}

Tensor cat_impl(const Tensor* out, const std::vector<Tensor>& tensors, int64_t dim) {
  std::vector<const Tensor*> inputs;
  for (const Tensor& t : tensors) inputs.push_back(&t);
  autograd::Recording rec(OpId::cat, out, inputs);
  int d = 0;
  Tensor r = cat_compute(out, tensors, dim, &d);
  if (auto n = rec.finish(inputs, {&r})) n->attrs.i[0] = d;
  return r;
}

std::vector<Tensor> unsqueezed_for_stack(const std::vector<Tensor>& tensors, int64_t dim) {
  const char* op = "stack";
  TOCHA_CHECK(!tensors.empty(), op, "expected at least one tensor");
  const Tensor& ref = tensors[0];
  int d = wrap_dim(dim, ref.dim() + 1, op);
  std::vector<Tensor> r;
  r.reserve(tensors.size());
  for (size_t k = 0; k < tensors.size(); ++k) {
    TOCHA_CHECK(tensors[k].sizes() == ref.sizes(), op, "tensor ", k + 1, " has size ", shape_str(tensors[k].sizes()),
                " but tensor 1 has size ", shape_str(ref.sizes()), "; stacked tensors must have the same size");
    r.push_back(unsqueeze(tensors[k], d));
  }
  return r;
}

}  // namespace

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) { return cat_impl(nullptr, tensors, dim); }
void cat_out(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) { cat_impl(&out, tensors, dim); }

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  std::vector<Tensor> u = unsqueezed_for_stack(tensors, dim);
  return cat(u, wrap_dim(dim, tensors[0].dim() + 1, "stack"));
}
void stack_out(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  std::vector<Tensor> u = unsqueezed_for_stack(tensors, dim);
  cat_out(out, u, wrap_dim(dim, tensors[0].dim() + 1, "stack"));
}

}  // namespace tocha
