// PyTorch's statistics over several dims and scans: amax, amin, aminmax, nansum, nanmean,
// count_nonzero, var_mean/std_mean with a correction, nanmedian, logcumsumexp, cummax and cummin.
// Dims are 0-based (negative from the end); an empty dim list reduces every dim. See Note [Stats
// reductions] in stats.cpp.
#pragma once
#include "core/ops/reduce_iter.h"
#include "core/tensor.h"

namespace tocha {

// The largest (smallest) elements over dims; NaN propagates; ties share the gradient.
Tensor amax(const Tensor& x, const DimVec& dims, bool keepdim);
Tensor amin(const Tensor& x, const DimVec& dims, bool keepdim);
// Sum and mean over dims that skip NaN (mean of no numbers: NaN); ints sum as sum does.
Tensor nansum(const Tensor& x, const DimVec& dims, bool keepdim);
Tensor nanmean(const Tensor& x, const DimVec& dims, bool keepdim);
// The number of non-zero elements over dims (a LongTensor, dims removed).
Tensor count_nonzero(const Tensor& x, const DimVec& dims);
// Variance (standard deviation) and mean over dims, dividing by max(0, n - correction).
struct VarMean {
  Tensor var, mean;
};
VarMean var_mean(const Tensor& x, const DimVec& dims, double correction, bool keepdim);
VarMean std_mean(const Tensor& x, const DimVec& dims, double correction, bool keepdim);
// The lower median of the non-NaN elements along dim and its index (NaN where all are NaN).
ValuesIndices nanmedian(const Tensor& x, int64_t dim, bool keepdim, int64_t index_base);
Tensor nanmedian(const Tensor& x);
// log(cumsum(exp(x))) along dim, computed as a running log-add-exp (floating dtypes).
Tensor logcumsumexp(const Tensor& x, int64_t dim);
// Running max (min) along dim and the index where it was taken (the last of ties; NaN sticks).
ValuesIndices cummax(const Tensor& x, int64_t dim, int64_t index_base);
ValuesIndices cummin(const Tensor& x, int64_t dim, int64_t index_base);

// Helpers shared with quantile.cpp and stats_pairwise.cpp.
namespace stats {
// The mask of dims (bit d for dim d; all dims when dims is empty), checking each dim once.
uint32_t dims_mask(const char* op, const Tensor& x, const DimVec& dims);
// Whether x has a floating dtype, else an error naming op.
void check_floating(const char* op, const Tensor& x);
// x itself when floating, else x converted to the default floating dtype.
Tensor as_float(const Tensor& x);
}  // namespace stats

}  // namespace tocha
