// CUDA kernels of the BINARY, BINARY_FLOAT and COMPARE families, registered from core/ops.def
// with the same dtype lists and scalar functors as the CPU kernels.
#include "core/kernel_registry.h"
#include "kernels/cuda/pointwise.cuh"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cuda {
namespace {

#define REG_T(op, T, R) \
  TOCHA_REGISTER_KERNEL(op, cuda, DTypeOf<T>::value, (&pointwise_cuda<OpId::op, scalar::op##_op, T, R, 2>));
#define REG_UNARY(op)
#define REG_UNARY_FLOAT(op)
#define REG_BINARY(op) \
  REG_T(op, float, float) REG_T(op, double, double) REG_T(op, Half, Half) REG_T(op, BFloat16, BFloat16) \
  REG_T(op, int64_t, int64_t) REG_T(op, int32_t, int32_t) REG_T(op, int16_t, int16_t) REG_T(op, int8_t, int8_t) \
  REG_T(op, uint8_t, uint8_t)
#define REG_BINARY_FLOAT(op) \
  REG_T(op, float, float) REG_T(op, double, double) REG_T(op, Half, Half) REG_T(op, BFloat16, BFloat16)
#define REG_COMPARE(op) \
  REG_T(op, float, uint8_t) REG_T(op, double, uint8_t) REG_T(op, Half, uint8_t) REG_T(op, BFloat16, uint8_t) \
  REG_T(op, int64_t, uint8_t) REG_T(op, int32_t, uint8_t) REG_T(op, int16_t, uint8_t) REG_T(op, int8_t, uint8_t) \
  REG_T(op, uint8_t, uint8_t) REG_T(op, bool, uint8_t)
#define REG_UNARY_INT(op)
#define REG_BINARY_INT(op) \
  REG_T(op, int64_t, int64_t) REG_T(op, int32_t, int32_t) REG_T(op, int16_t, int16_t) REG_T(op, int8_t, int8_t) \
  REG_T(op, uint8_t, uint8_t) REG_T(op, bool, bool)
#define REG_POINTWISE(op)
#define REG_OTHER(op)
#define TOCHA_OP(name, kind, grad) REG_##kind(name)
#include "core/ops.def"
#undef TOCHA_OP

// Logical or/and for bool tensors (bool + bool, bool * bool).
REG_T(add, bool, bool)
REG_T(mul, bool, bool)

}  // namespace
}  // namespace cuda
}  // namespace tocha
