// CPU kernels of the UNARY and UNARY_FLOAT families, registered from core/ops.def.
#include "core/kernel_registry.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/simd_math.h"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cpu {
namespace {

#define REG_T(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, (&unary_kernel<scalar::op##_op, T, T>));
#define REG_UNARY(op) \
  REG_T(op, float) REG_T(op, double) REG_T(op, Half) REG_T(op, BFloat16) \
  REG_T(op, int64_t) REG_T(op, int32_t) REG_T(op, int16_t) REG_T(op, int8_t) REG_T(op, uint8_t)
#define REG_UNARY_FLOAT(op) REG_T(op, float) REG_T(op, double) REG_T(op, Half) REG_T(op, BFloat16)
#define REG_UNARY_INT(op) REG_T(op, int64_t) REG_T(op, int32_t) REG_T(op, int16_t) REG_T(op, int8_t) REG_T(op, uint8_t) REG_T(op, bool)
#define REG_BINARY_INT(op)
#define REG_BINARY(op)
#define REG_BINARY_FLOAT(op)
#define REG_COMPARE(op)
#define REG_POINTWISE(op)
#define REG_OTHER(op)
#define TOCHA_OP(name, kind, grad) REG_##kind(name)
#include "core/ops.def"
#undef TOCHA_OP

}  // namespace
}  // namespace cpu
}  // namespace tocha
