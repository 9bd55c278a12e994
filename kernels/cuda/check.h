// Error checking for every CUDA runtime and cuBLAS call: a failure becomes a tocha::Error (or
// OutOfMemory) whose message names the op, e.g. "[exp] CUDA error: invalid configuration argument".
#pragma once
#include <cuda_runtime_api.h>

namespace tocha {
namespace cuda {

// Throws for error e of `what` (the call's text) in op; clears the error if it is not sticky.
[[noreturn]] void fail_cuda(const char* op, const char* what, cudaError_t e);
[[noreturn]] void fail_cublas(const char* op, const char* what, int status);

// Checks a kernel launch: configuration errors surface at once; faults inside the kernel are
// asynchronous and surface at the next synchronizing call (a copy to the host, synchronize()),
// unless TOCHA_CUDA_SYNC=1, which synchronizes after every launch to name the faulting op.
void check_launch(const char* op);

}  // namespace cuda
}  // namespace tocha

#define TOCHA_CUDA_CHECK(op, call)                                               \
  do {                                                                           \
    cudaError_t tocha_cuda_err_ = (call);                                        \
    if (tocha_cuda_err_ != cudaSuccess) ::tocha::cuda::fail_cuda(op, #call, tocha_cuda_err_); \
  } while (0)

#define TOCHA_CUBLAS_CHECK(op, call)                                            \
  do {                                                                          \
    int tocha_cublas_st_ = int(call);                                           \
    if (tocha_cublas_st_ != 0) ::tocha::cuda::fail_cublas(op, #call, tocha_cublas_st_); \
  } while (0)
