/* tocha_linalg_ns.h -- C ABI of torch.linalg's batched decompositions and solvers (PyTorch's
 * semantics, core/ops/linalg_decomp.h). Included by tocha.h; see its conventions. Functions with
 * several results return 0 (or -1 on error) and store them through out-pointers, each carrying
 * one reference the caller owns. */
#ifndef TOCHA_LINALG_NS_ABI_H
#define TOCHA_LINALG_NS_ABI_H

/* Cholesky factor of each matrix of A (..., n, n): lower L, or upper U = L^T when upper != 0. */
TOCHA_API tocha_tensor *tocha_linalg_cholesky(const tocha_tensor *a, int upper) TOCHA_NOEXCEPT;
/* Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices, read from their lower
 * triangle (upper = 0, PyTorch's UPLO 'L') or upper one. */
TOCHA_API int tocha_linalg_eigh(const tocha_tensor *a, int upper, tocha_tensor **values,
                                tocha_tensor **vectors) TOCHA_NOEXCEPT;
/* A = U diag(S) Vh, reduced unless full_matrices != 0. */
TOCHA_API int tocha_linalg_svd(const tocha_tensor *a, int full_matrices, tocha_tensor **u, tocha_tensor **s,
                               tocha_tensor **vh) TOCHA_NOEXCEPT;
/* QR with mode "reduced", "complete" or "r" (Q is then empty). */
TOCHA_API int tocha_linalg_qr(const tocha_tensor *a, const char *mode, tocha_tensor **q,
                              tocha_tensor **r) TOCHA_NOEXCEPT;
/* A^-1 of each matrix. */
TOCHA_API tocha_tensor *tocha_linalg_inv(const tocha_tensor *a) TOCHA_NOEXCEPT;
/* X with A X = B, batch dims broadcast; B with one dim fewer than A is a batch of vectors. */
TOCHA_API tocha_tensor *tocha_linalg_solve(const tocha_tensor *a, const tocha_tensor *b) TOCHA_NOEXCEPT;

/* Norms: ord-vector norm over ndims dims (0-based; ndims 0: all elements); matrix norm over dims
 * d0, d1 with kind 'f' (Frobenius), 'n' (nuclear) or 'o' (ord 1, -1, 2, -2, +-inf). */
TOCHA_API tocha_tensor *tocha_linalg_vector_norm(const tocha_tensor *x, double ord, int ndims, const int64_t *dims,
                                                 int keepdim) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_matrix_norm(const tocha_tensor *a, int kind, double ord, int64_t d0, int64_t d1,
                                                 int keepdim) TOCHA_NOEXCEPT;
/* Rank: singular values above max(atol, rtol * largest), a negative one "not given" (PyTorch's
 * defaults); pseudo-inverse (rtol < 0: the default). */
TOCHA_API tocha_tensor *tocha_linalg_matrix_rank(const tocha_tensor *a, double atol, double rtol,
                                                 int hermitian) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_pinv(const tocha_tensor *a, double rtol, int hermitian) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_matrix_power(const tocha_tensor *a, int64_t n) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_matrix_exp(const tocha_tensor *a) TOCHA_NOEXCEPT;
/* Least squares through the pseudo-inverse: solution, residuals, rank, singular values. */
TOCHA_API int tocha_linalg_lstsq(const tocha_tensor *a, const tocha_tensor *b, double rcond, tocha_tensor **x,
                                 tocha_tensor **residuals, tocha_tensor **rank, tocha_tensor **sv) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_solve_triangular(const tocha_tensor *a, const tocha_tensor *b, int upper,
                                                      int left, int unitriangular) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_cond(const tocha_tensor *a, int kind, double ord) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_vander(const tocha_tensor *x, int64_t n) TOCHA_NOEXCEPT;

/* LU (Note [LU from ops]): packed factors and 1-based int32 pivots; P, L, U; a solve from them. */
TOCHA_API int tocha_linalg_lu_factor(const tocha_tensor *a, tocha_tensor **lu, tocha_tensor **pivots) TOCHA_NOEXCEPT;
TOCHA_API int tocha_linalg_lu_unpack(const tocha_tensor *lu, const tocha_tensor *pivots, tocha_tensor **p,
                                     tocha_tensor **l, tocha_tensor **u) TOCHA_NOEXCEPT;
/* P, L, U with A = P L U (differentiable in L and U for square A). */
TOCHA_API int tocha_linalg_lu(const tocha_tensor *a, tocha_tensor **p, tocha_tensor **l, tocha_tensor **u) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_lu_solve(const tocha_tensor *lu, const tocha_tensor *pivots,
                                              const tocha_tensor *b) TOCHA_NOEXCEPT;
/* LDL^T (sytrf, Bunch-Kaufman; core/ops/linalg_ldl.h): compact LD, 1-based int32 pivots and
   sytrf's info per matrix; and a solve from them. Not differentiable. */
TOCHA_API int tocha_linalg_ldl_factor(const tocha_tensor *a, tocha_tensor **ld, tocha_tensor **pivots,
                                      tocha_tensor **info) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_linalg_ldl_solve(const tocha_tensor *ld, const tocha_tensor *pivots,
                                               const tocha_tensor *b) TOCHA_NOEXCEPT;

#endif
