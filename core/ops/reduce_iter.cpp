// Building a ReduceIter: splitting dims into kept and reduced, ordering and coalescing them.
// See reduce_iter.h.
#include "core/ops/reduce_iter.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

struct Dim {
  int64_t size;
  int64_t st[ReduceIter::kMaxOperands];
};

// Orders dims by decreasing input stride (stable), so the innermost dim is the one the input
// walks fastest: a transposed input then reduces (or scans) as fast as a contiguous one.
// Broadcast dims (stride 0) go outermost.
int64_t order_key(const Dim& d) { return d.st[0] == 0 ? INT64_MAX : d.st[0]; }
void order_by_input_stride(Dim* dims, int n) {
  for (int i = 1; i < n; ++i) {
    Dim x = dims[i];
    int j = i - 1;
    while (j >= 0 && order_key(dims[j]) < order_key(x)) {
      dims[j + 1] = dims[j];
      --j;
    }
    dims[j + 1] = x;
  }
}

// Merges neighbours that every operand steps through as one dim; returns the new count.
int coalesce(Dim* dims, int n, int nops) {
  if (n == 0) return 0;
  int m = 0;
  for (int d = 1; d < n; ++d) {
    bool mergeable = true;
    for (int k = 0; k < nops; ++k)
      if (dims[m].st[k] != dims[d].st[k] * dims[d].size) { mergeable = false; break; }
    if (mergeable) {
      dims[m].size *= dims[d].size;
      for (int k = 0; k < nops; ++k) dims[m].st[k] = dims[d].st[k];
    } else {
      dims[++m] = dims[d];
    }
  }
  return m + 1;
}

}  // namespace

ReduceIter make_reduce_iter(const Tensor& in, std::initializer_list<const Tensor*> outs, uint32_t reduced) {
  ReduceIter it;
  const Tensor* ops[ReduceIter::kMaxOperands];
  ops[0] = &in;
  int nops = 1;
  for (const Tensor* o : outs) {
    TOCHA_ASSERT(nops < ReduceIter::kMaxOperands && o->dim() == in.dim());
    ops[nops++] = o;
  }
  it.noperands = nops;
  for (int k = 0; k < nops; ++k) it.data[k] = static_cast<char*>(ops[k]->raw_data());

  Dim kept[kMaxDims], red[kMaxDims];
  int nk = 0, nr = 0;
  for (int d = 0; d < in.dim(); ++d) {
    Dim x;
    x.size = in.size(d);
    // An operand of size 1 on a dim (a reduction's output) does not move along it.
    for (int k = 0; k < nops; ++k) x.st[k] = k == 0 || ops[k]->size(d) != 1 ? ops[k]->stride(d) : 0;
    if (x.size == 1) continue;  // size-1 dims never matter
    if (reduced & (1u << d)) red[nr++] = x;
    else kept[nk++] = x;
  }
  order_by_input_stride(kept, nk);
  order_by_input_stride(red, nr);
  nk = coalesce(kept, nk, nops);
  nr = coalesce(red, nr, nops);
  if (nr == 0) {  // nothing to fold (size-1 or 0-dim): one element per output
    red[0].size = 1;
    for (int k = 0; k < nops; ++k) red[0].st[k] = 0;
    nr = 1;
  }

  it.ndim = nk;
  it.n_out = 1;
  for (int d = 0; d < nk; ++d) {
    it.shape[d] = kept[d].size;
    for (int k = 0; k < nops; ++k) it.strides[k][d] = kept[d].st[k];
    it.n_out *= kept[d].size;
  }
  it.rdim = nr;
  it.n_red = 1;
  for (int d = 0; d < nr; ++d) {
    it.rshape[d] = red[d].size;
    for (int k = 0; k < nops; ++k) it.rstrides[k][d] = red[d].st[k];
    it.n_red *= red[d].size;
  }
  return it;
}

DimVec reduced_shape(const DimVec& sizes, uint32_t reduced, bool keepdim) {
  DimVec r;
  for (int d = 0; d < sizes.size(); ++d) {
    if (!(reduced & (1u << d))) r.push_back(sizes[d]);
    else if (keepdim) r.push_back(1);
  }
  return r;
}

Tensor unsqueeze_reduced(const Tensor& t, const DimVec& in_sizes, uint32_t reduced) {
  DimVec sizes, strides;
  int src = 0;
  for (int d = 0; d < in_sizes.size(); ++d) {
    if (reduced & (1u << d)) {
      sizes.push_back(1);
      strides.push_back(0);
    } else {
      sizes.push_back(t.size(src));
      strides.push_back(t.stride(src));
      ++src;
    }
  }
  return alias_with(t, sizes, strides, t.storage_offset());
}

uint32_t dim_mask(const Tensor& a, int64_t dim, const char* op) { return 1u << wrap_dim(dim, a.dim(), op); }
uint32_t all_dims_mask(const Tensor& a) { return a.dim() == 0 ? 0u : uint32_t((uint64_t(1) << a.dim()) - 1); }

Tensor prepare_out(const char* op, const Tensor* out, const DimVec& shape, DType dt, const Tensor& in,
                   const Tensor* in2) {
  if (!out) return empty(shape, dt, in.device());
  TOCHA_CHECK(out->device() == in.device(), op, "result tensor is on ", out->device().str(), " but the input is on ",
              in.device().str());
  TOCHA_CHECK(can_cast(dt, out->dtype()), op, "result of type ", dtype_tensor_name(dt), " cannot be written into a ",
              dtype_tensor_name(out->dtype()));
  // A result that aliases an input (torch.sum(x, x, 1)) must not be resized before the kernel has
  // read the input: use a temporary.
  if (out->dtype() != dt || out->shares_storage(in) || (in2 && out->shares_storage(*in2)))
    return empty(shape, dt, in.device());
  resize_(*out, shape);
  check_writable(op, *out);
  return *out;
}

void finish_out(const Tensor* out, const Tensor& target) {
  if (!out) return;
  if (target.is_same(*out)) {
    out->bump_version();
    return;
  }
  resize_(*out, target.sizes());
  copy_(*out, target);
}

static ValuesIndices compute_values_indices(OpId op, const Tensor& a, int dim, int64_t out_len, bool keepdim,
                                            int64_t index_base, const double* params, const Tensor* values_out,
                                            const Tensor* indices_out) {
  const char* name = op_name(op);
  auto kernel = kernel_for<ReduceKernel>(op, a.device().type, a.dtype());
  uint32_t mask = a.dim() == 0 ? 0u : 1u << dim;
  DimVec full = a.sizes();
  if (a.dim() > 0) full[dim] = out_len;
  DimVec shape = out_len == 1 && !keepdim ? reduced_shape(a.sizes(), mask, false) : full;
  Tensor v = prepare_out(name, values_out, shape, a.dtype(), a);
  Tensor i = prepare_out(name, indices_out, shape, DType::i64, a);
  Tensor vk = shape == full ? v : unsqueeze_reduced(v, a.sizes(), mask);
  Tensor ik = shape == full ? i : unsqueeze_reduced(i, a.sizes(), mask);
  ReduceIter it = make_reduce_iter(a, {&vk, &ik}, mask);
  it.index_base = index_base;
  if (params)
    for (int k = 0; k < 4; ++k) it.params[k] = params[k];
  // Nothing to write: a sort along dim 1 of a 0 x 2^40 tensor would walk 2^40 empty slices.
  if (v.numel() > 0) kernel(it);
  finish_out(values_out, v);
  finish_out(indices_out, i);
  return {values_out ? *values_out : v, indices_out ? *indices_out : i};
}

// Values are differentiable (the gradient goes back to the returned indices); indices are not.
ValuesIndices run_values_indices(OpId op, const Tensor& a, int dim, int64_t out_len, bool keepdim,
                                 int64_t index_base, const double* params, const Tensor* values_out,
                                 const Tensor* indices_out) {
  autograd::Recording rec(op, values_out, {&a});
  ValuesIndices r = compute_values_indices(op, a, dim, out_len, keepdim, index_base, params, values_out, indices_out);
  if (auto n = rec.finish({&a}, {&r.values})) {
    n->attrs.i[0] = a.dim() == 0 ? 0 : int64_t(1) << dim;
    n->attrs.i[2] = keepdim || out_len != 1;
    n->attrs.i[3] = index_base;
    n->save(a);
    n->save(r.values, true);
    n->save(r.indices);
  }
  return r;
}

}  // namespace tocha
