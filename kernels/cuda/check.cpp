// CUDA and cuBLAS error reporting. See check.h.
#include "kernels/cuda/check.h"
#include <cublas_api.h>
#include "core/device_runtime.h"
#include "core/error.h"

namespace tocha {
namespace cuda {

namespace {
bool sync_after_launch() {
  static const bool on = env_flag("TOCHA_CUDA_SYNC", false);
  return on;
}
}  // namespace

void fail_cuda(const char* op, const char* what, cudaError_t e) {
  // Non-sticky errors stay pending until read: clear them so the next call does not fail too.
  cudaGetLastError();
  std::string msg = str_cat("CUDA error: ", cudaGetErrorString(e), " (", cudaGetErrorName(e), " from ", what, ")");
  if (e == cudaErrorMemoryAllocation) throw OutOfMemory(str_cat("[", op, "] ", msg));
  if (e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorAssert)
    msg += "; the CUDA context is now unusable: restart the process (TOCHA_CUDA_SYNC=1 names the faulting op)";
  fail(op, msg);
}

void fail_cublas(const char* op, const char* what, int status) {
  const char* name = cublasGetStatusName(cublasStatus_t(status));
  const char* text = cublasGetStatusString(cublasStatus_t(status));
  if (status == CUBLAS_STATUS_ALLOC_FAILED)
    throw OutOfMemory(str_cat("[", op, "] cuBLAS could not allocate its workspace (", what, ")"));
  fail(op, "cuBLAS error: ", text ? text : "?", " (", name ? name : "?", " from ", what, ")");
}

void check_launch(const char* op) {
  TOCHA_CUDA_CHECK(op, cudaPeekAtLastError());
  if (sync_after_launch()) TOCHA_CUDA_CHECK(op, cudaDeviceSynchronize());
}

}  // namespace cuda
}  // namespace tocha
