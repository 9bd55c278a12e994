// CPU kernels of Torch7's remaining LAPACK calls, for f32 and f64: eig (geev), geqrf, orgqr,
// ormqr and pstrf, over OpenBLAS's Fortran LAPACK. Column-major in place; they return LAPACK's
// info (core/ops/lapack_kernels.h). eig and pstrf also serve CUDA tensors, on host copies
// (Note [Host LAPACK for CUDA tensors], core/ops/lapack_t7.cpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "kernels/cpu/lapack_fortran.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> int work_size(T w) { return std::max(1, int(std::ceil(double(w)))); }

template <class T>
int eig_kernel(bool vectors, int64_t n, void* ap, int64_t lda, void* wr, void* wi, void* vr, int64_t ldvr) {
  T* a = static_cast<T*>(ap);
  T *re = static_cast<T*>(wr), *im = static_cast<T*>(wi), *v = static_cast<T*>(vr);
  const char jobvr = vectors ? 'V' : 'N';
  T dummy = 0;
  if (!vectors) {
    v = &dummy;
    ldvr = 1;
  }
  T query = 0;
  int info = lapack::geev(jobvr, int(n), a, int(lda), re, im, v, int(ldvr), &query, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(work_size(query)));
  return lapack::geev(jobvr, int(n), a, int(lda), re, im, v, int(ldvr), work.data(), int(work.size()));
}

template <class T> int geqrf_kernel(int64_t m, int64_t n, void* ap, int64_t lda, void* taup) {
  T* a = static_cast<T*>(ap);
  T* tau = static_cast<T*>(taup);
  T query = 0;
  int info = lapack::geqrf(int(m), int(n), a, int(lda), tau, &query, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(work_size(query)));
  return lapack::geqrf(int(m), int(n), a, int(lda), tau, work.data(), int(work.size()));
}

template <class T> int orgqr_kernel(int64_t m, int64_t n, int64_t k, void* ap, int64_t lda, const void* taup) {
  T* a = static_cast<T*>(ap);
  const T* tau = static_cast<const T*>(taup);
  T query = 0;
  int info = lapack::orgqr(int(m), int(n), int(k), a, int(lda), tau, &query, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(work_size(query)));
  return lapack::orgqr(int(m), int(n), int(k), a, int(lda), tau, work.data(), int(work.size()));
}

template <class T>
int ormqr_kernel(bool left, bool transpose, int64_t m, int64_t n, int64_t k, const void* ap, int64_t lda,
                 const void* taup, void* cp, int64_t ldc) {
  const T* a = static_cast<const T*>(ap);
  const T* tau = static_cast<const T*>(taup);
  T* c = static_cast<T*>(cp);
  const char side = left ? 'L' : 'R', trans = transpose ? 'T' : 'N';
  T query = 0;
  int info = lapack::ormqr(side, trans, int(m), int(n), int(k), a, int(lda), tau, c, int(ldc), &query, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(work_size(query)));
  return lapack::ormqr(side, trans, int(m), int(n), int(k), a, int(lda), tau, c, int(ldc), work.data(),
                       int(work.size()));
}

// Note [pstrf on rank-deficient matrices]: LAPACK's pstrf returns info 1 both for a rank-deficient
// positive semidefinite A (it stops at the numerical rank r) and for an indefinite one, and leaves
// the trailing (n - r) x (n - r) block unspecified. The kernel tells them apart through the
// diagonal of the Schur complement left after r steps, d_j = A[p_j, p_j] - sum_{i < r} U[i, j]^2
// (j >= r): about zero for a PSD A, clearly negative for an indefinite one. It zeroes the trailing
// block, so that P^T A P = U^T U holds to within the dropped pivots (each below the tolerance).
template <class T>
int pstrf_kernel(bool upper, int64_t n64, void* ap, int64_t lda64, int32_t* piv, int64_t* rank_out, double tol) {
  T* a = static_cast<T*>(ap);
  const int n = int(n64), lda = int(lda64);
  std::vector<T> diag(static_cast<size_t>(n)), work(static_cast<size_t>(2 * n));
  T maxdiag = 0;
  for (int i = 0; i < n; ++i) {
    diag[size_t(i)] = a[i + size_t(i) * lda];
    maxdiag = std::max(maxdiag, std::abs(diag[size_t(i)]));
  }
  static_assert(sizeof(int) == sizeof(int32_t), "LAPACK's integers are 32-bit here");
  int rank = 0;
  int info = lapack::pstrf(upper ? 'U' : 'L', n, a, lda, reinterpret_cast<int*>(piv), &rank, T(tol), work.data());
  if (info < 0) return info;
  *rank_out = rank;
  // U[i, j] is a[i + j lda] (upper); L[j, i] = U[i, j] is a[j + i lda] (lower).
  auto at = [&](int i, int j) -> T& { return upper ? a[i + size_t(j) * lda] : a[j + size_t(i) * lda]; };
  const T eps = std::numeric_limits<T>::epsilon();
  const T slack = std::max(T(tol > 0 ? tol : 0), T(100) * T(n) * eps * maxdiag);
  for (int j = rank; j < n; ++j) {
    T d = diag[size_t(piv[j] - 1)];
    for (int i = 0; i < rank; ++i) d -= at(i, j) * at(i, j);
    if (!(d >= -slack)) return 1;  // indefinite (or NaN)
  }
  for (int j = rank; j < n; ++j)
    for (int i = rank; i <= j; ++i) at(i, j) = 0;
  // The other triangle still holds A: zero it, as Torch7 does.
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < n; ++i) at(i, j) = 0;
  return 0;
}

static_assert(std::is_same<decltype(&eig_kernel<float>), EigKernel>::value, "eig signature");
static_assert(std::is_same<decltype(&geqrf_kernel<float>), GeqrfKernel>::value, "geqrf signature");
static_assert(std::is_same<decltype(&orgqr_kernel<float>), OrgqrKernel>::value, "orgqr signature");
static_assert(std::is_same<decltype(&ormqr_kernel<float>), OrmqrKernel>::value, "ormqr signature");
static_assert(std::is_same<decltype(&pstrf_kernel<float>), PstrfKernel>::value, "pstrf signature");

TOCHA_REGISTER_KERNEL(eig, cpu, DType::f32, &eig_kernel<float>);
TOCHA_REGISTER_KERNEL(eig, cpu, DType::f64, &eig_kernel<double>);
TOCHA_REGISTER_KERNEL(geqrf, cpu, DType::f32, &geqrf_kernel<float>);
TOCHA_REGISTER_KERNEL(geqrf, cpu, DType::f64, &geqrf_kernel<double>);
TOCHA_REGISTER_KERNEL(orgqr, cpu, DType::f32, &orgqr_kernel<float>);
TOCHA_REGISTER_KERNEL(orgqr, cpu, DType::f64, &orgqr_kernel<double>);
TOCHA_REGISTER_KERNEL(ormqr, cpu, DType::f32, &ormqr_kernel<float>);
TOCHA_REGISTER_KERNEL(ormqr, cpu, DType::f64, &ormqr_kernel<double>);
TOCHA_REGISTER_KERNEL(pstrf, cpu, DType::f32, &pstrf_kernel<float>);
TOCHA_REGISTER_KERNEL(pstrf, cpu, DType::f64, &pstrf_kernel<double>);

}  // namespace
}  // namespace cpu
}  // namespace tocha
