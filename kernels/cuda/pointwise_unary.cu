// CUDA kernels of the UNARY and UNARY_FLOAT families, registered from core/ops.def with the same
// dtype lists and scalar functors as the CPU kernels (kernels/cpu/pointwise_unary.cpp).
#include "core/kernel_registry.h"
#include "kernels/cuda/pointwise.cuh"
#include "kernels/scalar_ops.h"

namespace tocha {
namespace cuda {
namespace {

#define REG_T(op, T) \
  TOCHA_REGISTER_KERNEL(op, cuda, DTypeOf<T>::value, (&pointwise_cuda<OpId::op, scalar::op##_op, T, T, 1>));
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
}  // namespace cuda
}  // namespace tocha
