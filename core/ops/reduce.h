// Reduction front-ends (DESIGN.md decision 2): sum, prod, mean, var, std, norm, logsumexp, all,
// any, max and min over all elements or along one dim, the full-reduction values Lua returns as
// numbers, and the composites dist, trace, renorm, histc, argmax and argmin. See Note [Reduction
// results].
#pragma once
#include "core/op_id.h"
#include "core/ops/reduce_iter.h"
#include "core/tensor.h"

namespace tocha {

// Note [Reduction results]
//  - Over all elements the result is a 0-dim tensor. Along `dim` (0-based, negative from the
//    end) the dim is kept with size 1 when keepdim is true (Torch7) or removed (PyTorch).
//  - dtypes: sum and prod (and cumsum, cumprod) of integer or bool tensors give i64 (no
//    overflow of ByteTensor counts); mean, var, std, norm, logsumexp and dist of integer tensors
//    give the default float dtype; max and min keep the dtype; all and any give a ByteTensor for
//    a ByteTensor and a BoolTensor otherwise.
//  - Accumulation is in double for f32 and f64, float for f16 and bf16, int64 for integers.
//  - Reductions over zero elements give the identity (sum 0, prod 1, all true, any false,
//    logsumexp -inf; mean and var NaN); max and min of nothing are errors.
//  - `_out` variants resize `out` (Torch7's res argument) and convert to its dtype.

Tensor sum(const Tensor& a);
Tensor sum(const Tensor& a, int64_t dim, bool keepdim);
// Sum over the dims whose bits are set in mask (bit d for dim d).
Tensor sum_dims(const Tensor& a, uint32_t mask, bool keepdim);
void sum_out(const Tensor& out, const Tensor& a, int64_t dim, bool keepdim);
Tensor prod(const Tensor& a);
Tensor prod(const Tensor& a, int64_t dim, bool keepdim);
void prod_out(const Tensor& out, const Tensor& a, int64_t dim, bool keepdim);
Tensor mean(const Tensor& a);
Tensor mean(const Tensor& a, int64_t dim, bool keepdim);
void mean_out(const Tensor& out, const Tensor& a, int64_t dim, bool keepdim);
// log(sum(exp(a))), computed without overflow.
Tensor logsumexp(const Tensor& a);
Tensor logsumexp(const Tensor& a, int64_t dim, bool keepdim);
void logsumexp_out(const Tensor& out, const Tensor& a, int64_t dim, bool keepdim);
// Whether every (any) element is non-zero.
Tensor all(const Tensor& a);
Tensor all(const Tensor& a, int64_t dim, bool keepdim);
void all_out(const Tensor& out, const Tensor& a, int64_t dim, bool keepdim);
Tensor any(const Tensor& a);
Tensor any(const Tensor& a, int64_t dim, bool keepdim);
void any_out(const Tensor& out, const Tensor& a, int64_t dim, bool keepdim);

// Variance and standard deviation: unbiased divides by n - 1 (Torch7's default), else by n.
Tensor var(const Tensor& a, bool unbiased);
Tensor var(const Tensor& a, int64_t dim, bool unbiased, bool keepdim);
void var_out(const Tensor& out, const Tensor& a, int64_t dim, bool unbiased, bool keepdim);
Tensor std(const Tensor& a, bool unbiased);
Tensor std(const Tensor& a, int64_t dim, bool unbiased, bool keepdim);
void std_out(const Tensor& out, const Tensor& a, int64_t dim, bool unbiased, bool keepdim);

// p-norm: (sum |x|^p)^(1/p); p = 0 counts non-zeros, p = inf is max |x|, p = -inf min |x|.
Tensor norm(const Tensor& a, double p);
Tensor norm(const Tensor& a, double p, int64_t dim, bool keepdim);
void norm_out(const Tensor& out, const Tensor& a, double p, int64_t dim, bool keepdim);

// Largest (smallest) element; NaN propagates. Along a dim also the index of the first maximum.
Tensor max(const Tensor& a);
ValuesIndices max(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base);
void max_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool keepdim,
             int64_t index_base);
Tensor min(const Tensor& a);
ValuesIndices min(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base);
void min_out(const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim, bool keepdim,
             int64_t index_base);

// The value of a full reduction in accumulator precision (what Lua returns as a number). op is
// sum, prod, mean, var, std, norm, logsumexp, max, min, all, any, median or trace; param is
// norm's p or var/std's unbiased flag (1 or 0).
double reduce_value(OpId op, const Tensor& a, double param = 0);

// p-norm of a - b (shapes broadcast, or equal element counts as in Torch7).
Tensor dist(const Tensor& a, const Tensor& b, double p);
double dist_value(const Tensor& a, const Tensor& b, double p);
// Sum of the diagonal of a matrix (0-dim tensor, sum's dtype).
Tensor trace(const Tensor& a);
double trace_value(const Tensor& a);
// Each slice a.select(dim, i) whose p-norm exceeds maxnorm is scaled to norm maxnorm (Torch7).
Tensor renorm(const Tensor& a, double p, int64_t dim, double maxnorm);
void renorm_out(const Tensor& out, const Tensor& a, double p, int64_t dim, double maxnorm);
// Histogram of a in nbins equal bins over [min, max]; min == max uses the data's range.
Tensor histc(const Tensor& a, int64_t nbins, double min, double max);
void histc_out(const Tensor& out, const Tensor& a, int64_t nbins, double min, double max);
// Index (offset by index_base) of the first largest (smallest) element, as max's (min's): over
// all elements in row-major order (a 0-dim LongTensor), or along dim. Not differentiable.
Tensor argmax(const Tensor& a, int64_t index_base);
Tensor argmax(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base);
Tensor argmin(const Tensor& a, int64_t index_base);
Tensor argmin(const Tensor& a, int64_t dim, bool keepdim, int64_t index_base);

}  // namespace tocha
