// matmul, outer and tensordot front-ends (see matmul.h): checks that name the op and what it
// received, then views and one BLAS product per call (Note [matmul plan]).
#include "core/ops/matmul.h"
#include "core/error.h"
#include "core/ops/linalg.h"
#include "core/ops/linalg_util.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

// Note [matmul plan]
// matmul is a composite of the recorded BLAS ops (dot, mv, mm, bmm) and views, as PyTorch's is:
//  - ranks <= 2: one dot, mv or mm (1D.2D is mv on b's transpose, a view);
//  - a with >= 3 dims and b 1D or 2D: a's leading dims fold into the rows of one mm (or mv) when
//    they can be viewed as one dim, so b is never expanded or copied per batch. When they cannot
//    (a transposed batch of matrices) but a's batch dims merge, one bmm reads a as it is and b as
//    a stride-0 batch; when neither merges, a copy of a is folded;
//  - otherwise one bmm over the broadcast batch: each operand is expanded to the batch shape and
//    reshaped to 3D, which copies only when its batch dims cannot merge in a view. An operand that
//    the batch broadcasts entirely (a 2D a against a 4D b) reaches the kernels as a stride-0 batch
//    without a copy: the CPU, oneDNN and cuBLAS GEMM kernels all take one.
// The result is always a new tensor (the products allocate). Autograd records the pieces; the
// expand's backward sums the gradient over the broadcast batch dims.

namespace {

const char* kMatmul = "matmul";

std::string sizes_of(const Tensor& t) {
  return t.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(t.sizes());
}

DimVec leading(const DimVec& s, int n) {
  DimVec r;
  for (int i = 0; i < n; ++i) r.push_back(s[i]);
  return r;
}

void check_matmul(const Tensor& a, const Tensor& b) {
  TOCHA_CHECK(a.dim() >= 1 && b.dim() >= 1, kMatmul, "both operands need at least 1 dim, got ", sizes_of(a),
              " and ", sizes_of(b));
  linalg::check_same_type(kMatmul, "a", a, "b", b);
  check_product_dtype(kMatmul, a.dtype());
  int64_t ka = a.size(a.dim() - 1), kb = b.size(b.dim() == 1 ? 0 : b.dim() - 2);
  TOCHA_CHECK(ka == kb, kMatmul, "a is ", shape_str(a.sizes()), " but b is ", shape_str(b.sizes()), ": a's last dim (",
              ka, ") must equal b's ", b.dim() == 1 ? "size" : "second-to-last dim", " (", kb, ")");
}

// Whether t's dims before its last two can be viewed as one.
bool batch_dims_merge(const Tensor& t) {
  const int d = t.dim();
  DimVec st;
  return view_strides(t.sizes(), t.strides(),
                      {shape_numel(leading(t.sizes(), d - 2)), t.size(d - 2), t.size(d - 1)}, &st);
}

// a (>= 3 dims) times b (1D or 2D) as one mm or mv over a's leading dims folded into rows; an
// undefined tensor when they cannot be viewed as one dim, unless `copy` allows folding a copy.
Tensor folded_product(const Tensor& a, const Tensor& b, bool copy) {
  const int da = a.dim();
  DimVec lead = leading(a.sizes(), da - 1);
  const DimVec rows{shape_numel(lead), a.size(da - 1)};
  DimVec st;
  Tensor a2;
  if (view_strides(a.sizes(), a.strides(), rows, &st)) a2 = view(a, rows);
  else if (copy) a2 = reshape(a, rows);
  else return Tensor();
  Tensor r = b.dim() == 2 ? mm(a2, b) : mv(a2, b);
  if (b.dim() == 2) lead.push_back(b.size(1));
  return view(r, lead);
}

// t (batch dims, then a rows x cols matrix) expanded to the batch shape and reshaped to
// count x rows x cols: a view unless its batch dims cannot merge.
Tensor as_batch(const Tensor& t, const DimVec& batch, int64_t count, int64_t rows, int64_t cols) {
  DimVec full = batch;
  full.push_back(rows);
  full.push_back(cols);
  Tensor e = t.sizes() == full ? t : expand(t, full);
  return e.dim() == 3 ? e : reshape(e, {count, rows, cols});
}

// One bmm over the broadcast batch dims; a 1D a is one row, a 1D b one column (dropped after).
Tensor batched_product(const Tensor& a, const Tensor& b) {
  Tensor A = a.dim() == 1 ? unsqueeze(a, 0) : a, B = b.dim() == 1 ? unsqueeze(b, 1) : b;
  DimVec ba = leading(A.sizes(), A.dim() - 2), bb = leading(B.sizes(), B.dim() - 2), batch;
  TOCHA_CHECK(broadcast_shapes(ba, bb, &batch), kMatmul, "the batch dims of a (", shape_str(ba), ") and b (",
              shape_str(bb), ") do not broadcast (a is ", shape_str(a.sizes()), ", b is ", shape_str(b.sizes()), ")");
  const int64_t n = A.size(A.dim() - 2), k = A.size(A.dim() - 1), p = B.size(B.dim() - 1);
  const int64_t count = shape_numel(batch, kMatmul);  // broadcast batch dims can overflow int64
  Tensor r = bmm(as_batch(A, batch, count, n, k), as_batch(B, batch, count, k, p));
  DimVec shape = batch;
  if (a.dim() > 1) shape.push_back(n);
  if (b.dim() > 1) shape.push_back(p);
  return view(r, shape);
}

// An integer sum is an i64 tensor (Note [Reduction results]); products keep the operands' dtype.
Tensor sum_keep_dtype(const Tensor& t, int64_t dim) { return to_dtype(sum(t, dim, true), t.dtype()); }

}  // namespace

Tensor permuted(const Tensor& t, const DimVec& perm) {
  for (int i = 0; i < perm.size(); ++i)
    if (perm[i] != i) return permute(t, perm);
  return t;
}

void check_product_dtype(const char* op, DType dt) {
  TOCHA_CHECK(dt != DType::b8, op, "no matrix product for torch.BoolTensors (convert them to a ByteTensor or a ",
              "floating-point type)");
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_matmul(a, b);
  const int da = a.dim(), db = b.dim();
  if (da <= 2 && db <= 2) {
    if (da == 1 && db == 1) return dot(a, b);
    if (da == 2 && db == 1) return mv(a, b);
    if (da == 1) return mv(transpose(b, 0, 1), a);
    return mm(a, b);
  }
  if (db <= 2) {
    Tensor r = folded_product(a, b, false);
    if (r.defined()) return r;
    if (!batch_dims_merge(a)) return folded_product(a, b, true);
  }
  return batched_product(a, b);
}

void matmul_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_matmul(a, b);
  linalg::check_out(kMatmul, out, a.dtype(), a.device());
  if (a.dim() == 2 && b.dim() == 2) return mm_out(out, a, b);
  if (a.dim() == 2 && b.dim() == 1) return mv_out(out, a, b);
  Tensor r = matmul(a, b);  // computed before out is resized: out may alias a or b
  if (out.sizes() != r.sizes()) resize_(out, r.sizes());
  copy_(out, r);
}

static void check_outer(const Tensor& a, const Tensor& b) {
  linalg::check_dim("outer", "a", a, 1);
  linalg::check_dim("outer", "b", b, 1);
  linalg::check_same_type("outer", "a", a, "b", b);
  check_product_dtype("outer", a.dtype());
}
Tensor outer(const Tensor& a, const Tensor& b) {
  check_outer(a, b);
  return ger(a, b);
}
void outer_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_outer(a, b);
  linalg::check_out("outer", out, a.dtype(), a.device());
  ger_out(out, a, b);
}

Tensor tensordot(const Tensor& a_, const Tensor& b_, const DimVec& dims_a, const DimVec& dims_b) {
  const char* op = "tensordot";
  const int n = dims_a.size();
  TOCHA_CHECK(n == dims_b.size(), op, "got ", n, " dims of a but ", dims_b.size(), " dims of b to contract");
  linalg::check_same_type(op, "a", a_, "b", b_);
  check_product_dtype(op, a_.dtype());
  TOCHA_CHECK(n <= a_.dim() && n <= b_.dim(), op, "cannot contract ", n, " dims of a (", sizes_of(a_),
              ") with b (", sizes_of(b_), ")");
  Tensor a = a_, b = b_;
  bool in_a[kMaxDims] = {}, in_b[kMaxDims] = {};
  DimVec ca, cb;
  for (int i = 0; i < n; ++i) {
    int da = wrap_dim(dims_a[i], a.dim(), op), db = wrap_dim(dims_b[i], b.dim(), op);
    TOCHA_CHECK(!in_a[da], op, "dim ", da + 1, " of a appears twice in the dims to contract");
    TOCHA_CHECK(!in_b[db], op, "dim ", db + 1, " of b appears twice in the dims to contract");
    in_a[da] = in_b[db] = true;
    ca.push_back(da);
    cb.push_back(db);
    int64_t sa = a.size(da), sb = b.size(db);
    if (sa == sb) continue;
    // PyTorch's rule: a size-1 dim pairs with any size, the other side summed over it.
    TOCHA_CHECK(sa == 1 || sb == 1, op, "dim ", da + 1, " of a has size ", sa, " but dim ", db + 1, " of b has size ",
                sb, " (a is ", shape_str(a_.sizes()), ", b is ", shape_str(b_.sizes()), ")");
    if (sa == 1) b = sum_keep_dtype(b, db);
    else a = sum_keep_dtype(a, da);
  }
  DimVec perm_a, perm_b, shape;
  int64_t fa = 1, fb = 1, k = 1;
  for (int d = 0; d < a.dim(); ++d)
    if (!in_a[d]) {
      perm_a.push_back(d);
      shape.push_back(a.size(d));
      fa *= a.size(d);
    }
  for (int i = 0; i < n; ++i) {
    perm_a.push_back(ca[i]);
    perm_b.push_back(cb[i]);
    k *= a.size(ca[i]);
  }
  for (int d = 0; d < b.dim(); ++d)
    if (!in_b[d]) {
      perm_b.push_back(d);
      shape.push_back(b.size(d));
      fb *= b.size(d);
    }
  Tensor r = mm(reshape(permuted(a, perm_a), {fa, k}), reshape(permuted(b, perm_b), {k, fb}));
  return view(r, shape);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t n) {
  TOCHA_CHECK(n >= 0 && n <= a.dim() && n <= b.dim(), "tensordot", "cannot contract the last ", n,
              " dims of a (", sizes_of(a), ") with the first ", n, " of b (", sizes_of(b), ")");
  DimVec da, db;
  for (int64_t i = 0; i < n; ++i) {
    da.push_back(a.dim() - n + i);
    db.push_back(i);
  }
  return tensordot(a, b, da, db);
}

}  // namespace tocha
