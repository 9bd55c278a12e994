/* tocha_linalg.h -- C ABI of the linalg op family (BLAS products and LAPACK). Included by tocha.h;
 * see its conventions. Multipliers follow Torch7: addmm computes beta * M + alpha * (mat1 @ mat2).
 * Functions with several results return 0 (or -1 on error) and store them through out-pointers;
 * each stored tensor carries one reference that the caller owns. Their `_out` forms write into
 * the given tensors instead (resized). A `upper` flag is non-zero for Torch7's 'U'. */
#ifndef TOCHA_LINALG_ABI_H
#define TOCHA_LINALG_ABI_H

/* ---- BLAS ---------------------------------------------------------------------------------- */
/* Sum of x[i] * y[i] over tensors with equal element counts, as a 0-dim tensor. */
TOCHA_API tocha_tensor *tocha_dot(const tocha_tensor *x, const tocha_tensor *y) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_mv(const tocha_tensor *mat, const tocha_tensor *vec) TOCHA_NOEXCEPT;
TOCHA_API int tocha_mv_out(tocha_tensor *out, const tocha_tensor *mat, const tocha_tensor *vec) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_mm(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API int tocha_mm_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_bmm(const tocha_tensor *batch1, const tocha_tensor *batch2) TOCHA_NOEXCEPT;
TOCHA_API int tocha_bmm_out(tocha_tensor *out, const tocha_tensor *batch1, const tocha_tensor *batch2) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_ger(const tocha_tensor *vec1, const tocha_tensor *vec2) TOCHA_NOEXCEPT;
TOCHA_API int tocha_ger_out(tocha_tensor *out, const tocha_tensor *vec1, const tocha_tensor *vec2) TOCHA_NOEXCEPT;
/* beta * M + alpha * (mat1 @ mat2); out may be M itself (in place). */
TOCHA_API tocha_tensor *tocha_addmm(double beta, const tocha_tensor *m, double alpha, const tocha_tensor *mat1,
                                    const tocha_tensor *mat2) TOCHA_NOEXCEPT;
TOCHA_API int tocha_addmm_out(tocha_tensor *out, double beta, const tocha_tensor *m, double alpha,
                              const tocha_tensor *mat1, const tocha_tensor *mat2) TOCHA_NOEXCEPT;
/* beta * vec1 + alpha * (mat @ vec2). */
TOCHA_API tocha_tensor *tocha_addmv(double beta, const tocha_tensor *vec1, double alpha, const tocha_tensor *mat,
                                    const tocha_tensor *vec2) TOCHA_NOEXCEPT;
TOCHA_API int tocha_addmv_out(tocha_tensor *out, double beta, const tocha_tensor *vec1, double alpha,
                              const tocha_tensor *mat, const tocha_tensor *vec2) TOCHA_NOEXCEPT;
/* beta * M + alpha * outer(vec1, vec2). */
TOCHA_API tocha_tensor *tocha_addr(double beta, const tocha_tensor *m, double alpha, const tocha_tensor *vec1,
                                   const tocha_tensor *vec2) TOCHA_NOEXCEPT;
TOCHA_API int tocha_addr_out(tocha_tensor *out, double beta, const tocha_tensor *m, double alpha,
                             const tocha_tensor *vec1, const tocha_tensor *vec2) TOCHA_NOEXCEPT;
/* beta * M + alpha * sum_i batch1[i] @ batch2[i]. */
TOCHA_API tocha_tensor *tocha_addbmm(double beta, const tocha_tensor *m, double alpha, const tocha_tensor *batch1,
                                     const tocha_tensor *batch2) TOCHA_NOEXCEPT;
TOCHA_API int tocha_addbmm_out(tocha_tensor *out, double beta, const tocha_tensor *m, double alpha,
                               const tocha_tensor *batch1, const tocha_tensor *batch2) TOCHA_NOEXCEPT;
/* beta * M[i] + alpha * batch1[i] @ batch2[i] for each i. */
TOCHA_API tocha_tensor *tocha_baddbmm(double beta, const tocha_tensor *m, double alpha, const tocha_tensor *batch1,
                                      const tocha_tensor *batch2) TOCHA_NOEXCEPT;
TOCHA_API int tocha_baddbmm_out(tocha_tensor *out, double beta, const tocha_tensor *m, double alpha,
                                const tocha_tensor *batch1, const tocha_tensor *batch2) TOCHA_NOEXCEPT;

/* ---- LAPACK (f32 and f64) ------------------------------------------------------------------- */
/* Solves A X = B: *x = X, *lu = A's LU factors. */
TOCHA_API int tocha_gesv(const tocha_tensor *b, const tocha_tensor *a, tocha_tensor **x,
                         tocha_tensor **lu) TOCHA_NOEXCEPT;
TOCHA_API int tocha_gesv_out(tocha_tensor *x, tocha_tensor *lu, const tocha_tensor *b,
                             const tocha_tensor *a) TOCHA_NOEXCEPT;
/* Least squares / least norm solution of A X = B (Torch7 layout: X has max(m, n) rows). */
TOCHA_API int tocha_gels(const tocha_tensor *b, const tocha_tensor *a, tocha_tensor **x,
                         tocha_tensor **factored) TOCHA_NOEXCEPT;
TOCHA_API int tocha_gels_out(tocha_tensor *x, tocha_tensor *factored, const tocha_tensor *b,
                             const tocha_tensor *a) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_inverse(const tocha_tensor *a) TOCHA_NOEXCEPT;
TOCHA_API int tocha_inverse_out(tocha_tensor *out, const tocha_tensor *a) TOCHA_NOEXCEPT;
/* Cholesky factor U (A = U^T U) when upper, else L (A = L L^T). */
TOCHA_API tocha_tensor *tocha_potrf(const tocha_tensor *a, int upper) TOCHA_NOEXCEPT;
TOCHA_API int tocha_potrf_out(tocha_tensor *out, const tocha_tensor *a, int upper) TOCHA_NOEXCEPT;
/* Solves A X = B given chol = potrf(A, upper). */
TOCHA_API tocha_tensor *tocha_potrs(const tocha_tensor *b, const tocha_tensor *chol, int upper) TOCHA_NOEXCEPT;
TOCHA_API int tocha_potrs_out(tocha_tensor *out, const tocha_tensor *b, const tocha_tensor *chol,
                              int upper) TOCHA_NOEXCEPT;
/* Eigenvalues *e (ascending) of a symmetric A; *v holds the eigenvectors as columns when vectors is
 * non-zero, else an empty tensor. */
TOCHA_API int tocha_symeig(const tocha_tensor *a, int vectors, int upper, tocha_tensor **e,
                           tocha_tensor **v) TOCHA_NOEXCEPT;
TOCHA_API int tocha_symeig_out(tocha_tensor *e, tocha_tensor *v, const tocha_tensor *a, int vectors,
                               int upper) TOCHA_NOEXCEPT;
/* A = U diag(S) V^T; some != 0 gives the reduced U and V (Torch7's 'S'), else the full ones ('A'). */
TOCHA_API int tocha_svd(const tocha_tensor *a, int some, tocha_tensor **u, tocha_tensor **s,
                        tocha_tensor **v) TOCHA_NOEXCEPT;
TOCHA_API int tocha_svd_out(tocha_tensor *u, tocha_tensor *s, tocha_tensor *v, const tocha_tensor *a,
                            int some) TOCHA_NOEXCEPT;
/* Reduced QR: A = Q R with Q m x min(m,n), R min(m,n) x n. */
TOCHA_API int tocha_qr(const tocha_tensor *a, tocha_tensor **q, tocha_tensor **r) TOCHA_NOEXCEPT;
TOCHA_API int tocha_qr_out(tocha_tensor *q, tocha_tensor *r, const tocha_tensor *a) TOCHA_NOEXCEPT;
/* Torch7's remaining LAPACK calls (core/ops/lapack_t7.h), not differentiable. eig: eigenvalues of
 * a general A as n x 2 (real, imaginary); *v the right eigenvectors as LAPACK packs them when
 * vectors != 0, else empty. */
TOCHA_API int tocha_eig(const tocha_tensor *a, int vectors, tocha_tensor **e, tocha_tensor **v) TOCHA_NOEXCEPT;
TOCHA_API int tocha_eig_out(tocha_tensor *e, tocha_tensor *v, const tocha_tensor *a, int vectors) TOCHA_NOEXCEPT;
/* geqrf: *f holds R and the Householder vectors, *tau their scalars. */
TOCHA_API int tocha_geqrf(const tocha_tensor *a, tocha_tensor **f, tocha_tensor **tau) TOCHA_NOEXCEPT;
TOCHA_API int tocha_geqrf_out(tocha_tensor *f, tocha_tensor *tau, const tocha_tensor *a) TOCHA_NOEXCEPT;
/* Q (m x k) from geqrf's results. */
TOCHA_API tocha_tensor *tocha_orgqr(const tocha_tensor *a, const tocha_tensor *tau) TOCHA_NOEXCEPT;
TOCHA_API int tocha_orgqr_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *tau) TOCHA_NOEXCEPT;
/* op(Q) C (left != 0) or C op(Q), op(Q) = Q^T when transpose != 0. */
TOCHA_API tocha_tensor *tocha_ormqr(const tocha_tensor *a, const tocha_tensor *tau, const tocha_tensor *c, int left,
                                    int transpose) TOCHA_NOEXCEPT;
TOCHA_API int tocha_ormqr_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *tau,
                              const tocha_tensor *c, int left, int transpose) TOCHA_NOEXCEPT;
/* Pivoted Cholesky P^T A P = U^T U (upper) or L L^T; *piv 1-based (an IntTensor); tol < 0: LAPACK's. */
TOCHA_API int tocha_pstrf(const tocha_tensor *a, int upper, double tol, tocha_tensor **u,
                          tocha_tensor **piv) TOCHA_NOEXCEPT;
TOCHA_API int tocha_pstrf_out(tocha_tensor *u, tocha_tensor *piv, const tocha_tensor *a, int upper,
                              double tol) TOCHA_NOEXCEPT;

/* ---- determinants (f32/f64, a matrix or a batch (..., n, n), one LU factorization each) ---- */
/* det(A) of size A's batch dims (0-dim for a matrix); differentiable. */
TOCHA_API tocha_tensor *tocha_det(const tocha_tensor *a) TOCHA_NOEXCEPT;
/* sign(det A) and log|det A| (0 and -inf when A is singular); logabsdet is differentiable. */
TOCHA_API int tocha_slogdet(const tocha_tensor *a, tocha_tensor **sign, tocha_tensor **logabsdet) TOCHA_NOEXCEPT;
/* log(det A): NaN where det A < 0, -inf where it is 0; differentiable. */
TOCHA_API tocha_tensor *tocha_logdet(const tocha_tensor *a) TOCHA_NOEXCEPT;

#endif
