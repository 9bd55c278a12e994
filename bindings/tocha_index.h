/* tocha_index.h -- C ABI of the index op family: index/gather/scatter, masks and nonzero,
 * cat/stack, diag/tril/triu, flip. Included by tocha.h; see its conventions. Here:
 *  - `index_base` is what index values count from (1 for Lua, 0 for C hosts), for indices given
 *    and returned (nonzero).
 *  - Functions ending in `_` modify their first argument and return 0; the functions of the same
 *    name without the suffix return a modified copy (one reference) and leave it untouched.
 *  - A list of tensors is (int n, const tocha_tensor **list); the tensors are borrowed.
 *  - Masks are ByteTensors or BoolTensors that broadcast to the tensor or have as many elements.
 */
#ifndef TOCHA_INDEX_ABI_H
#define TOCHA_INDEX_ABI_H

/* ---- slices along a dim (Torch7 index, indexCopy, indexAdd, indexFill) -------------------- */
/* src's slices index[i] along dim, in order (PyTorch index_select); index is 0-dim or 1D. */
TOCHA_API tocha_tensor *tocha_index_select(const tocha_tensor *src, int dim, const tocha_tensor *index,
                                           int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API int tocha_index_select_out(tocha_tensor *out, const tocha_tensor *src, int dim, const tocha_tensor *index,
                                     int64_t index_base) TOCHA_NOEXCEPT;
/* Slice index[i] of self along dim = src's slice i (the last of repeated indices wins). */
TOCHA_API int tocha_index_copy_(tocha_tensor *self, int dim, const tocha_tensor *index, const tocha_tensor *src,
                                       int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_index_copy(const tocha_tensor *self, int dim, const tocha_tensor *index,
                                         const tocha_tensor *src, int64_t index_base) TOCHA_NOEXCEPT;
/* Slice index[i] of self along dim += src's slice i (repeated indices accumulate). */
TOCHA_API int tocha_index_add_(tocha_tensor *self, int dim, const tocha_tensor *index, const tocha_tensor *src,
                                      int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_index_add(const tocha_tensor *self, int dim, const tocha_tensor *index,
                                        const tocha_tensor *src, int64_t index_base) TOCHA_NOEXCEPT;
/* Slices index[i] of self along dim = value. */
TOCHA_API int tocha_index_fill_(tocha_tensor *self, int dim, const tocha_tensor *index, double value,
                                       int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_index_fill(const tocha_tensor *self, int dim, const tocha_tensor *index, double value,
                                         int64_t index_base) TOCHA_NOEXCEPT;

/* ---- element-wise indices (gather, scatter, scatterAdd) ----------------------------------- */
/* out[p] = input[p with p[dim] = index[p]]; the result has index's size. */
TOCHA_API tocha_tensor *tocha_gather(const tocha_tensor *input, int dim, const tocha_tensor *index,
                                     int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API int tocha_gather_out(tocha_tensor *out, const tocha_tensor *input, int dim, const tocha_tensor *index,
                               int64_t index_base) TOCHA_NOEXCEPT;
/* self[p with p[dim] = index[p]] = src[p] (or value) for every position p of index. */
TOCHA_API int tocha_scatter_(tocha_tensor *self, int dim, const tocha_tensor *index, const tocha_tensor *src,
                                    int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_scatter(const tocha_tensor *self, int dim, const tocha_tensor *index,
                                      const tocha_tensor *src, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API int tocha_scatter_value_(tocha_tensor *self, int dim, const tocha_tensor *index, double value,
                                          int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_scatter_value(const tocha_tensor *self, int dim, const tocha_tensor *index, double value,
                                            int64_t index_base) TOCHA_NOEXCEPT;
/* self[p with p[dim] = index[p]] += src[p] (repeated targets accumulate). */
TOCHA_API int tocha_scatter_add_(tocha_tensor *self, int dim, const tocha_tensor *index,
                                        const tocha_tensor *src, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_scatter_add(const tocha_tensor *self, int dim, const tocha_tensor *index,
                                          const tocha_tensor *src, int64_t index_base) TOCHA_NOEXCEPT;

/* ---- masks and nonzero -------------------------------------------------------------------- */
/* self = value where mask is true. */
TOCHA_API int tocha_masked_fill_(tocha_tensor *self, const tocha_tensor *mask, double value) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_masked_fill(const tocha_tensor *self, const tocha_tensor *mask, double value) TOCHA_NOEXCEPT;
/* The k-th true element of mask (row-major) takes src's k-th element. */
TOCHA_API int tocha_masked_copy_(tocha_tensor *self, const tocha_tensor *mask, const tocha_tensor *src) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_masked_copy(const tocha_tensor *self, const tocha_tensor *mask,
                                          const tocha_tensor *src) TOCHA_NOEXCEPT;
/* The elements of src where mask is true, as a 1D tensor. */
TOCHA_API tocha_tensor *tocha_masked_select(const tocha_tensor *src, const tocha_tensor *mask) TOCHA_NOEXCEPT;
TOCHA_API int tocha_masked_select_out(tocha_tensor *out, const tocha_tensor *src, const tocha_tensor *mask) TOCHA_NOEXCEPT;
/* N x ndim LongTensor of the coordinates of x's non-zero elements (out must be a LongTensor). */
TOCHA_API tocha_tensor *tocha_nonzero(const tocha_tensor *x, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API int tocha_nonzero_out(tocha_tensor *out, const tocha_tensor *x, int64_t index_base) TOCHA_NOEXCEPT;

/* ---- joining ------------------------------------------------------------------------------ */
/* Concatenation along dim (-1: the last); 1D empty tensors are skipped; dtypes are promoted. */
TOCHA_API tocha_tensor *tocha_cat(int n, const tocha_tensor **list, int dim) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cat_out(tocha_tensor *out, int n, const tocha_tensor **list, int dim) TOCHA_NOEXCEPT;
/* Tensors of one size stacked along a new dim (0 <= dim <= ndim). */
TOCHA_API tocha_tensor *tocha_stack(int n, const tocha_tensor **list, int dim) TOCHA_NOEXCEPT;
TOCHA_API int tocha_stack_out(tocha_tensor *out, int n, const tocha_tensor **list, int dim) TOCHA_NOEXCEPT;

/* ---- matrix shapes ------------------------------------------------------------------------ */
/* Vector -> matrix with it on the k-th diagonal; matrix -> its k-th diagonal. */
TOCHA_API tocha_tensor *tocha_diag(const tocha_tensor *x, int64_t k) TOCHA_NOEXCEPT;
TOCHA_API int tocha_diag_out(tocha_tensor *out, const tocha_tensor *x, int64_t k) TOCHA_NOEXCEPT;
/* Lower / upper triangle on and below / above the k-th diagonal; out may be x (in place). */
TOCHA_API tocha_tensor *tocha_tril(const tocha_tensor *x, int64_t k) TOCHA_NOEXCEPT;
TOCHA_API int tocha_tril_out(tocha_tensor *out, const tocha_tensor *x, int64_t k) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_triu(const tocha_tensor *x, int64_t k) TOCHA_NOEXCEPT;
TOCHA_API int tocha_triu_out(tocha_tensor *out, const tocha_tensor *x, int64_t k) TOCHA_NOEXCEPT;
/* A copy of x with the order of its elements reversed along each of the ndims dims (0-based,
   negative from the end, none repeated; ndims == 0 gives a plain copy), as PyTorch's flip. */
TOCHA_API tocha_tensor *tocha_flip(const tocha_tensor *x, int ndims, const int64_t *dims) TOCHA_NOEXCEPT;

#endif
