// CUDA kernels of polygamma(n, x), with the scalar functor of the CPU kernels
// (kernels/cpu/pointwise_special.cpp).
#include "core/kernel_registry.h"
#include "kernels/cuda/pointwise.cuh"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cuda {
namespace {

#define REG_POLYGAMMA(T) \
  TOCHA_REGISTER_KERNEL(polygamma, cuda, DTypeOf<T>::value, (&pointwise_cuda<OpId::polygamma, scalar::polygamma_op, T, T, 1>));
REG_POLYGAMMA(float)
REG_POLYGAMMA(double)
REG_POLYGAMMA(Half)
REG_POLYGAMMA(BFloat16)

}  // namespace
}  // namespace cuda
}  // namespace tocha
