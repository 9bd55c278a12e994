// The Fortran LAPACK routines the CPU kernels call, as exported by OpenBLAS (which bundles LAPACK;
// Debian ships no LAPACKE header with it), and overloaded C++ wrappers per element type.
// Fortran passes every argument by reference and appends the lengths of character arguments
// (size_t, gfortran's convention; routines written in C ignore them).
#pragma once
#include <cstddef>

extern "C" {
void sgesv_(const int* n, const int* nrhs, float* a, const int* lda, int* ipiv, float* b, const int* ldb, int* info);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);
void strtrs_(const char* uplo, const char* trans, const char* diag, const int* n, const int* nrhs, const float* a,
             const int* lda, float* b, const int* ldb, int* info, size_t uplo_len, size_t trans_len, size_t diag_len);
void dtrtrs_(const char* uplo, const char* trans, const char* diag, const int* n, const int* nrhs, const double* a,
             const int* lda, double* b, const int* ldb, int* info, size_t uplo_len, size_t trans_len,
             size_t diag_len);
void sgels_(const char* trans, const int* m, const int* n, const int* nrhs, float* a, const int* lda, float* b,
            const int* ldb, float* work, const int* lwork, int* info, size_t trans_len);
void dgels_(const char* trans, const int* m, const int* n, const int* nrhs, double* a, const int* lda, double* b,
            const int* ldb, double* work, const int* lwork, int* info, size_t trans_len);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetri_(const int* n, float* a, const int* lda, const int* ipiv, float* work, const int* lwork, int* info);
void dgetri_(const int* n, double* a, const int* lda, const int* ipiv, double* work, const int* lwork, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t uplo_len);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
void spotrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, float* b,
             const int* ldb, int* info, size_t uplo_len);
void dpotrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, double* b,
             const int* ldb, int* info, size_t uplo_len);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t jobz_len, size_t uplo_len);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t jobz_len, size_t uplo_len);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
             size_t jobz_len);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             size_t jobz_len);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr, float* wi,
            float* vl, const int* ldvl, float* vr, const int* ldvr, float* work, const int* lwork, int* info,
            size_t jobvl_len, size_t jobvr_len);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info,
            size_t jobvl_len, size_t jobvr_len);
void sormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const float* a,
             const int* lda, const float* tau, float* c, const int* ldc, float* work, const int* lwork, int* info,
             size_t side_len, size_t trans_len);
void dormqr_(const char* side, const char* trans, const int* m, const int* n, const int* k, const double* a,
             const int* lda, const double* tau, double* c, const int* ldc, double* work, const int* lwork,
             int* info, size_t side_len, size_t trans_len);
void spstrf_(const char* uplo, const int* n, float* a, const int* lda, int* piv, int* rank, const float* tol,
             float* work, int* info, size_t uplo_len);
void dpstrf_(const char* uplo, const int* n, double* a, const int* lda, int* piv, int* rank, const double* tol,
             double* work, int* info, size_t uplo_len);
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
             int* info, size_t uplo_len);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork,
             int* info, size_t uplo_len);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, size_t uplo_len);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t uplo_len);
}

namespace tocha {
namespace cpu {
namespace lapack {

// Each wrapper takes values, calls the routine for its element type and returns info. A routine
// with a workspace is called with lwork == -1 first to query its size (work[0]).
inline int gesv(int n, int nrhs, float* a, int lda, int* ipiv, float* b, int ldb) {
  int info = 0; sgesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, &info); return info;
}
inline int gesv(int n, int nrhs, double* a, int lda, int* ipiv, double* b, int ldb) {
  int info = 0; dgesv_(&n, &nrhs, a, &lda, ipiv, b, &ldb, &info); return info;
}
inline int trtrs(char uplo, char trans, char diag, int n, int nrhs, const float* a, int lda, float* b, int ldb) {
  int info = 0; strtrs_(&uplo, &trans, &diag, &n, &nrhs, a, &lda, b, &ldb, &info, 1, 1, 1); return info;
}
inline int trtrs(char uplo, char trans, char diag, int n, int nrhs, const double* a, int lda, double* b, int ldb) {
  int info = 0; dtrtrs_(&uplo, &trans, &diag, &n, &nrhs, a, &lda, b, &ldb, &info, 1, 1, 1); return info;
}
inline int gels(int m, int n, int nrhs, float* a, int lda, float* b, int ldb, float* work, int lwork) {
  int info = 0; sgels_("N", &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, &info, 1); return info;
}
inline int gels(int m, int n, int nrhs, double* a, int lda, double* b, int ldb, double* work, int lwork) {
  int info = 0; dgels_("N", &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, &info, 1); return info;
}
inline int getrf(int n, float* a, int lda, int* ipiv) {
  int info = 0; sgetrf_(&n, &n, a, &lda, ipiv, &info); return info;
}
inline int getrf(int n, double* a, int lda, int* ipiv) {
  int info = 0; dgetrf_(&n, &n, a, &lda, ipiv, &info); return info;
}
inline int getri(int n, float* a, int lda, const int* ipiv, float* work, int lwork) {
  int info = 0; sgetri_(&n, a, &lda, ipiv, work, &lwork, &info); return info;
}
inline int getri(int n, double* a, int lda, const int* ipiv, double* work, int lwork) {
  int info = 0; dgetri_(&n, a, &lda, ipiv, work, &lwork, &info); return info;
}
inline int potrf(char uplo, int n, float* a, int lda) {
  int info = 0; spotrf_(&uplo, &n, a, &lda, &info, 1); return info;
}
inline int potrf(char uplo, int n, double* a, int lda) {
  int info = 0; dpotrf_(&uplo, &n, a, &lda, &info, 1); return info;
}
inline int potrs(char uplo, int n, int nrhs, const float* a, int lda, float* b, int ldb) {
  int info = 0; spotrs_(&uplo, &n, &nrhs, a, &lda, b, &ldb, &info, 1); return info;
}
inline int potrs(char uplo, int n, int nrhs, const double* a, int lda, double* b, int ldb) {
  int info = 0; dpotrs_(&uplo, &n, &nrhs, a, &lda, b, &ldb, &info, 1); return info;
}
inline int syevd(char jobz, char uplo, int n, float* a, int lda, float* w, float* work, int lwork, int* iwork,
                 int liwork) {
  int info = 0; ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1); return info;
}
inline int syevd(char jobz, char uplo, int n, double* a, int lda, double* w, double* work, int lwork, int* iwork,
                 int liwork) {
  int info = 0; dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, &info, 1, 1); return info;
}
inline int gesdd(char jobz, int m, int n, float* a, int lda, float* s, float* u, int ldu, float* vt, int ldvt,
                 float* work, int lwork, int* iwork) {
  int info = 0; sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1); return info;
}
inline int gesdd(char jobz, int m, int n, double* a, int lda, double* s, double* u, int ldu, double* vt, int ldvt,
                 double* work, int lwork, int* iwork) {
  int info = 0; dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, &info, 1); return info;
}
inline int geqrf(int m, int n, float* a, int lda, float* tau, float* work, int lwork) {
  int info = 0; sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info); return info;
}
inline int geqrf(int m, int n, double* a, int lda, double* tau, double* work, int lwork) {
  int info = 0; dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, &info); return info;
}
inline int orgqr(int m, int n, int k, float* a, int lda, const float* tau, float* work, int lwork) {
  int info = 0; sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info); return info;
}
inline int orgqr(int m, int n, int k, double* a, int lda, const double* tau, double* work, int lwork) {
  int info = 0; dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, &info); return info;
}

inline int geev(char jobvr, int n, float* a, int lda, float* wr, float* wi, float* vr, int ldvr, float* work,
                int lwork) {
  int info = 0, one = 1;
  sgeev_("N", &jobvr, &n, a, &lda, wr, wi, nullptr, &one, vr, &ldvr, work, &lwork, &info, 1, 1);
  return info;
}
inline int geev(char jobvr, int n, double* a, int lda, double* wr, double* wi, double* vr, int ldvr, double* work,
                int lwork) {
  int info = 0, one = 1;
  dgeev_("N", &jobvr, &n, a, &lda, wr, wi, nullptr, &one, vr, &ldvr, work, &lwork, &info, 1, 1);
  return info;
}
inline int ormqr(char side, char trans, int m, int n, int k, const float* a, int lda, const float* tau, float* c,
                 int ldc, float* work, int lwork) {
  int info = 0;
  sormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, &info, 1, 1);
  return info;
}
inline int ormqr(char side, char trans, int m, int n, int k, const double* a, int lda, const double* tau, double* c,
                 int ldc, double* work, int lwork) {
  int info = 0;
  dormqr_(&side, &trans, &m, &n, &k, a, &lda, tau, c, &ldc, work, &lwork, &info, 1, 1);
  return info;
}
// work holds 2 n elements.
inline int pstrf(char uplo, int n, float* a, int lda, int* piv, int* rank, float tol, float* work) {
  int info = 0; spstrf_(&uplo, &n, a, &lda, piv, rank, &tol, work, &info, 1); return info;
}
inline int pstrf(char uplo, int n, double* a, int lda, int* piv, int* rank, double tol, double* work) {
  int info = 0; dpstrf_(&uplo, &n, a, &lda, piv, rank, &tol, work, &info, 1); return info;
}
inline int sytrf(char uplo, int n, float* a, int lda, int* ipiv, float* work, int lwork) {
  int info = 0; ssytrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, &info, 1); return info;
}
inline int sytrf(char uplo, int n, double* a, int lda, int* ipiv, double* work, int lwork) {
  int info = 0; dsytrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, &info, 1); return info;
}
inline int sytrs(char uplo, int n, int nrhs, const float* a, int lda, const int* ipiv, float* b, int ldb) {
  int info = 0; ssytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1); return info;
}
inline int sytrs(char uplo, int n, int nrhs, const double* a, int lda, const int* ipiv, double* b, int ldb) {
  int info = 0; dsytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1); return info;
}

}  // namespace lapack
}  // namespace cpu
}  // namespace tocha
