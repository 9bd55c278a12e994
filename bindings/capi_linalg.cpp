// C ABI of the linalg ops (bindings/tocha_linalg.h): BLAS products and LAPACK factorizations.
#include "capi.h"
#include "core/ops/det.h"
#include "core/ops/lapack.h"
#include "core/ops/linalg.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

// Results returned through out-pointers: all are checked before any is written, and each gets one
// reference only when the whole call succeeded.
void check_result_slots(const char* op, std::initializer_list<tocha_tensor**> slots) {
  for (tocha_tensor** s : slots) TOCHA_CHECK(s, op, "result pointer is NULL");
}

}  // namespace

// ---- BLAS ---------------------------------------------------------------------------------------

tocha_tensor* tocha_dot(const tocha_tensor* x, const tocha_tensor* y) noexcept {
  return guard_tensor([&] { return dot(arg(x, "dot"), arg(y, "dot")); });
}

#define CAPI_PRODUCT(name)                                                                              \
  tocha_tensor* tocha_##name(const tocha_tensor* a, const tocha_tensor* b) noexcept {                  \
    return guard_tensor([&] { return name(arg(a, #name), arg(b, #name)); });                            \
  }                                                                                                     \
  int tocha_##name##_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* b) noexcept {   \
    return guard_int([&] { name##_out(arg(out, #name), arg(a, #name), arg(b, #name)); });               \
  }
#define CAPI_ADD_PRODUCT(name)                                                                          \
  tocha_tensor* tocha_##name(double beta, const tocha_tensor* m, double alpha, const tocha_tensor* a,  \
                             const tocha_tensor* b) noexcept {                                          \
    return guard_tensor([&] { return name(beta, arg(m, #name), alpha, arg(a, #name), arg(b, #name)); }); \
  }                                                                                                     \
  int tocha_##name##_out(tocha_tensor* out, double beta, const tocha_tensor* m, double alpha,           \
                         const tocha_tensor* a, const tocha_tensor* b) noexcept {                       \
    return guard_int(                                                                                   \
        [&] { name##_out(arg(out, #name), beta, arg(m, #name), alpha, arg(a, #name), arg(b, #name)); }); \
  }

CAPI_PRODUCT(mv)
CAPI_PRODUCT(mm)
CAPI_PRODUCT(bmm)
CAPI_PRODUCT(ger)
CAPI_ADD_PRODUCT(addmm)
CAPI_ADD_PRODUCT(addmv)
CAPI_ADD_PRODUCT(addr)
CAPI_ADD_PRODUCT(addbmm)
CAPI_ADD_PRODUCT(baddbmm)

// ---- LAPACK -------------------------------------------------------------------------------------

int tocha_gesv(const tocha_tensor* b, const tocha_tensor* a, tocha_tensor** x, tocha_tensor** lu) noexcept {
  return guard_int([&] {
    check_result_slots("gesv", {x, lu});
    GesvResult r = gesv(arg(b, "gesv"), arg(a, "gesv"));
    *x = r.solution.release();
    *lu = r.lu.release();
  });
}
int tocha_gesv_out(tocha_tensor* x, tocha_tensor* lu, const tocha_tensor* b, const tocha_tensor* a) noexcept {
  return guard_int([&] { gesv_out(arg(x, "gesv"), arg(lu, "gesv"), arg(b, "gesv"), arg(a, "gesv")); });
}

int tocha_gels(const tocha_tensor* b, const tocha_tensor* a, tocha_tensor** x, tocha_tensor** f) noexcept {
  return guard_int([&] {
    check_result_slots("gels", {x, f});
    GelsResult r = gels(arg(b, "gels"), arg(a, "gels"));
    *x = r.solution.release();
    *f = r.factored.release();
  });
}
int tocha_gels_out(tocha_tensor* x, tocha_tensor* f, const tocha_tensor* b, const tocha_tensor* a) noexcept {
  return guard_int([&] { gels_out(arg(x, "gels"), arg(f, "gels"), arg(b, "gels"), arg(a, "gels")); });
}

tocha_tensor* tocha_inverse(const tocha_tensor* a) noexcept {
  return guard_tensor([&] { return inverse(arg(a, "inverse")); });
}
int tocha_inverse_out(tocha_tensor* out, const tocha_tensor* a) noexcept {
  return guard_int([&] { inverse_out(arg(out, "inverse"), arg(a, "inverse")); });
}

tocha_tensor* tocha_potrf(const tocha_tensor* a, int upper) noexcept {
  return guard_tensor([&] { return potrf(arg(a, "potrf"), upper != 0); });
}
int tocha_potrf_out(tocha_tensor* out, const tocha_tensor* a, int upper) noexcept {
  return guard_int([&] { potrf_out(arg(out, "potrf"), arg(a, "potrf"), upper != 0); });
}

tocha_tensor* tocha_potrs(const tocha_tensor* b, const tocha_tensor* chol, int upper) noexcept {
  return guard_tensor([&] { return potrs(arg(b, "potrs"), arg(chol, "potrs"), upper != 0); });
}
int tocha_potrs_out(tocha_tensor* out, const tocha_tensor* b, const tocha_tensor* chol, int upper) noexcept {
  return guard_int([&] { potrs_out(arg(out, "potrs"), arg(b, "potrs"), arg(chol, "potrs"), upper != 0); });
}

int tocha_symeig(const tocha_tensor* a, int vectors, int upper, tocha_tensor** e, tocha_tensor** v) noexcept {
  return guard_int([&] {
    check_result_slots("symeig", {e, v});
    SymeigResult r = symeig(arg(a, "symeig"), vectors != 0, upper != 0);
    *e = r.values.release();
    *v = r.vectors.release();
  });
}
int tocha_symeig_out(tocha_tensor* e, tocha_tensor* v, const tocha_tensor* a, int vectors, int upper) noexcept {
  return guard_int(
      [&] { symeig_out(arg(e, "symeig"), arg(v, "symeig"), arg(a, "symeig"), vectors != 0, upper != 0); });
}

int tocha_svd(const tocha_tensor* a, int some, tocha_tensor** u, tocha_tensor** s, tocha_tensor** v) noexcept {
  return guard_int([&] {
    check_result_slots("svd", {u, s, v});
    SvdResult r = svd(arg(a, "svd"), some != 0);
    *u = r.u.release();
    *s = r.s.release();
    *v = r.v.release();
  });
}
int tocha_svd_out(tocha_tensor* u, tocha_tensor* s, tocha_tensor* v, const tocha_tensor* a, int some) noexcept {
  return guard_int([&] { svd_out(arg(u, "svd"), arg(s, "svd"), arg(v, "svd"), arg(a, "svd"), some != 0); });
}

int tocha_qr(const tocha_tensor* a, tocha_tensor** q, tocha_tensor** r) noexcept {
  return guard_int([&] {
    check_result_slots("qr", {q, r});
    QrResult res = qr(arg(a, "qr"));
    *q = res.q.release();
    *r = res.r.release();
  });
}
int tocha_qr_out(tocha_tensor* q, tocha_tensor* r, const tocha_tensor* a) noexcept {
  return guard_int([&] { qr_out(arg(q, "qr"), arg(r, "qr"), arg(a, "qr")); });
}

// ---- determinants ------------------------------------------------------------------------------
tocha_tensor* tocha_det(const tocha_tensor* a) noexcept {
  return guard_tensor([&] { return det(arg(a, "det")); });
}
int tocha_slogdet(const tocha_tensor* a, tocha_tensor** sign, tocha_tensor** logabsdet) noexcept {
  return guard_int([&] {
    check_result_slots("slogdet", {sign, logabsdet});
    SlogdetResult r = slogdet(arg(a, "slogdet"));
    *sign = r.sign.release();
    *logabsdet = r.logabsdet.release();
  });
}
tocha_tensor* tocha_logdet(const tocha_tensor* a) noexcept {
  return guard_tensor([&] { return logdet(arg(a, "logdet")); });
}
