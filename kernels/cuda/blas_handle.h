// The cuBLAS handle of a device, bound to Tocha's stream of that device (created on first use,
// kept for the process; kernels/cuda/blas.cpp). Every cuBLAS user shares it: the matmul family
// and the recurrent layers. It holds no per-call state (compute types are passed per call).
#pragma once
#include <cublas_v2.h>

namespace tocha {
namespace cuda {

cublasHandle_t cublas_handle(int device);

}  // namespace cuda
}  // namespace tocha
