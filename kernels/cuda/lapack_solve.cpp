// CUDA kernels of the LAPACK solvers through cuSOLVER, for f32 and f64: gesv (getrf + getrs),
// inverse (getrf + getrs against the identity: cuSOLVER has no getri), potrf, potrs and trtrs
// (a diagonal check, then cuBLAS's trsm). The
// contract of core/ops/lapack_kernels.h: column-major device matrices, worked on in place, and
// LAPACK's info returned (read back from the device, so each call synchronizes its stream once).
#include <algorithm>
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

cublasFillMode_t fill_of(bool upper) { return upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER; }

// The first failure among LAPACK infos read back in call order (getrf's singular U before getrs).
int first_nonzero(const int* infos, int n) {
  for (int i = 0; i < n; ++i)
    if (infos[i] != 0) return infos[i];
  return 0;
}

// LU with partial pivoting of the n x n a, queued; its info goes to info[0], pivots to ipiv.
template <class T> void lu_factor(const char* op, cusolverDnHandle_t h, int device, int n, T* a, int lda, int* ipiv,
                                  int* info) {
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::getrf_buffer_size(h, n, n, a, lda, &lwork));
  Scratch work = scratch_of<T>(lwork, device);
  TOCHA_CUSOLVER_CHECK(op, solver::getrf(h, n, n, a, lda, work.as<T>(), ipiv, info));
}

// getrs runs even when getrf found a singular U (the front-end then raises and drops B), so a
// call synchronizes only once.
template <class T> int gesv_cuda(int64_t n, int64_t nrhs, void* ap, int64_t lda, void* bp, int64_t ldb) {
  const char* op = "gesv";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  T* a = static_cast<T*>(ap);
  Scratch ipiv = scratch_of<int>(n, device), info = scratch_of<int>(2, device);
  lu_factor<T>(op, h, device, int(n), a, int(lda), ipiv.as<int>(), info.as<int>());
  if (nrhs > 0)  // an empty B still gets A's LU factors
    TOCHA_CUSOLVER_CHECK(op, solver::getrs(h, int(n), int(nrhs), a, int(lda), ipiv.as<int>(), static_cast<T*>(bp),
                                           int(ldb), info.as<int>() + 1));
  else
    TOCHA_CUDA_CHECK(op, cudaMemsetAsync(info.as<int>() + 1, 0, sizeof(int), scope.stream));
  int host[2] = {0, 0};
  read_ints(op, info.as<int>(), host, 2, device);
  return first_nonzero(host, 2);
}

template <class T> int inverse_cuda(int64_t n, void* ap, int64_t lda) {
  const char* op = "inverse";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  T* a = static_cast<T*>(ap);
  Scratch ipiv = scratch_of<int>(n, device), info = scratch_of<int>(2, device);
  Scratch inv = scratch_of<T>(n * n, device);
  lu_factor<T>(op, h, device, int(n), a, int(lda), ipiv.as<int>(), info.as<int>());
  set_identity(n, inv.as<T>(), n, scope.stream);
  TOCHA_CUSOLVER_CHECK(op, solver::getrs(h, int(n), int(n), a, int(lda), ipiv.as<int>(), inv.as<T>(), int(n),
                                         info.as<int>() + 1));
  TOCHA_CUDA_CHECK(op, cudaMemcpy2DAsync(a, sizeof(T) * size_t(lda), inv.as<T>(), sizeof(T) * size_t(n),
                                         sizeof(T) * size_t(n), size_t(n), cudaMemcpyDeviceToDevice, scope.stream));
  int host[2] = {0, 0};
  read_ints(op, info.as<int>(), host, 2, device);
  return first_nonzero(host, 2);
}

// The other triangle is zeroed as on the CPU (Torch7 returns it so), even when the factorization fails.
template <class T> int potrf_cuda(bool upper, int64_t n, void* ap, int64_t lda) {
  const char* op = "potrf";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  T* a = static_cast<T*>(ap);
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::potrf_buffer_size(h, fill_of(upper), int(n), a, int(lda), &lwork));
  Scratch work = scratch_of<T>(lwork, device), info = scratch_of<int>(1, device);
  TOCHA_CUSOLVER_CHECK(op, solver::potrf(h, fill_of(upper), int(n), a, int(lda), work.as<T>(), lwork, info.as<int>()));
  zero_triangle(upper, n, a, lda, scope.stream);
  int host = 0;
  read_ints(op, info.as<int>(), &host, 1, device);
  return host;
}

template <class T>
int potrs_cuda(bool upper, int64_t n, int64_t nrhs, const void* chol, int64_t ldc, void* bp, int64_t ldb) {
  const char* op = "potrs";
  if (nrhs == 0) return 0;
  const int device = device_of(bp);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  Scratch info = scratch_of<int>(1, device);
  TOCHA_CUSOLVER_CHECK(op, solver::potrs(h, fill_of(upper), int(n), int(nrhs), static_cast<const T*>(chol), int(ldc),
                                         static_cast<T*>(bp), int(ldb), info.as<int>()));
  int host = 0;
  read_ints(op, info.as<int>(), &host, 1, device);
  return host;
}

// LAPACK's trtrs reports a zero on the diagonal before solving; trsm has no info, so the diagonal
// is read back first (the one wait of the call; a unit diagonal needs none).
template <class T>
int trtrs_cuda(bool upper, bool transpose, bool unit, int64_t n, int64_t nrhs, const void* ap, int64_t lda, void* bp,
               int64_t ldb) {
  const char* op = "trtrs";
  if (n == 0) return 0;
  const int device = device_of(ap);
  LaunchScope scope(device);
  const T* a = static_cast<const T*>(ap);
  if (!unit)
    if (int zero = first_zero_diagonal(op, a, lda, n, device)) return zero;
  if (nrhs == 0) return 0;
  TOCHA_CUBLAS_CHECK(op, solver::trsm(cublas_handle(device), fill_of(upper), transpose ? CUBLAS_OP_T : CUBLAS_OP_N,
                                      int(n), int(nrhs), a, int(lda), static_cast<T*>(bp), int(ldb),
                                      unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT));
  return 0;
}

// The kernels must have the registry's signatures exactly (it stores them as void*).
static_assert(std::is_same<decltype(&gesv_cuda<float>), GesvKernel>::value, "gesv signature");
static_assert(std::is_same<decltype(&inverse_cuda<float>), InverseKernel>::value, "inverse signature");
static_assert(std::is_same<decltype(&potrf_cuda<float>), PotrfKernel>::value, "potrf signature");
static_assert(std::is_same<decltype(&potrs_cuda<float>), PotrsKernel>::value, "potrs signature");
static_assert(std::is_same<decltype(&trtrs_cuda<float>), TrtrsKernel>::value, "trtrs signature");

TOCHA_REGISTER_KERNEL(gesv, cuda, DType::f32, &gesv_cuda<float>);
TOCHA_REGISTER_KERNEL(gesv, cuda, DType::f64, &gesv_cuda<double>);
TOCHA_REGISTER_KERNEL(inverse, cuda, DType::f32, &inverse_cuda<float>);
TOCHA_REGISTER_KERNEL(inverse, cuda, DType::f64, &inverse_cuda<double>);
TOCHA_REGISTER_KERNEL(potrf, cuda, DType::f32, &potrf_cuda<float>);
TOCHA_REGISTER_KERNEL(potrf, cuda, DType::f64, &potrf_cuda<double>);
TOCHA_REGISTER_KERNEL(potrs, cuda, DType::f32, &potrs_cuda<float>);
TOCHA_REGISTER_KERNEL(potrs, cuda, DType::f64, &potrs_cuda<double>);
TOCHA_REGISTER_KERNEL(trtrs, cuda, DType::f32, &trtrs_cuda<float>);
TOCHA_REGISTER_KERNEL(trtrs, cuda, DType::f64, &trtrs_cuda<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
