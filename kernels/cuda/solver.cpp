// The cusolverDn handles, cuSOLVER status errors, scratch memory, devInfo read-back and cuBLAS
// transposes of the CUDA LAPACK kernels. See solver.h.
#include "kernels/cuda/solver.h"
#include <cublas_v2.h>
#include <mutex>
#include <vector>
#include "core/error.h"
#include "kernels/cuda/blas_handle.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/device_errors.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {

cusolverDnHandle_t cusolver_handle(int device) {
  static std::mutex m;
  static std::vector<cusolverDnHandle_t> handles;
  std::lock_guard<std::mutex> g(m);
  if (handles.size() <= size_t(device)) handles.resize(size_t(device) + 1, nullptr);
  cusolverDnHandle_t& h = handles[size_t(device)];
  if (!h) {
    DeviceGuard dg(device);
    cusolverDnHandle_t created = nullptr;
    TOCHA_CUSOLVER_CHECK("cusolver", cusolverDnCreate(&created));
    cusolverStatus_t st = cusolverDnSetStream(created, stream(device));
    if (st != CUSOLVER_STATUS_SUCCESS) {
      cusolverDnDestroy(created);
      fail_cusolver("cusolver", "cusolverDnSetStream", int(st));
    }
    h = created;
  }
  return h;
}

namespace {
const char* status_name(int st) {
  switch (st) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    case CUSOLVER_STATUS_INVALID_WORKSPACE: return "CUSOLVER_STATUS_INVALID_WORKSPACE";
    default: return "unknown status";
  }
}
}  // namespace

void fail_cusolver(const char* op, const char* what, int status) {
  if (status == CUSOLVER_STATUS_ALLOC_FAILED)
    throw OutOfMemory(str_cat("[", op, "] cuSOLVER could not allocate memory (", what, ")"));
  fail(op, "cuSOLVER error: ", status_name(status), " (status ", status, " from ", what, ")");
}

Scratch::Scratch(size_t nbytes, int device)
    : storage_(Storage::allocate(nbytes, Device{DeviceType::cuda, device})) {}

void read_ints(const char* op, const int* dev_src, int* host_dst, int n, int device) {
  cudaStream_t s = stream(device);
  TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(host_dst, dev_src, sizeof(int) * size_t(n), cudaMemcpyDeviceToHost, s));
  TOCHA_CUDA_CHECK(op, cudaStreamSynchronize(s));
  raise_device_errors();  // what kernels before it found (Note [Deferred device errors])
}

namespace {
template <class T> int first_zero_diagonal_t(const char* op, const T* a, int64_t lda, int64_t k, int device) {
  if (k == 0) return 0;
  std::vector<T> d(static_cast<size_t>(k));
  cudaStream_t s = stream(device);
  // Column pitch lda + 1 walks down the diagonal.
  TOCHA_CUDA_CHECK(op, cudaMemcpy2DAsync(d.data(), sizeof(T), a, sizeof(T) * size_t(lda + 1), sizeof(T), size_t(k),
                                         cudaMemcpyDeviceToHost, s));
  TOCHA_CUDA_CHECK(op, cudaStreamSynchronize(s));
  raise_device_errors();  // what kernels before it found (Note [Deferred device errors])
  for (int64_t i = 0; i < k; ++i)
    if (d[size_t(i)] == T(0)) return int(i + 1);
  return 0;
}

template <class T, class Geam>
void transpose_t(Geam geam, const char* op, int device, int64_t m, int64_t n, const T* a, int64_t lda, T* b,
                 int64_t ldb) {
  if (m == 0 || n == 0) return;
  cublasHandle_t h = cublas_handle(device);
  const T one = 1, zero = 0;
  // b = 1 * a^T + 0 * b (b, with op N, may be the output when beta is 0).
  TOCHA_CUBLAS_CHECK(op, geam(h, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), &one, a, int(lda), &zero, b, int(ldb), b,
                              int(ldb)));
}
}  // namespace

int first_zero_diagonal(const char* op, const float* a, int64_t lda, int64_t k, int device) {
  return first_zero_diagonal_t(op, a, lda, k, device);
}
int first_zero_diagonal(const char* op, const double* a, int64_t lda, int64_t k, int device) {
  return first_zero_diagonal_t(op, a, lda, k, device);
}
void transpose(const char* op, int device, int64_t m, int64_t n, const float* a, int64_t lda, float* b, int64_t ldb) {
  transpose_t(&cublasSgeam, op, device, m, n, a, lda, b, ldb);
}
void transpose(const char* op, int device, int64_t m, int64_t n, const double* a, int64_t lda, double* b,
               int64_t ldb) {
  transpose_t(&cublasDgeam, op, device, m, n, a, lda, b, ldb);
}

}  // namespace cuda
}  // namespace tocha
