// cuDNN plumbing shared by the cuDNN kernels (kernels/cuda/cudnn_*.cpp): one handle per device
// bound to Tocha's stream, status checks that name the op, and RAII descriptors. Only compiled
// into builds that found cuDNN (TOCHA_HAVE_CUDNN, kernels/CMakeLists.txt).
#pragma once
#include <cudnn.h>
#include <cstdint>
#include "core/dtype.h"

namespace tocha {
namespace cuda {

// The cuDNN handle of a device (created on first use, its stream set to stream(device)).
cudnnHandle_t cudnn_handle(const char* op, int device);

// Throws "[op] cuDNN error: <text> (<call>)"; CUDNN_STATUS_ALLOC_FAILED becomes OutOfMemory.
[[noreturn]] void fail_cudnn(const char* op, const char* what, cudnnStatus_t st);

// cuDNN's element type for a Tocha dtype (f32, f64, f16, bf16), and the type its arithmetic
// (and so its alpha/beta scaling factors) uses: double for f64, float otherwise.
cudnnDataType_t cudnn_dtype(const char* op, DType dt);
cudnnDataType_t cudnn_compute_dtype(DType dt);

// cuDNN takes int sizes: throws naming op when v does not fit.
int cudnn_int(const char* op, int64_t v);

// A packed (contiguous, row-major) tensor descriptor of nd dims (4 or 5).
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc(const char* op, DType dt, int nd, const int64_t* sizes);
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};

}  // namespace cuda
}  // namespace tocha

#define TOCHA_CUDNN_CHECK(op, call)                                                   \
  do {                                                                                \
    cudnnStatus_t tocha_cudnn_st_ = (call);                                           \
    if (tocha_cudnn_st_ != CUDNN_STATUS_SUCCESS) ::tocha::cuda::fail_cudnn(op, #call, tocha_cudnn_st_); \
  } while (0)
