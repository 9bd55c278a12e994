// Front-ends of Torch7's remaining LAPACK calls (lapack_t7.h): eig, geqrf, orgqr, ormqr, pstrf.
// Same steps as core/ops/lapack.cpp: checks that name the op, column-major working copies (Note
// [Row-major LAPACK]), one kernel call, numerical failures as errors, row-major results.
//
// Note [Host LAPACK for CUDA tensors]: cuSOLVER has geqrf, orgqr and ormqr, so those run on the
// inputs' device (Note [LAPACK on CUDA]); it has no general eigensolver (geev) and no pivoted
// Cholesky (pstrf) with LAPACK's semantics, so eig and pstrf make their working copies on the
// host, call the CPU kernel, and copy the results back to the input's device. Both are O(n^2)
// copies around an O(n^3) factorization of a matrix small enough to factor on one CPU.
#include "core/ops/lapack_t7.h"
#include <algorithm>
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "core/ops/lapack_work.h"
#include "core/ops/linalg_util.h"
#include "core/ops/views.h"

namespace tocha {

using namespace linalg;
using namespace lapack_work;

namespace {

// A new row-major copy of v on dev, or v copied into *out (resized; on dev, checked before).
Tensor deliver(const Tensor* out, const Tensor& v, Device dev) {
  if (!out) return to_device(clone(v), dev);
  resize_(*out, v.sizes());
  copy_(*out, v);
  return *out;
}

// tau: a vector of A's type with at most min(rows, cols of A) reflector scalars.
void check_tau(const char* op, const Tensor& A, const Tensor& tau) {
  check_dim(op, "tau", tau, 1);
  check_same_type(op, "A", A, "tau", tau);
  const int64_t k = tau.size(0), m = A.size(0), n = A.size(1);
  TOCHA_CHECK(k <= m && k <= n, op, "tau has ", k, " elements but A is ", shape_str(A.sizes()),
              " (at most min(m, n) reflectors)");
}

}  // namespace

EigResult eig(const Tensor& A, bool vectors, const Tensor* e_out, const Tensor* v_out) {
  const char* op = "eig";
  check_matrix(op, "A", A, true);
  for (const Tensor* o : {e_out, v_out})
    if (o) check_out(op, *o, A.dtype(), A.device());
  autograd::Recording rec(OpId::eig, e_out, {&A});
  const Device host{};  // Note [Host LAPACK for CUDA tensors]
  auto kernel = kernel_for<EigKernel>(OpId::eig, DeviceType::cpu, A.dtype());
  const int64_t n = A.size(0);
  check_finite_input(op, A);  // Note [Non-finite input to iterative LAPACK]
  ColMajor a = col_major_copy(A, host), v = col_major_empty(vectors ? n : 0, vectors ? n : 0, A.dtype(), host);
  Tensor w = empty(DimVec{2, n}, A.dtype(), host);  // rows: real parts, imaginary parts
  if (n > 0) {
    int info = kernel(vectors, n, a.data(), a.ld, select(w, 0, 0).raw_data(), select(w, 0, 1).raw_data(),
                      vectors ? v.data() : nullptr, v.ld);
    check_info_args(op, info);
    TOCHA_CHECK(info == 0, op, "the QR algorithm failed to compute all the eigenvalues (LAPACK info ", info, ")");
  }
  EigResult r{deliver(e_out, transpose(w, 0, 1), A.device()),
              deliver(v_out, vectors ? v.view() : empty(DimVec{0}, A.dtype(), host), A.device())};
  rec.finish({&A}, {&r.values});
  return r;
}

GeqrfResult geqrf(const Tensor& A, const Tensor* a_out, const Tensor* tau_out) {
  const char* op = "geqrf";
  check_matrix(op, "A", A, false);
  for (const Tensor* o : {a_out, tau_out})
    if (o) check_out(op, *o, A.dtype(), A.device());
  autograd::Recording rec(OpId::geqrf, a_out, {&A});
  auto kernel = kernel_for<GeqrfKernel>(OpId::geqrf, A.device().type, A.dtype());
  const int64_t m = A.size(0), n = A.size(1), k = std::min(m, n);
  ColMajor a = col_major_copy(A, A.device());
  Tensor tau = empty(DimVec{k}, A.dtype(), A.device());
  if (k > 0) check_info_args(op, kernel(m, n, a.data(), a.ld, tau.raw_data()));
  GeqrfResult r{deliver(a_out, a.view(), A.device()), deliver(tau_out, tau, A.device())};
  rec.finish({&A}, {&r.factored});
  return r;
}

Tensor orgqr(const Tensor& A, const Tensor& tau, const Tensor* out) {
  const char* op = "orgqr";
  check_matrix(op, "A", A, false);
  check_tau(op, A, tau);
  if (out) check_out(op, *out, A.dtype(), A.device());
  autograd::Recording rec(OpId::orgqr, out, {&A, &tau});
  auto kernel = kernel_for<OrgqrKernel>(OpId::orgqr, A.device().type, A.dtype());
  const int64_t m = A.size(0), k = tau.size(0);
  ColMajor q = col_major_copy(narrow(A, 1, 0, k), A.device());
  Tensor t = contiguous(tau);
  if (k > 0) check_info_args(op, kernel(m, k, k, q.data(), q.ld, t.raw_data()));
  Tensor r = deliver(out, q.view(), A.device());
  rec.finish({&A, &tau}, {&r});
  return r;
}

Tensor ormqr(const Tensor& A, const Tensor& tau, const Tensor& C, bool left, bool transpose,
             const Tensor* out) {
  const char* op = "ormqr";
  check_matrix(op, "A", A, false);
  check_tau(op, A, tau);
  check_matrix(op, "C", C, false);
  check_same_type(op, "A", A, "C", C);
  if (out) check_out(op, *out, A.dtype(), A.device());
  const int64_t m = C.size(0), n = C.size(1), nq = left ? m : n, k = tau.size(0);
  TOCHA_CHECK(A.size(0) == nq, op, "A is ", shape_str(A.sizes()), " but C is ", shape_str(C.sizes()),
              " (Q multiplies C from the ", left ? "left, so A needs C's " : "right, so A needs C's ", nq,
              left ? " rows)" : " columns as rows)");
  autograd::Recording rec(OpId::ormqr, out, {&A, &tau, &C});
  auto kernel = kernel_for<OrmqrKernel>(OpId::ormqr, A.device().type, A.dtype());
  ColMajor a = col_major_copy(narrow(A, 1, 0, k), A.device()), c = col_major_copy(C, A.device());
  Tensor t = contiguous(tau);
  if (k > 0 && m > 0 && n > 0)
    check_info_args(op, kernel(left, transpose, m, n, k, a.data(), a.ld, t.raw_data(), c.data(), c.ld));
  Tensor r = deliver(out, c.view(), A.device());
  rec.finish({&A, &tau, &C}, {&r});
  return r;
}

PstrfResult pstrf(const Tensor& A, bool upper, double tol, const Tensor* u_out, const Tensor* piv_out) {
  const char* op = "pstrf";
  check_matrix(op, "A", A, true);
  if (u_out) check_out(op, *u_out, A.dtype(), A.device());
  if (piv_out) check_out(op, *piv_out, DType::i32, A.device());
  autograd::Recording rec(OpId::pstrf, u_out, {&A});
  const Device host{};  // Note [Host LAPACK for CUDA tensors]
  auto kernel = kernel_for<PstrfKernel>(OpId::pstrf, DeviceType::cpu, A.dtype());
  const int64_t n = A.size(0);
  ColMajor a = col_major_copy(A, host);
  Tensor piv = empty(DimVec{n}, DType::i32, host);
  if (n > 0) {
    int64_t rank = 0;
    int info = kernel(upper, n, a.data(), a.ld, static_cast<int32_t*>(piv.raw_data()), &rank, tol);
    check_info_args(op, info);
    TOCHA_CHECK(info == 0, op, "A is not positive semidefinite (a pivot of its Schur complement after ", rank,
                " steps is negative)");
  }
  PstrfResult r{deliver(u_out, a.view(), A.device()), deliver(piv_out, piv, A.device())};
  rec.finish({&A}, {&r.factor});
  return r;
}

}  // namespace tocha
