// scatter_reduce (PyTorch 1.13): src's elements reduced into self's positions chosen by an index
// along dim, with sum, prod, mean, amax or amin, counting self's own value or not (include_self).
// Dims 0-based; index values offset by index_base (1 from Lua, 0 from C).
#pragma once
#include "core/tensor.h"

namespace tocha {

enum class ScatterReduce : int { sum = 0, prod = 1, mean = 2, amax = 3, amin = 4 };

// The reduction named by s ("sum", "prod", "mean", "amax", "amin"), or an error naming op.
ScatterReduce scatter_reduce_kind(const char* op, const char* s);
// A copy of self where, for every position p of index, element p' (p with p[dim] = index[p])
// is reduced with src[p]. Differentiable in self and src (prod: only without zeros).
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, ScatterReduce reduce,
                      bool include_self, int64_t index_base);

}  // namespace tocha
