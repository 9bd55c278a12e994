// Front-ends of the mask ops (maskedFill, maskedCopy, maskedSelect) and nonzero. A mask is a
// ByteTensor or BoolTensor that broadcasts to the tensor (PyTorch) or, failing that, has the same
// number of elements (Torch7); elements are taken in row-major order.
#pragma once
#include "core/tensor.h"

namespace tocha {

// self[p] = value wherever mask[p] is true.
void masked_fill_(const Tensor& self, const Tensor& mask, double value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, double value);

// The k-th true position of mask takes src's k-th element (src has at least as many elements).
void masked_copy_(const Tensor& self, const Tensor& mask, const Tensor& src);
Tensor masked_copy(const Tensor& self, const Tensor& mask, const Tensor& src);

// The elements of self where mask is true, as a 1D tensor (self and mask broadcast together).
Tensor masked_select(const Tensor& self, const Tensor& mask);
// masked_select into out (resized; Torch7's res:maskedSelect(src, mask)).
void masked_select_out(const Tensor& out, const Tensor& self, const Tensor& mask);

// An N x ndim LongTensor with the coordinates (plus index_base) of x's N non-zero elements.
Tensor nonzero(const Tensor& x, int64_t index_base);
// nonzero into out, a LongTensor (resized).
void nonzero_out(const Tensor& out, const Tensor& x, int64_t index_base);

}  // namespace tocha
