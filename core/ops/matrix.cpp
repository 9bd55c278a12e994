// diag, tril and triu front-ends. diag is a strided diagonal view plus a copy; tril/triu run the
// triangle kernel. See matrix.h.
#include "core/ops/matrix.h"
#include "core/type_name.h"
#include "core/autograd/record.h"
#include <algorithm>
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {

// The k-th diagonal of matrix t as a (strided) vector view (empty when |k| is past the matrix).
Tensor diagonal_view(const Tensor& t, int64_t k) {
  int64_t rows = t.size(0), cols = t.size(1);
  k = std::max(-rows, std::min(k, cols));  // the same (empty) diagonal, with no overflow below
  int64_t len = k >= 0 ? std::min(rows, cols - k) : std::min(rows + k, cols);
  if (len <= 0) return alias_with(t, DimVec{0}, DimVec{1}, t.storage_offset());
  int64_t start = k >= 0 ? k * t.stride(1) : -k * t.stride(0);
  return alias_with(t, DimVec{len}, DimVec{t.stride(0) + t.stride(1)}, t.storage_offset() + start);
}

// out itself (resized to shape) when the result can be written into it directly, else a new tensor
// of x's dtype that finish() copies into out.
Tensor target_for(const char* op, const Tensor* out, const Tensor& x, const DimVec& shape) {
  if (!out) return empty(shape, x.dtype(), x.device());
  check_same_device(op, *out, x);
  TOCHA_CHECK(can_cast(x.dtype(), out->dtype()), op, "result of type ", tensor_type_name(x),
              " cannot be written into a ", dtype_tensor_name(out->dtype()));
  bool in_place = out->shares_storage(x) && out->sizes() == shape && !needs_temporary(*out, x);
  if (out->dtype() == x.dtype() && (!out->shares_storage(x) || in_place)) {
    resize_(*out, shape);
    check_writable(op, *out);
    return *out;
  }
  return empty(shape, x.dtype(), x.device());
}

void finish(const Tensor* out, const Tensor& target) {
  if (!out || target.is_same(*out)) return;
  resize_(*out, target.sizes());
  copy_(*out, target);
}

Tensor diag_compute(const Tensor* out, const Tensor& x, int64_t k) {
  const char* op = "diag";
  TOCHA_CHECK(x.dim() == 1 || x.dim() == 2, op, "expected a vector or a matrix, got a tensor of size ",
              shape_str(x.sizes()));
  if (x.dim() == 1) {
    const int64_t limit = int64_t(1) << 40;  // an m x m result is too large long before that
    TOCHA_CHECK(k > -limit && k < limit, op, "diagonal ", k, " is too far from the main diagonal");
    int64_t m = x.size(0) + (k >= 0 ? k : -k);
    Tensor target = target_for(op, out, x, DimVec{m, m});
    fill_(target, 0);
    copy_(diagonal_view(target, k), x);
    finish(out, target);
    return target;
  }
  Tensor d = diagonal_view(x, k);
  Tensor target = target_for(op, out, x, d.sizes());
  copy_(target, d);
  finish(out, target);
  return target;
}

Tensor triangle_compute(OpId opid, const Tensor* out, const Tensor& x, int64_t k) {
  const char* op = op_name(opid);
  TOCHA_CHECK(x.dim() >= 2, op, "expected a matrix (or a batch of matrices), got a tensor of size ",
              shape_str(x.sizes()));
  Tensor target = target_for(op, out, x, x.sizes());
  if (x.numel() > 0) {
    const int nd = x.dim();
    TriangleArgs a;
    a.out = static_cast<char*>(target.raw_data());
    a.in = static_cast<const char*>(x.raw_data());
    a.nbatch_dims = nd - 2;
    for (int d = 0; d < nd - 2; ++d) {
      a.batch_size[d] = x.size(d);
      a.out_batch_stride[d] = target.stride(d);
      a.in_batch_stride[d] = x.stride(d);
      a.batch *= x.size(d);
    }
    a.rows = x.size(nd - 2);
    a.cols = x.size(nd - 1);
    a.out_rs = target.stride(nd - 2);
    a.out_cs = target.stride(nd - 1);
    a.in_rs = x.stride(nd - 2);
    a.in_cs = x.stride(nd - 1);
    a.k = k;
    kernel_for<TriangleKernel>(opid, x.device().type, x.dtype())(a);
  }
  target.bump_version();
  finish(out, target);
  return out ? *out : target;
}

// Records diag/tril/triu (Note [Recording an op]) with the offset k.
Tensor recorded(OpId op, const Tensor* out, const Tensor& x, int64_t k) {
  autograd::Recording rec(op, out, {&x});
  Tensor r = op == OpId::diag ? diag_compute(out, x, k) : triangle_compute(op, out, x, k);
  if (out) r = *out;
  if (auto n = rec.finish({&x}, {&r})) n->attrs.i[2] = k;
  return r;
}
Tensor diag_impl(const Tensor* out, const Tensor& x, int64_t k) { return recorded(OpId::diag, out, x, k); }
Tensor triangle_impl(OpId op, const Tensor* out, const Tensor& x, int64_t k) { return recorded(op, out, x, k); }

}  // namespace

Tensor diag(const Tensor& x, int64_t k) { return diag_impl(nullptr, x, k); }
void diag_out(const Tensor& out, const Tensor& x, int64_t k) { diag_impl(&out, x, k); }

Tensor tril(const Tensor& x, int64_t k) { return triangle_impl(OpId::tril, nullptr, x, k); }
void tril_out(const Tensor& out, const Tensor& x, int64_t k) { triangle_impl(OpId::tril, &out, x, k); }
Tensor triu(const Tensor& x, int64_t k) { return triangle_impl(OpId::triu, nullptr, x, k); }
void triu_out(const Tensor& out, const Tensor& x, int64_t k) { triangle_impl(OpId::triu, &out, x, k); }

}  // namespace tocha
