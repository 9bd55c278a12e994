// CUDA kernels of torch.geqrf, torch.orgqr and torch.ormqr through cuSOLVER, for f32 and f64, with
// the contract of core/ops/lapack_kernels.h (column-major device matrices in place, LAPACK's info
// returned after one synchronization of the stream). eig and pstrf have no cuSOLVER kernel: their
// front-ends compute on the host (Note [Host LAPACK for CUDA tensors], core/ops/lapack_t7.cpp).
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

template <class T> int geqrf_cuda(int64_t m64, int64_t n64, void* ap, int64_t lda64, void* taup) {
  const char* op = "geqrf";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  const int m = int(m64), n = int(n64), lda = int(lda64);
  T* a = static_cast<T*>(ap);
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::geqrf_buffer_size(h, m, n, a, lda, &lwork));
  Scratch work = scratch_of<T>(lwork, device), info = scratch_of<int>(1, device);
  TOCHA_CUSOLVER_CHECK(op, solver::geqrf(h, m, n, a, lda, static_cast<T*>(taup), work.as<T>(), lwork,
                                         info.as<int>()));
  int host = 0;
  read_ints(op, info.as<int>(), &host, 1, device);
  return host;
}

template <class T> int orgqr_cuda(int64_t m64, int64_t n64, int64_t k64, void* ap, int64_t lda64, const void* taup) {
  const char* op = "orgqr";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  const int m = int(m64), n = int(n64), k = int(k64), lda = int(lda64);
  T* a = static_cast<T*>(ap);
  const T* tau = static_cast<const T*>(taup);
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::orgqr_buffer_size(h, m, n, k, a, lda, tau, &lwork));
  Scratch work = scratch_of<T>(lwork, device), info = scratch_of<int>(1, device);
  TOCHA_CUSOLVER_CHECK(op, solver::orgqr(h, m, n, k, a, lda, tau, work.as<T>(), lwork, info.as<int>()));
  int host = 0;
  read_ints(op, info.as<int>(), &host, 1, device);
  return host;
}

template <class T>
int ormqr_cuda(bool left, bool transpose, int64_t m64, int64_t n64, int64_t k64, const void* ap, int64_t lda64,
               const void* taup, void* cp, int64_t ldc64) {
  const char* op = "ormqr";
  const int device = device_of(cp);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  const cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const cublasOperation_t trans = transpose ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = int(m64), n = int(n64), k = int(k64), lda = int(lda64), ldc = int(ldc64);
  const T* a = static_cast<const T*>(ap);
  const T* tau = static_cast<const T*>(taup);
  T* c = static_cast<T*>(cp);
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::ormqr_buffer_size(h, side, trans, m, n, k, a, lda, tau, c, ldc, &lwork));
  Scratch work = scratch_of<T>(lwork, device), info = scratch_of<int>(1, device);
  TOCHA_CUSOLVER_CHECK(op, solver::ormqr(h, side, trans, m, n, k, a, lda, tau, c, ldc, work.as<T>(), lwork,
                                         info.as<int>()));
  int host = 0;
  read_ints(op, info.as<int>(), &host, 1, device);
  return host;
}

static_assert(std::is_same<decltype(&geqrf_cuda<float>), GeqrfKernel>::value, "geqrf signature");
static_assert(std::is_same<decltype(&orgqr_cuda<float>), OrgqrKernel>::value, "orgqr signature");
static_assert(std::is_same<decltype(&ormqr_cuda<float>), OrmqrKernel>::value, "ormqr signature");

TOCHA_REGISTER_KERNEL(geqrf, cuda, DType::f32, &geqrf_cuda<float>);
TOCHA_REGISTER_KERNEL(geqrf, cuda, DType::f64, &geqrf_cuda<double>);
TOCHA_REGISTER_KERNEL(orgqr, cuda, DType::f32, &orgqr_cuda<float>);
TOCHA_REGISTER_KERNEL(orgqr, cuda, DType::f64, &orgqr_cuda<double>);
TOCHA_REGISTER_KERNEL(ormqr, cuda, DType::f32, &ormqr_cuda<float>);
TOCHA_REGISTER_KERNEL(ormqr, cuda, DType::f64, &ormqr_cuda<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
