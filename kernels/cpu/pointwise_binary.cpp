// CPU kernels of the BINARY, BINARY_FLOAT and COMPARE families, registered from core/ops.def.
#include "core/kernel_registry.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/simd_math.h"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cpu {
namespace {

#define REG_T(op, T, R) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, (&binary_kernel<scalar::op##_op, T, R>));
#define REG_UNARY(op)
#define REG_UNARY_FLOAT(op)
#define REG_BINARY(op) \
  REG_T(op, float, float) REG_T(op, double, double) REG_T(op, Half, Half) REG_T(op, BFloat16, BFloat16) \
  REG_T(op, int64_t, int64_t) REG_T(op, int32_t, int32_t) REG_T(op, uint8_t, uint8_t)
#define REG_BINARY_FLOAT(op) \
  REG_T(op, float, float) REG_T(op, double, double) REG_T(op, Half, Half) REG_T(op, BFloat16, BFloat16)
#define REG_COMPARE(op) \
  REG_T(op, float, uint8_t) REG_T(op, double, uint8_t) REG_T(op, Half, uint8_t) REG_T(op, BFloat16, uint8_t) \
  REG_T(op, int64_t, uint8_t) REG_T(op, int32_t, uint8_t) REG_T(op, uint8_t, uint8_t) REG_T(op, bool, uint8_t)
#define REG_POINTWISE(op)
#define REG_OTHER(op)
#define TOCHA_OP(name, kind, grad) REG_##kind(name)
#include "core/ops.def"
#undef TOCHA_OP

// Logical or/and for bool tensors (bool + bool, bool * bool).
REG_T(add, bool, bool)
REG_T(mul, bool, bool)

}  // namespace
}  // namespace cpu
}  // namespace tocha
