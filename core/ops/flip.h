// flip: a copy of a tensor with the order of its elements reversed along some dims (PyTorch's
// torch.flip), a composite of index_select (Note [Flip as index_select]).
#pragma once
#include "core/tensor.h"

namespace tocha {

// A new tensor: x with each dim in `dims` (0-based, negative from the end, none repeated)
// reversed; no dims gives a plain copy. Differentiable (the gradient is flipped back).
Tensor flip(const Tensor& x, const DimVec& dims);

}  // namespace tocha
