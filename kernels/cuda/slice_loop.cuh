// The one-thread-per-slice loop of the CUDA slice ops over a ReduceIter (Note [CUDA slice ops] in
// nn_slice.cu): the grid-stride loop over slices and the offsets of a slice in every operand.
#pragma once
#include <cstdint>
#include "core/ops/reduce_iter.h"

namespace tocha {
namespace cuda {

// Offsets of slice o in every operand (out_offsets on the CPU).
__device__ __forceinline__ void slice_offsets(const ReduceIter& it, int64_t o, int64_t* off) {
  for (int k = 0; k < ReduceIter::kMaxOperands; ++k) off[k] = 0;
  for (int d = it.ndim - 1; d >= 0; --d) {
    const int64_t i = o % it.shape[d];
    o /= it.shape[d];
    for (int k = 0; k < ReduceIter::kMaxOperands; ++k)
      if (k < it.noperands) off[k] += i * it.strides[k][d];
  }
}

}  // namespace cuda
}  // namespace tocha

// for (o over this thread's slices): a grid-stride loop over it.n_out.
#define SLICE_LOOP(o) \
  for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < it.n_out; o += int64_t(gridDim.x) * blockDim.x)
