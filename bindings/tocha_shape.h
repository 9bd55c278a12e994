/* tocha_shape.h -- C ABI of PyTorch's shape, indexing and window functions missing from Torch7:
 * unflatten, unbind, diagonal, broadcasting, atleast_nd, the hstack family, tensor_split, rot90,
 * repeat_interleave, take, take_along_dim, put, index_put, masked_scatter, isin, scatter_reduce
 * the signal windows, and poisson and binomial draws. Included by tocha.h; see its conventions. Dims are 0-based (negative
 * from the end); index_base (1 for Lua, 0 for C hosts) offsets every index given or returned.
 */
#ifndef TOCHA_SHAPE_ABI_H
#define TOCHA_SHAPE_ABI_H

/* x with dim replaced by the n sizes (one may be -1): a view where the strides allow it. */
TOCHA_API tocha_tensor *tocha_unflatten(const tocha_tensor *x, int dim, int n, const int64_t *sizes) TOCHA_NOEXCEPT;
/* The n_out = x.size(dim) slices of x along dim (views) into out[0..n_out). */
TOCHA_API int tocha_unbind(const tocha_tensor *x, int dim, int64_t n_out, tocha_tensor **out) TOCHA_NOEXCEPT;
/* A view of the diagonal of dims dim1 and dim2 (offset > 0: above), as a new last dim. */
TOCHA_API tocha_tensor *tocha_diagonal(const tocha_tensor *x, int64_t offset, int dim1, int dim2) TOCHA_NOEXCEPT;
/* x expanded (a view) to the n sizes, which must be a broadcast of x's shape. */
TOCHA_API tocha_tensor *tocha_broadcast_to(const tocha_tensor *x, int n, const int64_t *sizes) TOCHA_NOEXCEPT;
/* The n tensors expanded to the broadcast of their shapes, into out[0..n). */
TOCHA_API int tocha_broadcast_tensors(int n, const tocha_tensor **tensors, tocha_tensor **out) TOCHA_NOEXCEPT;
/* The broadcast of n shapes: shape i has ndims[i] sizes, all concatenated in sizes; the result's
   dims go to *out_ndim and its sizes to out (room for 16). */
TOCHA_API int tocha_broadcast_shapes(int n, const int *ndims, const int64_t *sizes, int *out_ndim,
                                     int64_t *out) TOCHA_NOEXCEPT;
/* x as a view with at least n (1, 2 or 3) dims, NumPy's atleast_nd. */
TOCHA_API tocha_tensor *tocha_atleast(const tocha_tensor *x, int n) TOCHA_NOEXCEPT;
/* kind 'h' hstack, 'v' vstack, 'd' dstack, 'c' column_stack of n tensors. */
TOCHA_API tocha_tensor *tocha_stack_kind(int n, const tocha_tensor **tensors, int kind) TOCHA_NOEXCEPT;
/* tensor_split along dim: sections > 0 nearly equal parts (n_out = sections), else at the nidx
   0-based start positions idx (n_out = nidx + 1); views into out[0..n_out). */
TOCHA_API int tocha_tensor_split(const tocha_tensor *x, int64_t sections, int nidx, const int64_t *idx, int dim,
                                 int64_t n_out, tocha_tensor **out) TOCHA_NOEXCEPT;
/* x rotated k quarter turns from dim0 toward dim1 (a copy). */
TOCHA_API tocha_tensor *tocha_rot90(const tocha_tensor *x, int64_t k, int dim0, int dim1) TOCHA_NOEXCEPT;
/* Slices of x along dim (has_dim == 0: x flattened) repeated: repeats (an integer tensor, one
   count per slice or one for all), or when NULL n_repeats times each. */
TOCHA_API tocha_tensor *tocha_repeat_interleave(const tocha_tensor *x, const tocha_tensor *repeats, int64_t n_repeats,
                                                int has_dim, int dim) TOCHA_NOEXCEPT;
/* The LongTensor of indices (+ index_base), index i repeated repeats[i] times. */
TOCHA_API tocha_tensor *tocha_repeat_interleave_index(const tocha_tensor *repeats, int64_t index_base) TOCHA_NOEXCEPT;
/* x's elements (flattened, row-major) at index, in index's shape; negative indices from the end. */
TOCHA_API tocha_tensor *tocha_take(const tocha_tensor *x, const tocha_tensor *index, int64_t index_base) TOCHA_NOEXCEPT;
/* gather along dim after x and index broadcast outside dim (has_dim == 0: take of both flattened). */
TOCHA_API tocha_tensor *tocha_take_along_dim(const tocha_tensor *x, const tocha_tensor *index, int has_dim, int dim,
                                             int64_t index_base) TOCHA_NOEXCEPT;
/* A copy of x whose flattened elements at index take (accumulate != 0: add) source's elements. */
TOCHA_API tocha_tensor *tocha_put(const tocha_tensor *x, const tocha_tensor *index, const tocha_tensor *source,
                                  int accumulate, int64_t index_base) TOCHA_NOEXCEPT;
/* A copy of x with x[indices[0], ..., indices[n-1]] = values (accumulate != 0: +=), PyTorch's
   advanced indexing of the leading dims (LongTensors broadcast together, masks as their nonzero). */
TOCHA_API tocha_tensor *tocha_index_put(const tocha_tensor *x, int n, const tocha_tensor **indices,
                                        const tocha_tensor *values, int accumulate, int64_t index_base) TOCHA_NOEXCEPT;
/* A copy of x (broadcast with mask) whose true mask positions take source's elements in order. */
TOCHA_API tocha_tensor *tocha_masked_scatter(const tocha_tensor *x, const tocha_tensor *mask,
                                             const tocha_tensor *source) TOCHA_NOEXCEPT;
/* A BoolTensor: elements found among test_elements (invert != 0: not found). */
TOCHA_API tocha_tensor *tocha_isin(const tocha_tensor *elements, const tocha_tensor *test_elements,
                                   int invert) TOCHA_NOEXCEPT;
/* A copy of self with src reduced into it along dim through index; reduce is "sum", "prod",
   "mean", "amax" or "amin"; include_self != 0 counts self's values (PyTorch 1.13). */
TOCHA_API tocha_tensor *tocha_scatter_reduce(const tocha_tensor *self, int dim, const tocha_tensor *index,
                                             const tocha_tensor *src, const char *reduce, int include_self,
                                             int64_t index_base) TOCHA_NOEXCEPT;
/* A window of n points: kind 0 hann, 1 hamming (alpha, beta), 2 blackman, 3 bartlett, 4 kaiser
   (beta); periodic != 0: the n + 1 point window without its last point. */
TOCHA_API tocha_tensor *tocha_window(int kind, int64_t n, int periodic, double alpha, double beta, int dtype,
                                     int device_type, int device_index) TOCHA_NOEXCEPT;
/* Element i ~ Poisson(rates[i]) (a floating tensor of rates' shape and device), drawn from g (NULL:
   the default generator) on the host. */
TOCHA_API tocha_tensor *tocha_poisson(const tocha_tensor *rates, tocha_generator *g) TOCHA_NOEXCEPT;
/* Elements ~ Binomial(count, prob), count and prob broadcast (floating tensors). */
TOCHA_API tocha_tensor *tocha_binomial(const tocha_tensor *count, const tocha_tensor *prob,
                                       tocha_generator *g) TOCHA_NOEXCEPT;

#endif
