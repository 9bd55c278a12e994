// The cuSOLVER (and two cuBLAS) routines of the CUDA LAPACK kernels, overloaded per element type
// (float: cusolverDnS*, double: cusolverDnD*) so that the kernels are templates, as
// kernels/cpu/lapack_fortran.h does for the CPU. Each returns the library's status; the
// *_buffer_size wrappers return the workspace size in elements through lwork.
#pragma once
#include <cublas_v2.h>
#include <cusolverDn.h>

namespace tocha {
namespace cuda {
namespace solver {

#define TOCHA_SOLVER_BOTH(decl_f, call_f, decl_d, call_d) \
  inline cusolverStatus_t decl_f { return call_f; }       \
  inline cusolverStatus_t decl_d { return call_d; }

// LU: getrf, getrs.
TOCHA_SOLVER_BOTH(getrf_buffer_size(cusolverDnHandle_t h, int m, int n, float* a, int lda, int* lwork),
                  cusolverDnSgetrf_bufferSize(h, m, n, a, lda, lwork),
                  getrf_buffer_size(cusolverDnHandle_t h, int m, int n, double* a, int lda, int* lwork),
                  cusolverDnDgetrf_bufferSize(h, m, n, a, lda, lwork))
TOCHA_SOLVER_BOTH(getrf(cusolverDnHandle_t h, int m, int n, float* a, int lda, float* work, int* ipiv, int* info),
                  cusolverDnSgetrf(h, m, n, a, lda, work, ipiv, info),
                  getrf(cusolverDnHandle_t h, int m, int n, double* a, int lda, double* work, int* ipiv, int* info),
                  cusolverDnDgetrf(h, m, n, a, lda, work, ipiv, info))
TOCHA_SOLVER_BOTH(getrs(cusolverDnHandle_t h, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b,
                        int ldb, int* info),
                  cusolverDnSgetrs(h, CUBLAS_OP_N, n, nrhs, a, lda, ipiv, b, ldb, info),
                  getrs(cusolverDnHandle_t h, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b,
                        int ldb, int* info),
                  cusolverDnDgetrs(h, CUBLAS_OP_N, n, nrhs, a, lda, ipiv, b, ldb, info))

// Cholesky: potrf, potrs.
TOCHA_SOLVER_BOTH(potrf_buffer_size(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, float* a, int lda, int* lwork),
                  cusolverDnSpotrf_bufferSize(h, uplo, n, a, lda, lwork),
                  potrf_buffer_size(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, double* a, int lda,
                                    int* lwork),
                  cusolverDnDpotrf_bufferSize(h, uplo, n, a, lda, lwork))
TOCHA_SOLVER_BOTH(potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, float* a, int lda, float* work,
                        int lwork, int* info),
                  cusolverDnSpotrf(h, uplo, n, a, lda, work, lwork, info),
                  potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, double* a, int lda, double* work,
                        int lwork, int* info),
                  cusolverDnDpotrf(h, uplo, n, a, lda, work, lwork, info))
TOCHA_SOLVER_BOTH(potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs, const float* a, int lda,
                        float* b, int ldb, int* info),
                  cusolverDnSpotrs(h, uplo, n, nrhs, a, lda, b, ldb, info),
                  potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int nrhs, const double* a, int lda,
                        double* b, int ldb, int* info),
                  cusolverDnDpotrs(h, uplo, n, nrhs, a, lda, b, ldb, info))

// QR: geqrf, orgqr, ormqr.
TOCHA_SOLVER_BOTH(geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, float* a, int lda, int* lwork),
                  cusolverDnSgeqrf_bufferSize(h, m, n, a, lda, lwork),
                  geqrf_buffer_size(cusolverDnHandle_t h, int m, int n, double* a, int lda, int* lwork),
                  cusolverDnDgeqrf_bufferSize(h, m, n, a, lda, lwork))
TOCHA_SOLVER_BOTH(geqrf(cusolverDnHandle_t h, int m, int n, float* a, int lda, float* tau, float* work, int lwork,
                        int* info),
                  cusolverDnSgeqrf(h, m, n, a, lda, tau, work, lwork, info),
                  geqrf(cusolverDnHandle_t h, int m, int n, double* a, int lda, double* tau, double* work, int lwork,
                        int* info),
                  cusolverDnDgeqrf(h, m, n, a, lda, tau, work, lwork, info))
TOCHA_SOLVER_BOTH(orgqr_buffer_size(cusolverDnHandle_t h, int m, int n, int k, const float* a, int lda,
                                    const float* tau, int* lwork),
                  cusolverDnSorgqr_bufferSize(h, m, n, k, a, lda, tau, lwork),
                  orgqr_buffer_size(cusolverDnHandle_t h, int m, int n, int k, const double* a, int lda,
                                    const double* tau, int* lwork),
                  cusolverDnDorgqr_bufferSize(h, m, n, k, a, lda, tau, lwork))
TOCHA_SOLVER_BOTH(orgqr(cusolverDnHandle_t h, int m, int n, int k, float* a, int lda, const float* tau, float* work,
                        int lwork, int* info),
                  cusolverDnSorgqr(h, m, n, k, a, lda, tau, work, lwork, info),
                  orgqr(cusolverDnHandle_t h, int m, int n, int k, double* a, int lda, const double* tau,
                        double* work, int lwork, int* info),
                  cusolverDnDorgqr(h, m, n, k, a, lda, tau, work, lwork, info))
TOCHA_SOLVER_BOTH(ormqr_buffer_size(cusolverDnHandle_t h, cublasOperation_t trans, int m, int n, int k,
                                    const float* a, int lda, const float* tau, const float* c, int ldc, int* lwork),
                  cusolverDnSormqr_bufferSize(h, CUBLAS_SIDE_LEFT, trans, m, n, k, a, lda, tau, c, ldc, lwork),
                  ormqr_buffer_size(cusolverDnHandle_t h, cublasOperation_t trans, int m, int n, int k,
                                    const double* a, int lda, const double* tau, const double* c, int ldc,
                                    int* lwork),
                  cusolverDnDormqr_bufferSize(h, CUBLAS_SIDE_LEFT, trans, m, n, k, a, lda, tau, c, ldc, lwork))
TOCHA_SOLVER_BOTH(ormqr(cusolverDnHandle_t h, cublasOperation_t trans, int m, int n, int k, const float* a, int lda,
                        const float* tau, float* c, int ldc, float* work, int lwork, int* info),
                  cusolverDnSormqr(h, CUBLAS_SIDE_LEFT, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info),
                  ormqr(cusolverDnHandle_t h, cublasOperation_t trans, int m, int n, int k, const double* a, int lda,
                        const double* tau, double* c, int ldc, double* work, int lwork, int* info),
                  cusolverDnDormqr(h, CUBLAS_SIDE_LEFT, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info))
// ormqr with the side chosen (Q C or C Q): torch.ormqr.
TOCHA_SOLVER_BOTH(ormqr_buffer_size(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans, int m,
                                    int n, int k, const float* a, int lda, const float* tau, const float* c, int ldc,
                                    int* lwork),
                  cusolverDnSormqr_bufferSize(h, side, trans, m, n, k, a, lda, tau, c, ldc, lwork),
                  ormqr_buffer_size(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans, int m,
                                    int n, int k, const double* a, int lda, const double* tau, const double* c,
                                    int ldc, int* lwork),
                  cusolverDnDormqr_bufferSize(h, side, trans, m, n, k, a, lda, tau, c, ldc, lwork))
TOCHA_SOLVER_BOTH(ormqr(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k,
                        const float* a, int lda, const float* tau, float* c, int ldc, float* work, int lwork,
                        int* info),
                  cusolverDnSormqr(h, side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info),
                  ormqr(cusolverDnHandle_t h, cublasSideMode_t side, cublasOperation_t trans, int m, int n, int k,
                        const double* a, int lda, const double* tau, double* c, int ldc, double* work, int lwork,
                        int* info),
                  cusolverDnDormqr(h, side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info))

// Symmetric eigenvalues: syevd.
TOCHA_SOLVER_BOTH(syevd_buffer_size(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
                                    const float* a, int lda, const float* w, int* lwork),
                  cusolverDnSsyevd_bufferSize(h, jobz, uplo, n, a, lda, w, lwork),
                  syevd_buffer_size(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n,
                                    const double* a, int lda, const double* w, int* lwork),
                  cusolverDnDsyevd_bufferSize(h, jobz, uplo, n, a, lda, w, lwork))
TOCHA_SOLVER_BOTH(syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, float* a,
                        int lda, float* w, float* work, int lwork, int* info),
                  cusolverDnSsyevd(h, jobz, uplo, n, a, lda, w, work, lwork, info),
                  syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz, cublasFillMode_t uplo, int n, double* a,
                        int lda, double* w, double* work, int lwork, int* info),
                  cusolverDnDsyevd(h, jobz, uplo, n, a, lda, w, work, lwork, info))

// SVD: gesvd (m >= n only; the kernel transposes wide matrices).
inline cusolverStatus_t gesvd_buffer_size(cusolverDnHandle_t h, int m, int n, float*, int* lwork) {
  return cusolverDnSgesvd_bufferSize(h, m, n, lwork);
}
inline cusolverStatus_t gesvd_buffer_size(cusolverDnHandle_t h, int m, int n, double*, int* lwork) {
  return cusolverDnDgesvd_bufferSize(h, m, n, lwork);
}
TOCHA_SOLVER_BOTH(gesvd(cusolverDnHandle_t h, signed char job, int m, int n, float* a, int lda, float* s, float* u,
                        int ldu, float* vt, int ldvt, float* work, int lwork, float* rwork, int* info),
                  cusolverDnSgesvd(h, job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info),
                  gesvd(cusolverDnHandle_t h, signed char job, int m, int n, double* a, int lda, double* s, double* u,
                        int ldu, double* vt, int ldvt, double* work, int lwork, double* rwork, int* info),
                  cusolverDnDgesvd(h, job, job, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, rwork, info))

#undef TOCHA_SOLVER_BOTH

// cuBLAS triangular solve op(A) X = B on the left (X overwrites B), non-unit diagonal unless told.
inline cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int m, int n,
                           const float* a, int lda, float* b, int ldb,
                           cublasDiagType_t diag = CUBLAS_DIAG_NON_UNIT) {
  const float one = 1;
  return cublasStrsm(h, CUBLAS_SIDE_LEFT, uplo, trans, diag, m, n, &one, a, lda, b, ldb);
}
inline cublasStatus_t trsm(cublasHandle_t h, cublasFillMode_t uplo, cublasOperation_t trans, int m, int n,
                           const double* a, int lda, double* b, int ldb,
                           cublasDiagType_t diag = CUBLAS_DIAG_NON_UNIT) {
  const double one = 1;
  return cublasDtrsm(h, CUBLAS_SIDE_LEFT, uplo, trans, diag, m, n, &one, a, lda, b, ldb);
}

}  // namespace solver
}  // namespace cuda
}  // namespace tocha
