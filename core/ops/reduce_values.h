// One reduction over any set of dims without recording it: for composites that record their own
// node (amax/amin, Note [amax as one max pass] in core/ops/stats.cpp).
#pragma once
#include "core/op_id.h"
#include "core/tensor.h"

namespace tocha {

// op (sum, max, min, ...) over the dims whose bits are set in mask, kept as size 1 when keepdim;
// the checks and result dtype of the plain reductions, nothing recorded.
Tensor reduce_values(OpId op, const Tensor& a, uint32_t mask, bool keepdim);

}  // namespace tocha
