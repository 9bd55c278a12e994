// The running statistics update of CUDA batch norm, shared by its one-block and across-blocks
// kernels (nn_batchnorm.cu, nn_batchnorm_split.cu): the CPU kernel's formula, with the unbiased
// variance of the batch's m values.
#pragma once
#include <cstdint>

namespace tocha {
namespace cuda {

template <class T>
__device__ __forceinline__ void update_running_stats(T* rm, T* rv, int64_t c, double mu, double var, int64_t m,
                                                     double momentum) {
  const double unbiased = m > 1 ? var * double(m) / double(m - 1) : var;
  rm[c] = T((1 - momentum) * double(rm[c]) + momentum * mu);
  rv[c] = T((1 - momentum) * double(rv[c]) + momentum * unbiased);
}

}  // namespace cuda
}  // namespace tocha
