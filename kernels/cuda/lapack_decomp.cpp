// CUDA kernels of the LAPACK decompositions through cuSOLVER, for f32 and f64: symeig (syevd),
// svd (gesvd) and qr (geqrf + orgqr), with the contract of core/ops/lapack_kernels.h (column-major
// device matrices in place, LAPACK's info returned after one synchronization of the stream).
//
// Note [SVD on CUDA]: cuSOLVER's gesvd takes m >= n only. A wide A (m < n) is transposed first:
// A^T = U2 S V2^T gives A = V2 S U2^T, so U = (V2^T)^T and V^T = U2^T, copied out by cuBLAS
// transposes. The CPU uses gesdd, so singular vectors may differ from the CPU's by sign (and
// within repeated singular values); U diag(S) V^T reconstructs A on both.
#include <type_traits>
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/cusolver_api.h"
#include "kernels/cuda/runtime.h"
#include "kernels/cuda/solver.h"

namespace tocha {
namespace cuda {
namespace {

template <class T> int symeig_cuda(bool vectors, bool upper, int64_t n64, void* ap, int64_t lda64, void* wp) {
  const char* op = "symeig";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const int n = int(n64), lda = int(lda64);
  T* a = static_cast<T*>(ap);
  T* w = static_cast<T*>(wp);
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::syevd_buffer_size(h, jobz, uplo, n, a, lda, w, &lwork));
  Scratch work = scratch_of<T>(lwork, device), info = scratch_of<int>(1, device);
  TOCHA_CUSOLVER_CHECK(op, solver::syevd(h, jobz, uplo, n, a, lda, w, work.as<T>(), lwork, info.as<int>()));
  int host = 0;
  read_ints(op, info.as<int>(), &host, 1, device);
  return host;
}

// gesvd of the tall (rows >= cols) f, queued; info in *info.
template <class T> void gesvd_tall(const char* op, cusolverDnHandle_t h, int device, bool all, int rows, int cols,
                                   T* f, int ldf, T* s, T* u, int ldu, T* vt, int ldvt, int* info) {
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::gesvd_buffer_size(h, rows, cols, f, &lwork));
  Scratch work = scratch_of<T>(lwork, device), rwork = scratch_of<T>(cols, device);
  TOCHA_CUSOLVER_CHECK(op, solver::gesvd(h, all ? 'A' : 'S', rows, cols, f, ldf, s, u, ldu, vt, ldvt, work.as<T>(),
                                         lwork, rwork.as<T>(), info));
}

template <class T>
int svd_cuda(bool all, int64_t m64, int64_t n64, void* ap, int64_t lda, void* sp, void* up, int64_t ldu, void* vtp,
             int64_t ldvt) {
  const char* op = "svd";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  const int m = int(m64), n = int(n64);
  T *a = static_cast<T*>(ap), *s = static_cast<T*>(sp), *u = static_cast<T*>(up), *vt = static_cast<T*>(vtp);
  Scratch info = scratch_of<int>(1, device);
  if (m >= n) {
    gesvd_tall<T>(op, h, device, all, m, n, a, int(lda), s, u, int(ldu), vt, int(ldvt), info.as<int>());
  } else {  // Note [SVD on CUDA]
    const int vrows = all ? n : m;  // rows of V^T = columns of U2
    Scratch at = scratch_of<T>(int64_t(n) * m, device), u2 = scratch_of<T>(int64_t(n) * vrows, device);
    Scratch v2t = scratch_of<T>(int64_t(m) * m, device);
    transpose(op, device, m, n, a, lda, at.as<T>(), n);
    gesvd_tall<T>(op, h, device, all, n, m, at.as<T>(), n, s, u2.as<T>(), n, v2t.as<T>(), m, info.as<int>());
    transpose(op, device, m, m, v2t.as<T>(), m, u, ldu);        // U = V2, m x m
    transpose(op, device, n, vrows, u2.as<T>(), n, vt, ldvt);   // V^T = U2^T, vrows x n
  }
  int host = 0;
  read_ints(op, info.as<int>(), &host, 1, device);
  return host;
}

template <class T> int qr_cuda(int64_t m64, int64_t n64, void* ap, int64_t lda64, void* rp, int64_t ldr) {
  const char* op = "qr";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  const int m = int(m64), n = int(n64), lda = int(lda64), k = m < n ? m : n;
  T* a = static_cast<T*>(ap);
  Scratch tau = scratch_of<T>(k, device), info = scratch_of<int>(2, device);
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::geqrf_buffer_size(h, m, n, a, lda, &lwork));
  {
    Scratch work = scratch_of<T>(lwork, device);
    TOCHA_CUSOLVER_CHECK(op, solver::geqrf(h, m, n, a, lda, tau.as<T>(), work.as<T>(), lwork, info.as<int>()));
  }
  // R is the upper triangle of the first k rows; below it geqrf left the reflectors.
  copy_upper(k, n, a, lda, static_cast<T*>(rp), ldr, scope.stream);
  TOCHA_CUSOLVER_CHECK(op, solver::orgqr_buffer_size(h, m, k, k, a, lda, tau.as<T>(), &lwork));
  Scratch work = scratch_of<T>(lwork, device);
  TOCHA_CUSOLVER_CHECK(op, solver::orgqr(h, m, k, k, a, lda, tau.as<T>(), work.as<T>(), lwork, info.as<int>() + 1));
  int host[2] = {0, 0};
  read_ints(op, info.as<int>(), host, 2, device);
  return host[0] != 0 ? host[0] : host[1];
}

// The kernels must have the registry's signatures exactly (it stores them as void*).
static_assert(std::is_same<decltype(&symeig_cuda<float>), SymeigKernel>::value, "symeig signature");
static_assert(std::is_same<decltype(&svd_cuda<float>), SvdKernel>::value, "svd signature");
static_assert(std::is_same<decltype(&qr_cuda<float>), QrKernel>::value, "qr signature");

TOCHA_REGISTER_KERNEL(symeig, cuda, DType::f32, &symeig_cuda<float>);
TOCHA_REGISTER_KERNEL(symeig, cuda, DType::f64, &symeig_cuda<double>);
TOCHA_REGISTER_KERNEL(svd, cuda, DType::f32, &svd_cuda<float>);
TOCHA_REGISTER_KERNEL(svd, cuda, DType::f64, &svd_cuda<double>);
TOCHA_REGISTER_KERNEL(qr, cuda, DType::f32, &qr_cuda<float>);
TOCHA_REGISTER_KERNEL(qr, cuda, DType::f64, &qr_cuda<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
