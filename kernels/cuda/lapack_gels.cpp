// CUDA kernel of gels (least squares / least norm solution of a full-rank system) through cuSOLVER
// and cuBLAS, for f32 and f64, with the results LAPACK's gels leaves (core/ops/lapack_kernels.h).
//
// Note [gels on CUDA]: cuSOLVER has no gels for general shapes (its *gels are iterative-refinement
// solvers for m >= n) and no LQ factorization, so the kernel follows LAPACK's algorithm with the
// pieces cuSOLVER has. m >= n: A = QR (geqrf), B = Q^T B (ormqr), R X = B[1..n] (trsm); B's rows
// past n keep Q^T B's tail, whose norm is the residual, and A holds geqrf's factors, as in LAPACK.
// m < n: LAPACK factors A = L Q (gelqf); the LQ factors of A are the transposed QR factors of A^T,
// so the kernel runs geqrf on A^T, solves R^T Y = B[1..m] (trsm), zeros B[m+1..n] and forms
// X = Q Y (ormqr), and writes the factors back transposed, where gelqf would have left them. A zero
// on R's diagonal is reported as LAPACK's trtrs does (info = its index).
#include <type_traits>
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "kernels/cuda/blas_handle.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/cusolver_api.h"
#include "kernels/cuda/runtime.h"
#include "kernels/cuda/solver.h"

namespace tocha {
namespace cuda {
namespace {

// QR of the rows x cols f (leading dimension ldf), queued: reflectors and R in f, tau filled,
// geqrf's info in *info.
template <class T> void qr_factor(const char* op, cusolverDnHandle_t h, int device, int rows, int cols, T* f, int ldf,
                                  T* tau, int* info) {
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::geqrf_buffer_size(h, rows, cols, f, ldf, &lwork));
  Scratch work = scratch_of<T>(lwork, device);
  TOCHA_CUSOLVER_CHECK(op, solver::geqrf(h, rows, cols, f, ldf, tau, work.as<T>(), lwork, info));
}

// c = op(Q) c for the Q of k reflectors in f (rows x k, ldf), c rows x ncols.
template <class T> void apply_q(const char* op, cusolverDnHandle_t h, int device, cublasOperation_t trans, int rows,
                                int ncols, int k, const T* f, int ldf, const T* tau, T* c, int ldc, int* info) {
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::ormqr_buffer_size(h, trans, rows, ncols, k, f, ldf, tau, c, ldc, &lwork));
  Scratch work = scratch_of<T>(lwork, device);
  TOCHA_CUSOLVER_CHECK(op, solver::ormqr(h, trans, rows, ncols, k, f, ldf, tau, c, ldc, work.as<T>(), lwork, info));
}

template <class T>
int gels_cuda(int64_t m64, int64_t n64, int64_t nrhs64, void* ap, int64_t lda64, void* bp, int64_t ldb64) {
  const char* op = "gels";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  cublasHandle_t blas = cublas_handle(device);
  const int m = int(m64), n = int(n64), nrhs = int(nrhs64), lda = int(lda64), ldb = int(ldb64);
  const int k = m < n ? m : n;
  T* a = static_cast<T*>(ap);
  T* b = static_cast<T*>(bp);
  Scratch tau = scratch_of<T>(k, device), info = scratch_of<int>(2, device);
  int host[2] = {0, 0};
  if (m >= n) {
    qr_factor<T>(op, h, device, m, n, a, lda, tau.as<T>(), info.as<int>());
    if (int zero = first_zero_diagonal(op, a, lda, k, device)) return zero;  // also waits for geqrf
    apply_q<T>(op, h, device, CUBLAS_OP_T, m, nrhs, n, a, lda, tau.as<T>(), b, ldb, info.as<int>() + 1);
    TOCHA_CUBLAS_CHECK(op, solver::trsm(blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, nrhs, a, lda, b, ldb));
  } else {
    Scratch at = scratch_of<T>(int64_t(n) * m, device);  // A^T, n x m, leading dimension n
    transpose(op, device, m, n, a, lda, at.as<T>(), n);
    qr_factor<T>(op, h, device, n, m, at.as<T>(), n, tau.as<T>(), info.as<int>());
    transpose(op, device, n, m, at.as<T>(), n, a, lda);  // gelqf's layout: L and the reflectors' rows
    if (int zero = first_zero_diagonal(op, at.as<T>(), n, k, device)) return zero;
    TOCHA_CUBLAS_CHECK(op, solver::trsm(blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, m, nrhs, at.as<T>(), n, b, ldb));
    TOCHA_CUDA_CHECK(op, cudaMemset2DAsync(b + m, sizeof(T) * size_t(ldb), 0, sizeof(T) * size_t(n - m),
                                           size_t(nrhs), scope.stream));
    apply_q<T>(op, h, device, CUBLAS_OP_N, n, nrhs, m, at.as<T>(), n, tau.as<T>(), b, ldb, info.as<int>() + 1);
  }
  read_ints(op, info.as<int>(), host, 2, device);
  // info > 0 never comes from geqrf/ormqr; pass their (negative: bad argument) infos through.
  return host[0] != 0 ? host[0] : host[1];
}

static_assert(std::is_same<decltype(&gels_cuda<float>), GelsKernel>::value, "gels signature");

TOCHA_REGISTER_KERNEL(gels, cuda, DType::f32, &gels_cuda<float>);
TOCHA_REGISTER_KERNEL(gels, cuda, DType::f64, &gels_cuda<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
