/* The fake GPU stack's cuBLAS, cuDNN and cuSOLVER calls whose outputs Tocha does not read back on
   the host (Note [Fake GPU], tests/fakegpu/fake_cuda.cpp): each counts itself and answers success
   (0 in all three libraries). Written in C with unspecified parameter lists, so one line stands for
   a call of any signature (the caller cleans its arguments; we read none). The calls that must fill
   in outputs are in fake_dnn_blas.cpp. cuSOLVER answers CUSOLVER_STATUS_NOT_INITIALIZED (1) from
   its handle creation on: the fake has no solver, and Tocha reports that as an error. */
#include "tests/fakegpu/fake_counters.h"

#define CUBLAS_QUEUED(name) \
  int name() {              \
    fakegpu_counters()->cublas_calls += 1; \
    fakegpu_trace_call("cublas " #name); \
    fakegpu_device_work(); \
    return 0;               \
  }
#define CUDNN_QUEUED(name) \
  int name() {             \
    fakegpu_counters()->cudnn_calls += 1; \
    fakegpu_trace_call("cudnn " #name); \
    fakegpu_device_work(); \
    return 0;              \
  }
#define SETTER(name) \
  int name() { return 0; }
#define NO_SOLVER(name) \
  int name() { return 1; }

CUBLAS_QUEUED(cublasGemmEx)
CUBLAS_QUEUED(cublasGemmStridedBatchedEx)
CUBLAS_QUEUED(cublasSgeam)
CUBLAS_QUEUED(cublasDgeam)
CUBLAS_QUEUED(cublasDotEx)
CUBLAS_QUEUED(cublasStrsm_v2)
CUBLAS_QUEUED(cublasDtrsm_v2)
SETTER(cublasSetStream_v2)
SETTER(cublasSetPointerMode_v2)

CUDNN_QUEUED(cudnnConvolutionForward)
CUDNN_QUEUED(cudnnConvolutionBackwardData)
CUDNN_QUEUED(cudnnConvolutionBackwardFilter)
CUDNN_QUEUED(cudnnAddTensor)
CUDNN_QUEUED(cudnnScaleTensor)
CUDNN_QUEUED(cudnnSoftmaxForward)
CUDNN_QUEUED(cudnnBackendExecute)
SETTER(cudnnBackendSetAttribute)
SETTER(cudnnSetStream)
SETTER(cudnnDestroy) /* the handle stays in fake_dnn_blas.cpp's list */
SETTER(cudnnSetTensorNdDescriptor)
SETTER(cudnnSetFilterNdDescriptor)
SETTER(cudnnSetConvolutionNdDescriptor)
SETTER(cudnnSetConvolutionGroupCount)
SETTER(cudnnSetConvolutionMathType)

NO_SOLVER(cusolverDnCreate)
NO_SOLVER(cusolverDnDestroy)
NO_SOLVER(cusolverDnSetStream)
NO_SOLVER(cusolverDnDgeqrf)
NO_SOLVER(cusolverDnDgeqrf_bufferSize)
NO_SOLVER(cusolverDnDgesvd)
NO_SOLVER(cusolverDnDgesvd_bufferSize)
NO_SOLVER(cusolverDnDgetrf)
NO_SOLVER(cusolverDnDgetrf_bufferSize)
NO_SOLVER(cusolverDnDgetrs)
NO_SOLVER(cusolverDnDorgqr)
NO_SOLVER(cusolverDnDorgqr_bufferSize)
NO_SOLVER(cusolverDnDormqr)
NO_SOLVER(cusolverDnDormqr_bufferSize)
NO_SOLVER(cusolverDnDpotrf)
NO_SOLVER(cusolverDnDpotrf_bufferSize)
NO_SOLVER(cusolverDnDpotrs)
NO_SOLVER(cusolverDnDsyevd)
NO_SOLVER(cusolverDnDsyevd_bufferSize)
NO_SOLVER(cusolverDnSgeqrf)
NO_SOLVER(cusolverDnSgeqrf_bufferSize)
NO_SOLVER(cusolverDnSgesvd)
NO_SOLVER(cusolverDnSgesvd_bufferSize)
NO_SOLVER(cusolverDnSgetrf)
NO_SOLVER(cusolverDnSgetrf_bufferSize)
NO_SOLVER(cusolverDnSgetrs)
NO_SOLVER(cusolverDnSorgqr)
NO_SOLVER(cusolverDnSorgqr_bufferSize)
NO_SOLVER(cusolverDnSormqr)
NO_SOLVER(cusolverDnSormqr_bufferSize)
NO_SOLVER(cusolverDnSpotrf)
NO_SOLVER(cusolverDnSpotrf_bufferSize)
NO_SOLVER(cusolverDnSpotrs)
NO_SOLVER(cusolverDnSsyevd)
NO_SOLVER(cusolverDnSsyevd_bufferSize)
