// Two block-wide double sums that every thread of the block receives (the normalization kernels'
// per-channel or per-row statistics). All threads of the block must call it together.
#pragma once
#include <cub/block/block_reduce.cuh>
#include "kernels/cuda/launch.cuh"

namespace tocha {
namespace cuda {

__device__ __forceinline__ void block_sums(double a, double b, double* ra, double* rb) {
  using BlockSum = cub::BlockReduce<double, kThreads>;
  __shared__ typename BlockSum::TempStorage tmp;
  __shared__ double result[2];
  double sa = BlockSum(tmp).Sum(a);
  __syncthreads();  // tmp is reused
  double sb = BlockSum(tmp).Sum(b);
  if (threadIdx.x == 0) {
    result[0] = sa;
    result[1] = sb;
  }
  __syncthreads();
  *ra = result[0];
  *rb = result[1];
  __syncthreads();  // result may be rewritten by the block's next call
}

}  // namespace cuda
}  // namespace tocha
