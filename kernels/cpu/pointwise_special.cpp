// CPU kernels of polygamma(n, x), the one POINTWISE op with an integer parameter (n, from the
// iterator's params) among PyTorch's special functions; float dtypes only (the front-end converts).
#include "core/kernel_registry.h"
#include "kernels/cpu/loops.h"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cpu {
namespace {

#define REG_POLYGAMMA(T) \
  TOCHA_REGISTER_KERNEL(polygamma, cpu, DTypeOf<T>::value, (&unary_kernel<scalar::polygamma_op, T, T>));
REG_POLYGAMMA(float)
REG_POLYGAMMA(double)
REG_POLYGAMMA(Half)
REG_POLYGAMMA(BFloat16)

}  // namespace
}  // namespace cpu
}  // namespace tocha
