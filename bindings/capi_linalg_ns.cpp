// C ABI of torch.linalg's batched decompositions and solvers (bindings/tocha_linalg_ns.h).
#include "capi.h"
#include "core/ops/linalg_decomp.h"
#include "core/ops/linalg_extra.h"
#include "core/ops/linalg_ldl.h"
#include "core/ops/linalg_lu.h"

using namespace tocha;
using namespace tocha::capi;

namespace {
void check_slots(const char* op, std::initializer_list<tocha_tensor**> slots) {
  for (tocha_tensor** s : slots) TOCHA_CHECK(s, op, "result pointer is NULL");
}
}  // namespace

tocha_tensor* tocha_linalg_cholesky(const tocha_tensor* a, int upper) noexcept {
  return guard_tensor([&] { return linalg_cholesky(arg(a, "linalg.cholesky"), upper != 0); });
}

int tocha_linalg_eigh(const tocha_tensor* a, int upper, tocha_tensor** values, tocha_tensor** vectors) noexcept {
  return guard_int([&] {
    check_slots("linalg.eigh", {values, vectors});
    EighResult r = linalg_eigh(arg(a, "linalg.eigh"), upper != 0);
    *values = r.values.release();
    *vectors = r.vectors.release();
  });
}

int tocha_linalg_svd(const tocha_tensor* a, int full_matrices, tocha_tensor** u, tocha_tensor** s,
                     tocha_tensor** vh) noexcept {
  return guard_int([&] {
    check_slots("linalg.svd", {u, s, vh});
    LinalgSvdResult r = linalg_svd(arg(a, "linalg.svd"), full_matrices != 0);
    *u = r.u.release();
    *s = r.s.release();
    *vh = r.vh.release();
  });
}

int tocha_linalg_qr(const tocha_tensor* a, const char* mode, tocha_tensor** q, tocha_tensor** r) noexcept {
  return guard_int([&] {
    check_slots("linalg.qr", {q, r});
    TOCHA_CHECK(mode, "linalg.qr", "mode is NULL");
    LinalgQrResult f = linalg_qr(arg(a, "linalg.qr"), mode);
    *q = f.q.release();
    *r = f.r.release();
  });
}

tocha_tensor* tocha_linalg_inv(const tocha_tensor* a) noexcept {
  return guard_tensor([&] { return linalg_inv(arg(a, "linalg.inv")); });
}

tocha_tensor* tocha_linalg_solve(const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return guard_tensor([&] { return linalg_solve(arg(a, "linalg.solve"), arg(b, "linalg.solve")); });
}

tocha_tensor* tocha_linalg_vector_norm(const tocha_tensor* x, double ord, int ndims, const int64_t* dims,
                                       int keepdim) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(ndims >= 0 && ndims <= kMaxDims && (dims || ndims == 0), "linalg.vector_norm", "bad dim list");
    return linalg_vector_norm(arg(x, "linalg.vector_norm"), ord, DimVec(dims, ndims), keepdim != 0);
  });
}
tocha_tensor* tocha_linalg_matrix_norm(const tocha_tensor* a, int kind, double ord, int64_t d0, int64_t d1,
                                       int keepdim) noexcept {
  return guard_tensor(
      [&] { return linalg_matrix_norm(arg(a, "linalg.matrix_norm"), char(kind), ord, d0, d1, keepdim != 0); });
}
tocha_tensor* tocha_linalg_matrix_rank(const tocha_tensor* a, double atol, double rtol, int hermitian) noexcept {
  return guard_tensor([&] { return linalg_matrix_rank(arg(a, "linalg.matrix_rank"), atol, rtol, hermitian != 0); });
}
tocha_tensor* tocha_linalg_pinv(const tocha_tensor* a, double rtol, int hermitian) noexcept {
  return guard_tensor([&] { return linalg_pinv(arg(a, "linalg.pinv"), rtol, hermitian != 0); });
}
tocha_tensor* tocha_linalg_matrix_power(const tocha_tensor* a, int64_t n) noexcept {
  return guard_tensor([&] { return linalg_matrix_power(arg(a, "linalg.matrix_power"), n); });
}
tocha_tensor* tocha_linalg_matrix_exp(const tocha_tensor* a) noexcept {
  return guard_tensor([&] { return linalg_matrix_exp(arg(a, "linalg.matrix_exp")); });
}
int tocha_linalg_lstsq(const tocha_tensor* a, const tocha_tensor* b, double rcond, tocha_tensor** x,
                       tocha_tensor** residuals, tocha_tensor** rank, tocha_tensor** sv) noexcept {
  return guard_int([&] {
    check_slots("linalg.lstsq", {x, residuals, rank, sv});
    LstsqResult r = linalg_lstsq(arg(a, "linalg.lstsq"), arg(b, "linalg.lstsq"), rcond);
    *x = r.solution.release();
    *residuals = r.residuals.release();
    *rank = r.rank.release();
    *sv = r.singular_values.release();
  });
}
tocha_tensor* tocha_linalg_solve_triangular(const tocha_tensor* a, const tocha_tensor* b, int upper, int left,
                                            int unitriangular) noexcept {
  return guard_tensor([&] {
    return linalg_solve_triangular(arg(a, "linalg.solve_triangular"), arg(b, "linalg.solve_triangular"), upper != 0,
                                   left != 0, unitriangular != 0);
  });
}
tocha_tensor* tocha_linalg_cond(const tocha_tensor* a, int kind, double ord) noexcept {
  return guard_tensor([&] { return linalg_cond(arg(a, "linalg.cond"), char(kind), ord); });
}
tocha_tensor* tocha_linalg_vander(const tocha_tensor* x, int64_t n) noexcept {
  return guard_tensor([&] { return linalg_vander(arg(x, "linalg.vander"), n); });
}

int tocha_linalg_lu_factor(const tocha_tensor* a, tocha_tensor** lu, tocha_tensor** pivots) noexcept {
  return guard_int([&] {
    check_slots("linalg.lu_factor", {lu, pivots});
    LuFactorResult r = linalg_lu_factor(arg(a, "linalg.lu_factor"));
    *lu = r.lu.release();
    *pivots = r.pivots.release();
  });
}
int tocha_linalg_lu_unpack(const tocha_tensor* lu, const tocha_tensor* pivots, tocha_tensor** p, tocha_tensor** l,
                           tocha_tensor** u) noexcept {
  return guard_int([&] {
    check_slots("linalg.lu_unpack", {p, l, u});
    LuResult r = linalg_lu_unpack(arg(lu, "linalg.lu_unpack"), arg(pivots, "linalg.lu_unpack"));
    *p = r.p.release();
    *l = r.l.release();
    *u = r.u.release();
  });
}
tocha_tensor* tocha_linalg_lu_solve(const tocha_tensor* lu, const tocha_tensor* pivots, const tocha_tensor* b) noexcept {
  return guard_tensor([&] {
    return linalg_lu_solve(arg(lu, "linalg.lu_solve"), arg(pivots, "linalg.lu_solve"), arg(b, "linalg.lu_solve"));
  });
}
int tocha_linalg_lu(const tocha_tensor* a, tocha_tensor** p, tocha_tensor** l, tocha_tensor** u) noexcept {
  return guard_int([&] {
    check_slots("linalg.lu", {p, l, u});
    LuResult r = linalg_lu(arg(a, "linalg.lu"));
    *p = r.p.release();
    *l = r.l.release();
    *u = r.u.release();
  });
}

int tocha_linalg_ldl_factor(const tocha_tensor* a, tocha_tensor** ld, tocha_tensor** pivots,
                            tocha_tensor** info) noexcept {
  return guard_int([&] {
    check_slots("linalg.ldlFactor", {ld, pivots, info});
    LdlFactorResult r = linalg_ldl_factor(arg(a, "linalg.ldlFactor"));
    *ld = r.ld.release();
    *pivots = r.pivots.release();
    *info = r.info.release();
  });
}
tocha_tensor* tocha_linalg_ldl_solve(const tocha_tensor* ld, const tocha_tensor* pivots, const tocha_tensor* b) noexcept {
  return guard_tensor([&] {
    return linalg_ldl_solve(arg(ld, "linalg.ldlSolve"), arg(pivots, "linalg.ldlSolve"), arg(b, "linalg.ldlSolve"));
  });
}
