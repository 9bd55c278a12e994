// CPU kernels of the LAPACK decompositions: symeig (syevd), svd (gesdd) and qr (geqrf + orgqr),
// for f32 and f64. Column-major in place; they return LAPACK's info (core/ops/lapack_kernels.h).
#include <algorithm>
#include <cmath>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "kernels/cpu/lapack_fortran.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> int queried_size(T w) { return std::max(1, int(std::ceil(double(w)))); }

template <class T> int symeig_kernel(bool vectors, bool upper, int64_t n, void* ap, int64_t lda, void* wp) {
  T* a = static_cast<T*>(ap);
  T* w = static_cast<T*>(wp);
  const char jobz = vectors ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  T query = 0;
  int iquery = 0;
  int info = lapack::syevd(jobz, uplo, int(n), a, int(lda), w, &query, -1, &iquery, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(queried_size(query)));
  std::vector<int> iwork(size_t(std::max(1, iquery)));
  return lapack::syevd(jobz, uplo, int(n), a, int(lda), w, work.data(), int(work.size()), iwork.data(),
                       int(iwork.size()));
}

template <class T>
int svd_kernel(bool all, int64_t m, int64_t n, void* a, int64_t lda, void* s, void* u, int64_t ldu, void* vt,
               int64_t ldvt) {
  const char jobz = all ? 'A' : 'S';
  std::vector<int> iwork(size_t(8 * std::min(m, n)));
  T* ap = static_cast<T*>(a);
  T *sp = static_cast<T*>(s), *up = static_cast<T*>(u), *vp = static_cast<T*>(vt);
  T query = 0;
  int info = lapack::gesdd(jobz, int(m), int(n), ap, int(lda), sp, up, int(ldu), vp, int(ldvt), &query, -1,
                           iwork.data());
  if (info != 0) return info;
  std::vector<T> work(size_t(queried_size(query)));
  return lapack::gesdd(jobz, int(m), int(n), ap, int(lda), sp, up, int(ldu), vp, int(ldvt), work.data(),
                       int(work.size()), iwork.data());
}

template <class T> int qr_kernel(int64_t m, int64_t n, void* ap, int64_t lda, void* rp, int64_t ldr) {
  T* a = static_cast<T*>(ap);
  T* r = static_cast<T*>(rp);
  const int64_t k = std::min(m, n);
  std::vector<T> tau(static_cast<size_t>(k));
  T query = 0;
  int info = lapack::geqrf(int(m), int(n), a, int(lda), tau.data(), &query, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(queried_size(query)));
  info = lapack::geqrf(int(m), int(n), a, int(lda), tau.data(), work.data(), int(work.size()));
  if (info != 0) return info;
  // R is the upper triangle of the first k rows; below it geqrf left the reflectors.
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < k; ++i) r[i + j * ldr] = i <= j ? a[i + j * lda] : T(0);
  info = lapack::orgqr(int(m), int(k), int(k), a, int(lda), tau.data(), &query, -1);
  if (info != 0) return info;
  work.resize(size_t(queried_size(query)));
  return lapack::orgqr(int(m), int(k), int(k), a, int(lda), tau.data(), work.data(), int(work.size()));
}

TOCHA_REGISTER_KERNEL(symeig, cpu, DType::f32, &symeig_kernel<float>);
TOCHA_REGISTER_KERNEL(symeig, cpu, DType::f64, &symeig_kernel<double>);
TOCHA_REGISTER_KERNEL(svd, cpu, DType::f32, &svd_kernel<float>);
TOCHA_REGISTER_KERNEL(svd, cpu, DType::f64, &svd_kernel<double>);
TOCHA_REGISTER_KERNEL(qr, cpu, DType::f32, &qr_kernel<float>);
TOCHA_REGISTER_KERNEL(qr, cpu, DType::f64, &qr_kernel<double>);

}  // namespace
}  // namespace cpu
}  // namespace tocha
