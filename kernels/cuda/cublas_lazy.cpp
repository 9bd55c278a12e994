// cuBLAS, opened on the first call instead of linked (Note [Lazy CUDA libraries],
// core/lazy_library.h): each entry point Tocha calls, forwarded to the library's own. Compiled
// with hidden visibility, so they satisfy libtocha's calls without shadowing cuBLAS for anyone else.
#include <cublas_v2.h>

#include "core/lazy_library.h"

namespace {
tocha::LazyLibrary cublas_library(TOCHA_CUBLAS_SONAME, "cuBLAS");
}  // namespace

TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasCreate_v2, (cublasHandle_t * handle), (handle))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t streamId),
                   (handle, streamId))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasSetPointerMode_v2,
                   (cublasHandle_t handle, cublasPointerMode_t mode), (handle, mode))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasGemmEx,
                   (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                    const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B, cudaDataType Btype,
                    int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                    cublasGemmAlgo_t algo),
                   (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
                    computeType, algo))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasGemmStridedBatchedEx,
                   (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                    const void* alpha, const void* A, cudaDataType Atype, int lda, long long int strideA, const void* B,
                    cudaDataType Btype, int ldb, long long int strideB, const void* beta, void* C, cudaDataType Ctype,
                    int ldc, long long int strideC, int batchCount, cublasComputeType_t computeType,
                    cublasGemmAlgo_t algo),
                   (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C,
                    Ctype, ldc, strideC, batchCount, computeType, algo))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasSgeam,
                   (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                    const float* alpha, const float* A, int lda, const float* beta, const float* B, int ldb, float* C,
                    int ldc),
                   (handle, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasDgeam,
                   (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,
                    const double* alpha, const double* A, int lda, const double* beta, const double* B, int ldb,
                    double* C, int ldc),
                   (handle, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasDotEx,
                   (cublasHandle_t handle, int n, const void* x, cudaDataType xType, int incx, const void* y,
                    cudaDataType yType, int incy, void* result, cudaDataType resultType, cudaDataType executionType),
                   (handle, n, x, xType, incx, y, yType, incy, result, resultType, executionType))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasStrsm_v2,
                   (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                    cublasDiagType_t diag, int m, int n, const float* alpha, const float* A, int lda, float* B,
                    int ldb),
                   (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb))
TOCHA_LAZY_FORWARD(cublas_library, cublasStatus_t, cublasDtrsm_v2,
                   (cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, cublasOperation_t trans,
                    cublasDiagType_t diag, int m, int n, const double* alpha, const double* A, int lda, double* B,
                    int ldb),
                   (handle, side, uplo, trans, diag, m, n, alpha, A, lda, B, ldb))
TOCHA_LAZY_FORWARD(cublas_library, const char*, cublasGetStatusName, (cublasStatus_t status), (status))
TOCHA_LAZY_FORWARD(cublas_library, const char*, cublasGetStatusString, (cublasStatus_t status), (status))
