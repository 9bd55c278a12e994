/* tocha_stats.h -- C ABI of PyTorch's statistics: amax/amin, nansum/nanmean, count_nonzero,
 * var_mean/std_mean, nanmedian, logcumsumexp, cummax/cummin, quantile, bincount, histogram, cov,
 * corrcoef, trapezoid, cdist, pdist, cosine_similarity and pairwise_distance. Included by
 * tocha.h; see its conventions. Dims are 0-based (negative from the end); ndims == 0 reduces every
 * dim; index_base (1 for Lua, 0 for C hosts) offsets every index returned. Optional tensors may
 * be NULL.
 */
#ifndef TOCHA_STATS_ABI_H
#define TOCHA_STATS_ABI_H

/* The largest (is_max != 0) or smallest elements over dims; ties share the gradient. */
TOCHA_API tocha_tensor *tocha_amax(const tocha_tensor *x, int ndims, const int64_t *dims, int keepdim,
                                   int is_max) TOCHA_NOEXCEPT;
/* NaN-skipping sum (mean != 0: mean) over dims. */
TOCHA_API tocha_tensor *tocha_nansum(const tocha_tensor *x, int ndims, const int64_t *dims, int keepdim,
                                     int mean) TOCHA_NOEXCEPT;
/* The number of non-zero elements over dims (a LongTensor without those dims). */
TOCHA_API tocha_tensor *tocha_count_nonzero(const tocha_tensor *x, int ndims, const int64_t *dims) TOCHA_NOEXCEPT;
/* Variance (take_sqrt != 0: standard deviation) and mean over dims, dividing by n - correction. */
TOCHA_API int tocha_var_mean(const tocha_tensor *x, int ndims, const int64_t *dims, double correction, int keepdim,
                             int take_sqrt, tocha_tensor **var, tocha_tensor **mean) TOCHA_NOEXCEPT;
/* The lower median of the non-NaN elements: of all (has_dim == 0: *values only, 0-dim, *indices
   set to NULL) or along dim with indices. */
TOCHA_API int tocha_nanmedian(const tocha_tensor *x, int has_dim, int dim, int keepdim, int64_t index_base,
                              tocha_tensor **values, tocha_tensor **indices) TOCHA_NOEXCEPT;
/* log(cumsum(exp(x))) along dim, without overflow or underflow. */
TOCHA_API tocha_tensor *tocha_logcumsumexp(const tocha_tensor *x, int dim) TOCHA_NOEXCEPT;
/* Running max (is_max != 0) or min along dim and the indices where each was taken. */
TOCHA_API int tocha_cummax(const tocha_tensor *x, int dim, int is_max, int64_t index_base, tocha_tensor **values,
                           tocha_tensor **indices) TOCHA_NOEXCEPT;
/* Quantiles q (0-dim or 1-D) of x along dim (has_dim == 0: of all elements); interpolation is
   "linear", "lower", "higher", "midpoint" or "nearest"; skip_nan: nanquantile. */
TOCHA_API tocha_tensor *tocha_quantile(const tocha_tensor *x, const tocha_tensor *q, int has_dim, int dim,
                                       int keepdim, const char *interpolation, int skip_nan) TOCHA_NOEXCEPT;
/* Counts (or weight sums) of each value 0..max(x) of a 1-D integer tensor, at least minlength. */
TOCHA_API tocha_tensor *tocha_bincount(const tocha_tensor *x, const tocha_tensor *weights,
                                       int64_t minlength) TOCHA_NOEXCEPT;
/* Histogram of x in bins equal bins (over [lo, hi] when has_range) or over the 1-D edges. */
TOCHA_API int tocha_histogram(const tocha_tensor *x, int64_t bins, const tocha_tensor *edges, int has_range,
                              double lo, double hi, const tocha_tensor *weight, int density, tocha_tensor **hist,
                              tocha_tensor **bin_edges) TOCHA_NOEXCEPT;
/* Covariance matrix of the rows of x, and correlation coefficients. */
TOCHA_API tocha_tensor *tocha_cov(const tocha_tensor *x, double correction, const tocha_tensor *fweights,
                                  const tocha_tensor *aweights) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_corrcoef(const tocha_tensor *x) TOCHA_NOEXCEPT;
/* Trapezoid rule along dim at points x (or spacing dx when x is NULL); cumulative: running. */
TOCHA_API tocha_tensor *tocha_trapezoid(const tocha_tensor *y, const tocha_tensor *x, double dx, int dim,
                                        int cumulative) TOCHA_NOEXCEPT;
/* p-norm distances between rows: of x1 and x2 (batched), and of x's rows pairwise (i < j). */
TOCHA_API tocha_tensor *tocha_cdist(const tocha_tensor *x1, const tocha_tensor *x2, double p) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_pdist(const tocha_tensor *x, double p) TOCHA_NOEXCEPT;
/* Cosine similarity along dim; the p-norm of x1 - x2 + eps along the last dim. */
TOCHA_API tocha_tensor *tocha_cosine_similarity(const tocha_tensor *x1, const tocha_tensor *x2, int dim,
                                                double eps) TOCHA_NOEXCEPT;
TOCHA_API tocha_tensor *tocha_pairwise_distance(const tocha_tensor *x1, const tocha_tensor *x2, double p, double eps,
                                                int keepdim) TOCHA_NOEXCEPT;

#endif
