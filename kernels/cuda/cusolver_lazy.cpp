// cuSOLVER, opened on the first call instead of linked (Note [Lazy CUDA libraries],
// core/lazy_library.h): each entry point of kernels/cuda/cusolver_api.h and solver.cpp, forwarded
// to the library's own. Compiled with hidden visibility, like kernels/cuda/cublas_lazy.cpp.
#include <cusolverDn.h>

#include "core/lazy_library.h"

namespace {
tocha::LazyLibrary cusolver_library(TOCHA_CUSOLVER_SONAME, "cuSOLVER");
}  // namespace

TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnCreate, (cusolverDnHandle_t * handle), (handle))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDestroy, (cusolverDnHandle_t handle), (handle))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDgeqrf,
                   (cusolverDnHandle_t handle, int m, int n, double* A, int lda, double* TAU, double* Workspace,
                    int Lwork, int* devInfo),
                   (handle, m, n, A, lda, TAU, Workspace, Lwork, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDgeqrf_bufferSize,
                   (cusolverDnHandle_t handle, int m, int n, double* A, int lda, int* lwork),
                   (handle, m, n, A, lda, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDgesvd,
                   (cusolverDnHandle_t handle, signed char jobu, signed char jobvt, int m, int n, double* A, int lda,
                    double* S, double* U, int ldu, double* VT, int ldvt, double* work, int lwork, double* rwork,
                    int* info),
                   (handle, jobu, jobvt, m, n, A, lda, S, U, ldu, VT, ldvt, work, lwork, rwork, info))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDgesvd_bufferSize,
                   (cusolverDnHandle_t handle, int m, int n, int* lwork), (handle, m, n, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDgetrf,
                   (cusolverDnHandle_t handle, int m, int n, double* A, int lda, double* Workspace, int* devIpiv,
                    int* devInfo),
                   (handle, m, n, A, lda, Workspace, devIpiv, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDgetrf_bufferSize,
                   (cusolverDnHandle_t handle, int m, int n, double* A, int lda, int* Lwork),
                   (handle, m, n, A, lda, Lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDgetrs,
                   (cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const double* A, int lda,
                    const int* devIpiv, double* B, int ldb, int* devInfo),
                   (handle, trans, n, nrhs, A, lda, devIpiv, B, ldb, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDorgqr,
                   (cusolverDnHandle_t handle, int m, int n, int k, double* A, int lda, const double* tau, double* work,
                    int lwork, int* info),
                   (handle, m, n, k, A, lda, tau, work, lwork, info))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDorgqr_bufferSize,
                   (cusolverDnHandle_t handle, int m, int n, int k, const double* A, int lda, const double* tau,
                    int* lwork),
                   (handle, m, n, k, A, lda, tau, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDormqr,
                   (cusolverDnHandle_t handle, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k,
                    const double* A, int lda, const double* tau, double* C, int ldc, double* work, int lwork,
                    int* devInfo),
                   (handle, side, trans, m, n, k, A, lda, tau, C, ldc, work, lwork, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDormqr_bufferSize,
                   (cusolverDnHandle_t handle, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k,
                    const double* A, int lda, const double* tau, const double* C, int ldc, int* lwork),
                   (handle, side, trans, m, n, k, A, lda, tau, C, ldc, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDpotrf,
                   (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* A, int lda, double* Workspace,
                    int Lwork, int* devInfo),
                   (handle, uplo, n, A, lda, Workspace, Lwork, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDpotrf_bufferSize,
                   (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, double* A, int lda, int* Lwork),
                   (handle, uplo, n, A, lda, Lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDpotrs,
                   (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, const double* A, int lda,
                    double* B, int ldb, int* devInfo),
                   (handle, uplo, n, nrhs, A, lda, B, ldb, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDsyevd,
                   (cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, double* A, int lda,
                    double* W, double* work, int lwork, int* info),
                   (handle, jobz, uplo, n, A, lda, W, work, lwork, info))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnDsyevd_bufferSize,
                   (cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, const double* A,
                    int lda, const double* W, int* lwork),
                   (handle, jobz, uplo, n, A, lda, W, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSetStream,
                   (cusolverDnHandle_t handle, cudaStream_t streamId), (handle, streamId))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSgeqrf,
                   (cusolverDnHandle_t handle, int m, int n, float* A, int lda, float* TAU, float* Workspace, int Lwork,
                    int* devInfo),
                   (handle, m, n, A, lda, TAU, Workspace, Lwork, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSgeqrf_bufferSize,
                   (cusolverDnHandle_t handle, int m, int n, float* A, int lda, int* lwork),
                   (handle, m, n, A, lda, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSgesvd,
                   (cusolverDnHandle_t handle, signed char jobu, signed char jobvt, int m, int n, float* A, int lda,
                    float* S, float* U, int ldu, float* VT, int ldvt, float* work, int lwork, float* rwork, int* info),
                   (handle, jobu, jobvt, m, n, A, lda, S, U, ldu, VT, ldvt, work, lwork, rwork, info))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSgesvd_bufferSize,
                   (cusolverDnHandle_t handle, int m, int n, int* lwork), (handle, m, n, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSgetrf,
                   (cusolverDnHandle_t handle, int m, int n, float* A, int lda, float* Workspace, int* devIpiv,
                    int* devInfo),
                   (handle, m, n, A, lda, Workspace, devIpiv, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSgetrf_bufferSize,
                   (cusolverDnHandle_t handle, int m, int n, float* A, int lda, int* Lwork),
                   (handle, m, n, A, lda, Lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSgetrs,
                   (cusolverDnHandle_t handle, cublasOperation_t trans, int n, int nrhs, const float* A, int lda,
                    const int* devIpiv, float* B, int ldb, int* devInfo),
                   (handle, trans, n, nrhs, A, lda, devIpiv, B, ldb, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSorgqr,
                   (cusolverDnHandle_t handle, int m, int n, int k, float* A, int lda, const float* tau, float* work,
                    int lwork, int* info),
                   (handle, m, n, k, A, lda, tau, work, lwork, info))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSorgqr_bufferSize,
                   (cusolverDnHandle_t handle, int m, int n, int k, const float* A, int lda, const float* tau,
                    int* lwork),
                   (handle, m, n, k, A, lda, tau, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSormqr,
                   (cusolverDnHandle_t handle, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k,
                    const float* A, int lda, const float* tau, float* C, int ldc, float* work, int lwork, int* devInfo),
                   (handle, side, trans, m, n, k, A, lda, tau, C, ldc, work, lwork, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSormqr_bufferSize,
                   (cusolverDnHandle_t handle, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k,
                    const float* A, int lda, const float* tau, const float* C, int ldc, int* lwork),
                   (handle, side, trans, m, n, k, A, lda, tau, C, ldc, lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSpotrf,
                   (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float* A, int lda, float* Workspace,
                    int Lwork, int* devInfo),
                   (handle, uplo, n, A, lda, Workspace, Lwork, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSpotrf_bufferSize,
                   (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, float* A, int lda, int* Lwork),
                   (handle, uplo, n, A, lda, Lwork))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSpotrs,
                   (cusolverDnHandle_t handle, cublasFillMode_t uplo, int n, int nrhs, const float* A, int lda,
                    float* B, int ldb, int* devInfo),
                   (handle, uplo, n, nrhs, A, lda, B, ldb, devInfo))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSsyevd,
                   (cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, float* A, int lda,
                    float* W, float* work, int lwork, int* info),
                   (handle, jobz, uplo, n, A, lda, W, work, lwork, info))
TOCHA_LAZY_FORWARD(cusolver_library, cusolverStatus_t, cusolverDnSsyevd_bufferSize,
                   (cusolverDnHandle_t handle, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, const float* A,
                    int lda, const float* W, int* lwork),
                   (handle, jobz, uplo, n, A, lda, W, lwork))
