// CPU kernels of the LAPACK solvers: gesv, gels, inverse (getrf + getri), potrf and potrs, for f32
// and f64. Column-major in place; they return LAPACK's info (core/ops/lapack_kernels.h).
#include <algorithm>
#include <cmath>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "kernels/cpu/lapack_fortran.h"

namespace tocha {
namespace cpu {
namespace {

// The workspace size a query (lwork == -1) reported in work[0].
template <class T> int queried_size(T w) { return std::max(1, int(std::ceil(double(w)))); }

template <class T> int gesv_kernel(int64_t n, int64_t nrhs, void* a, int64_t lda, void* b, int64_t ldb) {
  std::vector<int> ipiv(static_cast<size_t>(n));
  return lapack::gesv(int(n), int(nrhs), static_cast<T*>(a), int(lda), ipiv.data(), static_cast<T*>(b), int(ldb));
}

template <class T> int gels_kernel(int64_t m, int64_t n, int64_t nrhs, void* ap, int64_t lda, void* bp, int64_t ldb) {
  T* a = static_cast<T*>(ap);
  T* b = static_cast<T*>(bp);
  T query = 0;
  int info = lapack::gels(int(m), int(n), int(nrhs), a, int(lda), b, int(ldb), &query, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(queried_size(query)));
  return lapack::gels(int(m), int(n), int(nrhs), a, int(lda), b, int(ldb), work.data(), int(work.size()));
}

template <class T> int inverse_kernel(int64_t n, void* ap, int64_t lda) {
  T* a = static_cast<T*>(ap);
  std::vector<int> ipiv(static_cast<size_t>(n));
  int info = lapack::getrf(int(n), a, int(lda), ipiv.data());
  if (info != 0) return info;
  T query = 0;
  info = lapack::getri(int(n), a, int(lda), ipiv.data(), &query, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(queried_size(query)));
  return lapack::getri(int(n), a, int(lda), ipiv.data(), work.data(), int(work.size()));
}

template <class T>
int trtrs_kernel(bool upper, bool transpose, bool unit, int64_t n, int64_t nrhs, const void* a, int64_t lda, void* b,
                 int64_t ldb) {
  return lapack::trtrs(upper ? 'U' : 'L', transpose ? 'T' : 'N', unit ? 'U' : 'N', int(n), int(nrhs),
                       static_cast<const T*>(a), int(lda), static_cast<T*>(b), int(ldb));
}

template <class T> int potrf_kernel(bool upper, int64_t n, void* ap, int64_t lda) {
  T* a = static_cast<T*>(ap);
  int info = lapack::potrf(upper ? 'U' : 'L', int(n), a, int(lda));
  // LAPACK leaves the other triangle as it was; Torch7 returns it zeroed.
  for (int64_t j = 0; j < n; ++j) {
    if (upper) std::fill(a + j * lda + j + 1, a + j * lda + n, T(0));
    else std::fill(a + j * lda, a + j * lda + j, T(0));
  }
  return info;
}

template <class T>
int potrs_kernel(bool upper, int64_t n, int64_t nrhs, const void* chol, int64_t ldc, void* b, int64_t ldb) {
  return lapack::potrs(upper ? 'U' : 'L', int(n), int(nrhs), static_cast<const T*>(chol), int(ldc),
                       static_cast<T*>(b), int(ldb));
}

TOCHA_REGISTER_KERNEL(gesv, cpu, DType::f32, &gesv_kernel<float>);
TOCHA_REGISTER_KERNEL(gesv, cpu, DType::f64, &gesv_kernel<double>);
TOCHA_REGISTER_KERNEL(trtrs, cpu, DType::f32, &trtrs_kernel<float>);
TOCHA_REGISTER_KERNEL(trtrs, cpu, DType::f64, &trtrs_kernel<double>);
TOCHA_REGISTER_KERNEL(gels, cpu, DType::f32, &gels_kernel<float>);
TOCHA_REGISTER_KERNEL(gels, cpu, DType::f64, &gels_kernel<double>);
TOCHA_REGISTER_KERNEL(inverse, cpu, DType::f32, &inverse_kernel<float>);
TOCHA_REGISTER_KERNEL(inverse, cpu, DType::f64, &inverse_kernel<double>);
TOCHA_REGISTER_KERNEL(potrf, cpu, DType::f32, &potrf_kernel<float>);
TOCHA_REGISTER_KERNEL(potrf, cpu, DType::f64, &potrf_kernel<double>);
TOCHA_REGISTER_KERNEL(potrs, cpu, DType::f32, &potrs_kernel<float>);
TOCHA_REGISTER_KERNEL(potrs, cpu, DType::f64, &potrs_kernel<double>);

}  // namespace
}  // namespace cpu
}  // namespace tocha
