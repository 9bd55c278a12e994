// LAPACK op front-ends: checks, column-major working copies, the kernel call, numerical failures
// turned into errors, and the results copied back row-major. See lapack.h.
//
// Note [Row-major LAPACK]: tensors are row-major and LAPACK is column-major. Each op copies its
// inputs into column-major working matrices (a contiguous cols x ld buffer whose transpose is the
// matrix, as Torch7's cloneColumnMajor did), lets LAPACK factor them in place, and copies the
// results into new row-major tensors or the caller's. The O(n^2) copies are small next to the
// O(n^3) factorizations, and they leave the inputs untouched, so results may alias inputs.
// The working matrices live on the inputs' device (Note [LAPACK on CUDA], lapack_kernels.h).
#include "core/ops/lapack.h"
#include "core/autograd/record.h"
#include <algorithm>
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "core/ops/lapack_work.h"
#include "core/ops/linalg_util.h"
#include "core/ops/views.h"

namespace tocha {

using namespace linalg;
using namespace lapack_work;

namespace {

// B as a matrix: Torch7 treats a vector right-hand side as one column.
Tensor rhs_matrix(const Tensor& b) { return b.dim() == 1 ? unsqueeze(b, 1) : b; }

// A new row-major copy of view, or view copied into *out (resized).
Tensor deliver(const Tensor* out, const Tensor& view) {
  if (!out) return clone(view);
  resize_(*out, view.sizes());
  copy_(*out, view);
  return *out;
}

// B must be a vector or matrix of A's type with as many rows as A.
void check_rhs(const char* op, const Tensor& B, const char* an, const Tensor& A) {
  TOCHA_CHECK(B.dim() == 1 || B.dim() == 2, op, "B must be 1D or 2D, got ",
              B.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(B.sizes()));
  check_same_type(op, an, A, "B", B);
  TOCHA_CHECK(B.size(0) == A.size(0), op, an, " is ", shape_str(A.sizes()), " but B is ", shape_str(B.sizes()),
              " (they need the same number of rows)");
  if (B.dim() == 2) check_blas_size(op, B.size(1));
}

void check_results(const char* op, std::initializer_list<const Tensor*> outs, const Tensor& A) {
  for (const Tensor* o : outs) check_out(op, *o, A.dtype(), A.device());
}

// An n x n identity on dev (built on the CPU and copied: only empty SVDs need it).
Tensor identity(int64_t n, DType dt, Device dev) {
  Tensor e = zeros(DimVec{n, n}, dt);
  for (int64_t i = 0; i < n; ++i) set_item_at(e, i * n + i, 1);
  if (dev.type == DeviceType::cpu) return e;
  Tensor d = empty(DimVec{n, n}, dt, dev);
  copy_(d, e);
  return d;
}

GesvResult gesv_compute(const Tensor* x_out, const Tensor* lu_out, const Tensor& B, const Tensor& A) {
  check_matrix("gesv", "A", A, true);
  check_rhs("gesv", B, "A", A);
  if (x_out) check_results("gesv", {x_out, lu_out}, A);
  auto kernel = kernel_for<GesvKernel>(OpId::gesv, A.device().type, A.dtype());
  ColMajor a = col_major_copy(A), b = col_major_copy(rhs_matrix(B));
  if (a.rows > 0) {
    int info = kernel(a.rows, b.cols, a.data(), a.ld, b.data(), b.ld);
    check_info_args("gesv", info);
    TOCHA_CHECK(info == 0, "gesv", "A is singular: U(", info, ",", info, ") of its LU factorization is zero");
  }
  return {deliver(x_out, b.view()), deliver(lu_out, a.view())};
}

GelsResult gels_compute(const Tensor* x_out, const Tensor* f_out, const Tensor& B, const Tensor& A) {
  check_matrix("gels", "A", A, false);
  check_rhs("gels", B, "A", A);
  if (x_out) check_results("gels", {x_out, f_out}, A);
  auto kernel = kernel_for<GelsKernel>(OpId::gels, A.device().type, A.dtype());
  const int64_t m = A.size(0), n = A.size(1), rows = std::max(m, n);
  ColMajor a = col_major_copy(A), b = col_major_copy(rhs_matrix(B), rows);
  ColMajor x = b;
  x.rows = rows;
  if (m == 0 || n == 0 || b.cols == 0) {
    fill_(b.buf, 0);  // LAPACK's answer for an empty system
  } else {
    int info = kernel(m, n, b.cols, a.data(), a.ld, b.data(), b.ld);
    check_info_args("gels", info);
    TOCHA_CHECK(info == 0, "gels", "A does not have full rank: diagonal element ", info,
                " of its triangular factor is zero");
  }
  return {deliver(x_out, x.view()), deliver(f_out, a.view())};
}

Tensor inverse_compute(const Tensor* out, const Tensor& A) {
  check_matrix("inverse", "A", A, true);
  if (out) check_results("inverse", {out}, A);
  auto kernel = kernel_for<InverseKernel>(OpId::inverse, A.device().type, A.dtype());
  ColMajor a = col_major_copy(A);
  if (a.rows > 0) {
    int info = kernel(a.rows, a.data(), a.ld);
    check_info_args("inverse", info);
    TOCHA_CHECK(info == 0, "inverse", "A is singular: U(", info, ",", info, ") of its LU factorization is zero");
  }
  return deliver(out, a.view());
}

Tensor potrf_compute(const Tensor* out, const Tensor& A, bool upper) {
  check_matrix("potrf", "A", A, true);
  if (out) check_results("potrf", {out}, A);
  auto kernel = kernel_for<PotrfKernel>(OpId::potrf, A.device().type, A.dtype());
  ColMajor a = col_major_copy(A);
  if (a.rows > 0) {
    int info = kernel(upper, a.rows, a.data(), a.ld);
    check_info_args("potrf", info);
    TOCHA_CHECK(info == 0, "potrf", "A is not positive definite: its leading minor of order ", info,
                " is not positive");
  }
  return deliver(out, a.view());
}

Tensor potrs_compute(const Tensor* out, const Tensor& B, const Tensor& chol, bool upper) {
  check_matrix("potrs", "chol", chol, true);
  check_rhs("potrs", B, "chol", chol);
  if (out) check_results("potrs", {out}, chol);
  auto kernel = kernel_for<PotrsKernel>(OpId::potrs, chol.device().type, chol.dtype());
  ColMajor c = col_major_copy(chol), b = col_major_copy(rhs_matrix(B));
  if (c.rows > 0) check_info_args("potrs", kernel(upper, c.rows, b.cols, c.data(), c.ld, b.data(), b.ld));
  return deliver(out, b.view());
}

SymeigResult symeig_compute(const Tensor* e_out, const Tensor* v_out, const Tensor& A, bool vectors, bool upper) {
  check_matrix("symeig", "A", A, true);
  if (e_out) check_results("symeig", {e_out, v_out}, A);
  auto kernel = kernel_for<SymeigKernel>(OpId::symeig, A.device().type, A.dtype());
  ColMajor a = col_major_copy(A);
  Tensor w = empty(DimVec{a.rows}, A.dtype(), A.device());
  if (a.rows > 0) {
    int info = kernel(vectors, upper, a.rows, a.data(), a.ld, w.raw_data());
    check_info_args("symeig", info);
    TOCHA_CHECK(info == 0, "symeig", "the eigenvalue algorithm did not converge (LAPACK info ", info, ")");
  }
  Tensor v = vectors ? a.view() : empty(DimVec{0}, A.dtype(), A.device());
  return {deliver(e_out, w), deliver(v_out, v)};
}

SvdResult svd_compute(const Tensor* u_out, const Tensor* s_out, const Tensor* v_out, const Tensor& A, bool some) {
  check_matrix("svd", "A", A, false);
  if (u_out) check_results("svd", {u_out, s_out, v_out}, A);
  auto kernel = kernel_for<SvdKernel>(OpId::svd, A.device().type, A.dtype());
  const int64_t m = A.size(0), n = A.size(1), k = std::min(m, n);
  const int64_t ucols = some ? k : m, vrows = some ? k : n;
  const Device dev = A.device();
  Tensor s = empty(DimVec{k}, A.dtype(), dev);
  if (k == 0) {  // LAPACK returns at once; the full bases of an empty matrix are identities
    Tensor u = some ? empty(DimVec{m, 0}, A.dtype(), dev) : identity(m, A.dtype(), dev);
    Tensor v = some ? empty(DimVec{n, 0}, A.dtype(), dev) : identity(n, A.dtype(), dev);
    return {deliver(u_out, u), deliver(s_out, s), deliver(v_out, v)};
  }
  check_finite_input("svd", A);  // Note [Non-finite input to iterative LAPACK]
  ColMajor a = col_major_copy(A);
  ColMajor u = col_major_empty(m, ucols, A.dtype(), dev), vt = col_major_empty(vrows, n, A.dtype(), dev);
  int info = kernel(!some, m, n, a.data(), a.ld, s.raw_data(), u.data(), u.ld, vt.data(), vt.ld);
  check_info_args("svd", info);
  TOCHA_CHECK(info == 0, "svd", "the SVD algorithm did not converge (LAPACK info ", info, ")");
  return {deliver(u_out, u.view()), deliver(s_out, s), deliver(v_out, transpose(vt.view(), 0, 1))};
}

QrResult qr_compute(const Tensor* q_out, const Tensor* r_out, const Tensor& A) {
  check_matrix("qr", "A", A, false);
  if (q_out) check_results("qr", {q_out, r_out}, A);
  auto kernel = kernel_for<QrKernel>(OpId::qr, A.device().type, A.dtype());
  const int64_t m = A.size(0), n = A.size(1), k = std::min(m, n);
  const Device dev = A.device();
  if (k == 0)
    return {deliver(q_out, empty(DimVec{m, 0}, A.dtype(), dev)), deliver(r_out, empty(DimVec{0, n}, A.dtype(), dev))};
  ColMajor a = col_major_copy(A), r = col_major_empty(k, n, A.dtype(), dev);
  check_info_args("qr", kernel(m, n, a.data(), a.ld, r.data(), r.ld));
  return {deliver(q_out, narrow(a.view(), 1, 0, k)), deliver(r_out, r.view())};
}

// Note [Recording LAPACK ops]: gesv and inverse are differentiable (gesv: inputs (B, A), saved
// A in slot 1 and X in slot 2; inverse: the result in slot 1); the others run with recording
// off so their results never carry a partial history.
GesvResult gesv_impl(const Tensor* x_out, const Tensor* lu_out, const Tensor& B, const Tensor& A) {
  autograd::Recording rec(OpId::gesv, x_out, {&B, &A});
  const Tensor kA = rec.keep(A, lu_out);  // Note [Results written into inputs]: gesv(b, a, b, a)
  GesvResult r = gesv_compute(x_out, lu_out, B, A);
  if (auto n = rec.finish({&B, &A}, {&r.solution})) {
    n->save(Tensor());
    n->save(kA);
    n->save(r.solution, true);
  }
  return r;
}
Tensor inverse_impl(const Tensor* out, const Tensor& A) {
  autograd::Recording rec(OpId::inverse, out, {&A});
  Tensor r = inverse_compute(out, A);
  if (auto n = rec.finish({&A}, {&r})) {
    n->save(Tensor());
    n->save(r, true);
  }
  return r;
}
GelsResult gels_impl(const Tensor* x_out, const Tensor* f_out, const Tensor& B, const Tensor& A) {
  autograd::Recording rec(OpId::gels, x_out, {&B, &A});
  GelsResult r = gels_compute(x_out, f_out, B, A);
  rec.finish({&B, &A}, {&r.solution});
  return r;
}
Tensor potrf_impl(const Tensor* out, const Tensor& A, bool upper) {
  autograd::Recording rec(OpId::potrf, out, {&A});
  Tensor r = potrf_compute(out, A, upper);
  rec.finish({&A}, {&r});
  return r;
}
Tensor potrs_impl(const Tensor* out, const Tensor& B, const Tensor& chol, bool upper) {
  autograd::Recording rec(OpId::potrs, out, {&B, &chol});
  Tensor r = potrs_compute(out, B, chol, upper);
  rec.finish({&B, &chol}, {&r});
  return r;
}
SymeigResult symeig_impl(const Tensor* e_out, const Tensor* v_out, const Tensor& A, bool vectors, bool upper) {
  autograd::Recording rec(OpId::symeig, e_out, {&A});
  SymeigResult r = symeig_compute(e_out, v_out, A, vectors, upper);
  rec.finish({&A}, {&r.values});
  return r;
}
SvdResult svd_impl(const Tensor* u_out, const Tensor* s_out, const Tensor* v_out, const Tensor& A, bool some) {
  autograd::Recording rec(OpId::svd, s_out, {&A});
  SvdResult r = svd_compute(u_out, s_out, v_out, A, some);
  rec.finish({&A}, {&r.s});
  return r;
}
QrResult qr_impl(const Tensor* q_out, const Tensor* r_out, const Tensor& A) {
  autograd::Recording rec(OpId::qr, q_out, {&A});
  QrResult r = qr_compute(q_out, r_out, A);
  rec.finish({&A}, {&r.q});
  return r;
}

}  // namespace

GesvResult gesv(const Tensor& B, const Tensor& A) { return gesv_impl(nullptr, nullptr, B, A); }
void gesv_out(const Tensor& x, const Tensor& lu, const Tensor& B, const Tensor& A) { gesv_impl(&x, &lu, B, A); }
GelsResult gels(const Tensor& B, const Tensor& A) { return gels_impl(nullptr, nullptr, B, A); }
void gels_out(const Tensor& x, const Tensor& f, const Tensor& B, const Tensor& A) { gels_impl(&x, &f, B, A); }
Tensor inverse(const Tensor& A) { return inverse_impl(nullptr, A); }
void inverse_out(const Tensor& out, const Tensor& A) { inverse_impl(&out, A); }
Tensor potrf(const Tensor& A, bool upper) { return potrf_impl(nullptr, A, upper); }
void potrf_out(const Tensor& out, const Tensor& A, bool upper) { potrf_impl(&out, A, upper); }
Tensor potrs(const Tensor& B, const Tensor& chol, bool upper) { return potrs_impl(nullptr, B, chol, upper); }
void potrs_out(const Tensor& out, const Tensor& B, const Tensor& chol, bool upper) { potrs_impl(&out, B, chol, upper); }
SymeigResult symeig(const Tensor& A, bool vectors, bool upper) {
  return symeig_impl(nullptr, nullptr, A, vectors, upper);
}
void symeig_out(const Tensor& e, const Tensor& v, const Tensor& A, bool vectors, bool upper) {
  symeig_impl(&e, &v, A, vectors, upper);
}
SvdResult svd(const Tensor& A, bool some) { return svd_impl(nullptr, nullptr, nullptr, A, some); }
void svd_out(const Tensor& u, const Tensor& s, const Tensor& v, const Tensor& A, bool some) {
  svd_impl(&u, &s, &v, A, some);
}
QrResult qr(const Tensor& A) { return qr_impl(nullptr, nullptr, A); }
void qr_out(const Tensor& q, const Tensor& r, const Tensor& A) { qr_impl(&q, &r, A); }

}  // namespace tocha
