/* tocha_arrange.h -- C ABI of PyTorch's arrangement and search functions: roll, tile, movedim,
 * meshgrid, diff, argsort, unique, searchsorted and bucketize. Included by tocha.h; see its
 * conventions. Dims are 0-based (negative from the end); index_base (1 for Lua, 0 for C hosts)
 * offsets every index given or returned, positions included (Note [1-based insertion points]).
 */
#ifndef TOCHA_ARRANGE_ABI_H
#define TOCHA_ARRANGE_ABI_H

/* x shifted by shifts[i] places along dims[i], wrapping around (a copy); ndims == 0 rolls x
   flattened by its one shift. */
TOCHA_API tocha_tensor *tocha_roll(const tocha_tensor *x, int nshifts, const int64_t *shifts, int ndims,
                                   const int64_t *dims) TOCHA_NOEXCEPT;
/* x repeated reps[i] times along each dim (PyTorch's tile: missing reps count as leading 1s). */
TOCHA_API tocha_tensor *tocha_tile(const tocha_tensor *x, int nreps, const int64_t *reps) TOCHA_NOEXCEPT;
/* A view of x with dims source[i] moved to destination[i], the others kept in order. */
TOCHA_API tocha_tensor *tocha_movedim(const tocha_tensor *x, int n, const int64_t *source,
                                      const int64_t *destination) TOCHA_NOEXCEPT;
/* n coordinate grids of n 0-dim or 1D tensors (xy != 0: the first two dims swapped) into out[0..n):
   expanded views that share the inputs' memory. */
TOCHA_API int tocha_meshgrid(int n, const tocha_tensor **tensors, int xy, tocha_tensor **out) TOCHA_NOEXCEPT;
/* The n-th forward difference along dim of prepend, x and append concatenated (either may be NULL). */
TOCHA_API tocha_tensor *tocha_diff(const tocha_tensor *x, int64_t n, int dim, const tocha_tensor *prepend,
                                   const tocha_tensor *append) TOCHA_NOEXCEPT;
/* The LongTensor of indices that sort x along dim (stable; NaN last ascending). */
TOCHA_API tocha_tensor *tocha_argsort(const tocha_tensor *x, int dim, int descending,
                                      int64_t index_base) TOCHA_NOEXCEPT;
/* The distinct values of x (has_dim == 0: flattened, ascending; else slices along dim), or with
   consecutive != 0 only runs of equal neighbours collapsed. *values always; *inverse (LongTensor,
   x's shape or the size along dim) and *counts when asked for (want_*), else set to NULL. */
TOCHA_API int tocha_unique(const tocha_tensor *x, int consecutive, int has_dim, int dim, int want_inverse,
                           int want_counts, int64_t index_base, tocha_tensor **values, tocha_tensor **inverse,
                           tocha_tensor **counts) TOCHA_NOEXCEPT;
/* Insertion points (+ index_base) of values in the rows (last dim) of sorted_seq: the first element
   >= value (right != 0: > value). sorter (may be NULL): per row the indices (+ index_base) that sort
   sorted_seq. A LongTensor, or an IntTensor when out_int32 != 0. */
TOCHA_API tocha_tensor *tocha_searchsorted(const tocha_tensor *sorted_seq, const tocha_tensor *values, int right,
                                           int out_int32, const tocha_tensor *sorter,
                                           int64_t index_base) TOCHA_NOEXCEPT;
/* searchsorted(boundaries, values, right) for 1D boundaries. */
TOCHA_API tocha_tensor *tocha_bucketize(const tocha_tensor *values, const tocha_tensor *boundaries, int right,
                                        int out_int32, int64_t index_base) TOCHA_NOEXCEPT;

#endif
