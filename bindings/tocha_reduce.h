/* tocha_reduce.h -- C ABI of the reductions, scans, sort and topk. Included by tocha.h; see its
 * conventions. Result dtypes follow Note [Reduction results] in core/ops/reduce.h.
 *  - `_all` functions reduce every element into a 0-dim tensor.
 *  - Along a dim (0-based, negative from the end), keepdim != 0 keeps the dim with size 1
 *    (Torch7) and keepdim == 0 removes it (PyTorch).
 *  - Functions with two results (values and LongTensor indices) return 0 or -1 and store one
 *    reference each in *values and *indices; indices are offset by index_base (1 for Lua, 0 for
 *    C hosts). Their `_out` forms resize and fill the given tensors instead.
 */
#ifndef TOCHA_REDUCE_ABI_H
#define TOCHA_REDUCE_ABI_H

/* A full reduction as a number in accumulator precision (a float tensor sums in double). op is
   the op id (tocha_op_name) of sum, prod, mean, var, std, norm, logsumexp, max, min, all, any,
   median or trace; param is norm's p, or var/std's unbiased flag. */
TOCHA_API int tocha_reduce_value(int op, const tocha_tensor *a, double param, double *value) TOCHA_NOEXCEPT;
/* The p-norm of a - b as a number. */
TOCHA_API int tocha_dist_value(const tocha_tensor *a, const tocha_tensor *b, double p, double *value) TOCHA_NOEXCEPT;

#define TOCHA_ABI_REDUCTION(name) \
  TOCHA_API tocha_tensor *tocha_##name##_all(const tocha_tensor *a) TOCHA_NOEXCEPT; \
  TOCHA_API tocha_tensor *tocha_##name(const tocha_tensor *a, int dim, int keepdim) TOCHA_NOEXCEPT; \
  TOCHA_API int tocha_##name##_out(tocha_tensor *out, const tocha_tensor *a, int dim, int keepdim) TOCHA_NOEXCEPT;
TOCHA_ABI_REDUCTION(sum)
TOCHA_ABI_REDUCTION(prod)
TOCHA_ABI_REDUCTION(mean)
TOCHA_ABI_REDUCTION(logsumexp)
TOCHA_ABI_REDUCTION(all)
TOCHA_ABI_REDUCTION(any)
#undef TOCHA_ABI_REDUCTION

/* Variance and standard deviation; unbiased != 0 divides by n - 1, else by n. */
TOCHA_API tocha_tensor *tocha_var_all(const tocha_tensor *a, int unbiased) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_var(const tocha_tensor *a, int dim, int unbiased, int keepdim) TOCHA_NOEXCEPT;
TOCHA_API int tocha_var_out(tocha_tensor *out, const tocha_tensor *a, int dim, int unbiased, int keepdim) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_std_all(const tocha_tensor *a, int unbiased) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_std(const tocha_tensor *a, int dim, int unbiased, int keepdim) TOCHA_NOEXCEPT;
TOCHA_API int tocha_std_out(tocha_tensor *out, const tocha_tensor *a, int dim, int unbiased, int keepdim) TOCHA_NOEXCEPT;
/* p-norm; p = 0 counts non-zeros, p = HUGE_VAL is the largest |x|. */
TOCHA_API tocha_tensor *tocha_norm_all(const tocha_tensor *a, double p) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_norm(const tocha_tensor *a, double p, int dim, int keepdim) TOCHA_NOEXCEPT;
TOCHA_API int tocha_norm_out(tocha_tensor *out, const tocha_tensor *a, double p, int dim, int keepdim) TOCHA_NOEXCEPT;

/* max, min, median (lower median), mode: values and indices along dim. */
#define TOCHA_ABI_SELECTION(name) \
  TOCHA_API int tocha_##name(const tocha_tensor *a, int dim, int keepdim, int64_t index_base, \
                             tocha_tensor **values, tocha_tensor **indices) TOCHA_NOEXCEPT; \
  TOCHA_API int tocha_##name##_out(tocha_tensor *values, tocha_tensor *indices, const tocha_tensor *a, int dim, \
                                   int keepdim, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_ABI_SELECTION(max)
TOCHA_ABI_SELECTION(min)
TOCHA_ABI_SELECTION(median)
TOCHA_ABI_SELECTION(mode)
#undef TOCHA_ABI_SELECTION
TOCHA_API tocha_tensor *tocha_max_all(const tocha_tensor *a) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_min_all(const tocha_tensor *a) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_median_all(const tocha_tensor *a) TOCHA_NOEXCEPT;
/* The index (offset by index_base) of the first largest (smallest) element, NaN counting as the
   largest (smallest) as in max (min): `_all` over all elements in row-major order (a 0-dim
   LongTensor), else along dim. Not differentiable. */
TOCHA_API tocha_tensor *tocha_argmax_all(const tocha_tensor *a, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_argmax(const tocha_tensor *a, int dim, int keepdim, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_argmin_all(const tocha_tensor *a, int64_t index_base) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_argmin(const tocha_tensor *a, int dim, int keepdim, int64_t index_base) TOCHA_NOEXCEPT;
/* The k-th smallest value along dim (k counts from 1). */
TOCHA_API int tocha_kthvalue(const tocha_tensor *a, int64_t k, int dim, int keepdim, int64_t index_base,
                             tocha_tensor **values, tocha_tensor **indices) TOCHA_NOEXCEPT;
TOCHA_API int tocha_kthvalue_out(tocha_tensor *values, tocha_tensor *indices, const tocha_tensor *a, int64_t k,
                                 int dim, int keepdim, int64_t index_base) TOCHA_NOEXCEPT;

/* Stable sort along dim (NaN last in ascending order). */
TOCHA_API int tocha_sort(const tocha_tensor *a, int dim, int descending, int64_t index_base, tocha_tensor **values,
                         tocha_tensor **indices) TOCHA_NOEXCEPT;
TOCHA_API int tocha_sort_out(tocha_tensor *values, tocha_tensor *indices, const tocha_tensor *a, int dim,
                             int descending, int64_t index_base) TOCHA_NOEXCEPT;
/* The k largest (largest != 0) or smallest values along dim, best first. */
TOCHA_API int tocha_topk(const tocha_tensor *a, int64_t k, int dim, int largest, int sorted, int64_t index_base,
                         tocha_tensor **values, tocha_tensor **indices) TOCHA_NOEXCEPT;
TOCHA_API int tocha_topk_out(tocha_tensor *values, tocha_tensor *indices, const tocha_tensor *a, int64_t k, int dim,
                             int largest, int sorted, int64_t index_base) TOCHA_NOEXCEPT;

/* Running sums and products along dim. */
TOCHA_API tocha_tensor *tocha_cumsum(const tocha_tensor *a, int dim) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cumsum_out(tocha_tensor *out, const tocha_tensor *a, int dim) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_cumprod(const tocha_tensor *a, int dim) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cumprod_out(tocha_tensor *out, const tocha_tensor *a, int dim) TOCHA_NOEXCEPT;
/* a x b along dim (size 3); has_dim == 0 picks the first dim of size 3. */
TOCHA_API tocha_tensor *tocha_cross(const tocha_tensor *a, const tocha_tensor *b, int has_dim, int dim) TOCHA_NOEXCEPT;
TOCHA_API int tocha_cross_out(tocha_tensor *out, const tocha_tensor *a, const tocha_tensor *b, int has_dim,
                              int dim) TOCHA_NOEXCEPT;

/* dist (0-dim p-norm of a - b), trace (0-dim sum of a matrix's diagonal). */
TOCHA_API tocha_tensor *tocha_dist(const tocha_tensor *a, const tocha_tensor *b, double p) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_trace(const tocha_tensor *a) TOCHA_NOEXCEPT;
/* Slices along dim whose p-norm exceeds maxnorm are scaled down to it. */
TOCHA_API tocha_tensor *tocha_renorm(const tocha_tensor *a, double p, int dim, double maxnorm) TOCHA_NOEXCEPT;
TOCHA_API int tocha_renorm_out(tocha_tensor *out, const tocha_tensor *a, double p, int dim, double maxnorm) TOCHA_NOEXCEPT;
/* Histogram in nbins bins over [min, max]; min == max uses the data's range. */
TOCHA_API tocha_tensor *tocha_histc(const tocha_tensor *a, int64_t nbins, double min, double max) TOCHA_NOEXCEPT;
TOCHA_API int tocha_histc_out(tocha_tensor *out, const tocha_tensor *a, int64_t nbins, double min,
                              double max) TOCHA_NOEXCEPT;

#endif
