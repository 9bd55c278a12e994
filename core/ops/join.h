// Joining front-ends: cat (Torch7 and PyTorch) and stack (PyTorch). Dims are 0-based (negative
// from the end). Inputs of different dtypes are promoted (Note [Type promotion]).
#pragma once
#include <vector>
#include "core/tensor.h"

namespace tocha {

// Concatenates along dim (-1: the last). 1D tensors of size 0 are skipped, as Torch7's empty
// tensors were; the others must match in every dim but dim.
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
// cat into out (resized; its dtype is kept).
void cat_out(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim);

// Stacks tensors of one size along a new dim (0 <= dim <= ndim, negative from the end).
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
void stack_out(const Tensor& out, const std::vector<Tensor>& tensors, int64_t dim);

// Kernel interface of cat: contiguous inputs of the result's dtype copied into a contiguous
// result seen as outer x (rows of out_row elements); input k fills in_row[k] elements of each
// row from in_offset[k].
struct CatArgs {
  char* out = nullptr;
  int64_t outer = 0;
  int64_t out_row = 0;
  int ninputs = 0;
  const char* const* in = nullptr;
  const int64_t* in_row = nullptr;
  const int64_t* in_offset = nullptr;
};
using CatKernel = void (*)(const CatArgs&);

}  // namespace tocha
