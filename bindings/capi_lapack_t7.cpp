// C ABI of Torch7's remaining LAPACK calls (bindings/tocha_linalg.h): eig, geqrf, orgqr, ormqr, pstrf.
#include "capi.h"
#include "core/ops/lapack_t7.h"

using namespace tocha;
using namespace tocha::capi;

namespace {

void check_slots(const char* op, std::initializer_list<tocha_tensor**> slots) {
  for (tocha_tensor** s : slots) TOCHA_CHECK(s, op, "result pointer is NULL");
}

}  // namespace

int tocha_eig(const tocha_tensor* a, int vectors, tocha_tensor** e, tocha_tensor** v) noexcept {
  return guard_int([&] {
    check_slots("eig", {e, v});
    EigResult r = eig(arg(a, "eig"), vectors != 0);
    *e = r.values.release();
    *v = r.vectors.release();
  });
}
int tocha_eig_out(tocha_tensor* e, tocha_tensor* v, const tocha_tensor* a, int vectors) noexcept {
  return guard_int([&] {
    const Tensor te = arg(e, "eig"), tv = arg(v, "eig");
    eig(arg(a, "eig"), vectors != 0, &te, &tv);
  });
}

int tocha_geqrf(const tocha_tensor* a, tocha_tensor** f, tocha_tensor** tau) noexcept {
  return guard_int([&] {
    check_slots("geqrf", {f, tau});
    GeqrfResult r = geqrf(arg(a, "geqrf"));
    *f = r.factored.release();
    *tau = r.tau.release();
  });
}
int tocha_geqrf_out(tocha_tensor* f, tocha_tensor* tau, const tocha_tensor* a) noexcept {
  return guard_int([&] {
    const Tensor tf = arg(f, "geqrf"), tt = arg(tau, "geqrf");
    geqrf(arg(a, "geqrf"), &tf, &tt);
  });
}

tocha_tensor* tocha_orgqr(const tocha_tensor* a, const tocha_tensor* tau) noexcept {
  return guard_tensor([&] { return orgqr(arg(a, "orgqr"), arg(tau, "orgqr")); });
}
int tocha_orgqr_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* tau) noexcept {
  return guard_int([&] {
    const Tensor to = arg(out, "orgqr");
    orgqr(arg(a, "orgqr"), arg(tau, "orgqr"), &to);
  });
}

tocha_tensor* tocha_ormqr(const tocha_tensor* a, const tocha_tensor* tau, const tocha_tensor* c, int left,
                          int transpose) noexcept {
  return guard_tensor(
      [&] { return ormqr(arg(a, "ormqr"), arg(tau, "ormqr"), arg(c, "ormqr"), left != 0, transpose != 0); });
}
int tocha_ormqr_out(tocha_tensor* out, const tocha_tensor* a, const tocha_tensor* tau, const tocha_tensor* c,
                    int left, int transpose) noexcept {
  return guard_int([&] {
    const Tensor to = arg(out, "ormqr");
    ormqr(arg(a, "ormqr"), arg(tau, "ormqr"), arg(c, "ormqr"), left != 0, transpose != 0, &to);
  });
}

int tocha_pstrf(const tocha_tensor* a, int upper, double tol, tocha_tensor** u, tocha_tensor** piv) noexcept {
  return guard_int([&] {
    check_slots("pstrf", {u, piv});
    PstrfResult r = pstrf(arg(a, "pstrf"), upper != 0, tol);
    *u = r.factor.release();
    *piv = r.pivots.release();
  });
}
int tocha_pstrf_out(tocha_tensor* u, tocha_tensor* piv, const tocha_tensor* a, int upper, double tol) noexcept {
  return guard_int([&] {
    const Tensor tu = arg(u, "pstrf"), tp = arg(piv, "pstrf");
    pstrf(arg(a, "pstrf"), upper != 0, tol, &tu, &tp);
  });
}
