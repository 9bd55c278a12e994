// unique and uniqueConsecutive (PyTorch's torch.unique / torch.unique_consecutive): the distinct
// values (or slices along a dim) of a tensor, with optional inverse indices and counts. Built
// from sort, comparisons, cumsum and masked/index selection (Note [unique as a composite]).
#pragma once
#include "core/tensor.h"

namespace tocha {

struct UniqueResult {
  Tensor values;   // the distinct values (1D), or x with only the distinct slices along dim
  Tensor inverse;  // LongTensor: each element's (slice's) position in values, + index_base
  Tensor counts;   // LongTensor: how often each of values occurs
};

// The distinct values of x flattened, ascending (dim == nullptr), or the distinct slices along
// *dim (0-based, negative from the end) in lexicographic order. consecutive: only runs of equal
// neighbours collapse and the order is kept. NaNs never equal each other, so each is distinct.
// inverse and counts are computed only when asked for (left undefined otherwise).
UniqueResult unique(const Tensor& x, const int64_t* dim, bool consecutive, bool want_inverse, bool want_counts,
                    int64_t index_base);

}  // namespace tocha
