// Kernels register per (op, device, dtype) (DESIGN.md decision 3). Front-ends look them up after
// validation; a missing entry is the error "[exp] no kernel for cuda/f16".
// Each op family fixes the kernel signature it stores (see core/pointwise.h, core/reduce.h...).
#pragma once
#include "core/device.h"
#include "core/dtype.h"
#include "core/op_id.h"

namespace tocha {

void register_kernel(OpId op, DeviceType dev, DType dt, void* fn);
void* find_kernel(OpId op, DeviceType dev, DType dt);
[[noreturn]] void throw_no_kernel(OpId op, DeviceType dev, DType dt);

template <class Fn> Fn kernel_for(OpId op, DeviceType dev, DType dt) {
  void* p = find_kernel(op, dev, dt);
  if (!p) throw_no_kernel(op, dev, dt);
  return reinterpret_cast<Fn>(p);
}

struct KernelRegistrar {
  KernelRegistrar(OpId op, DeviceType dev, DType dt, void* fn) { register_kernel(op, dev, dt, fn); }
};

}  // namespace tocha

#define TOCHA_CONCAT_(a, b) a##b
#define TOCHA_CONCAT(a, b) TOCHA_CONCAT_(a, b)
// Registers fn for (op, device, dtype) at load time.
#define TOCHA_REGISTER_KERNEL(op, dev, dt, fn)                                        \
  static ::tocha::KernelRegistrar TOCHA_CONCAT(tocha_kernel_registrar_, __COUNTER__)( \
      ::tocha::OpId::op, ::tocha::DeviceType::dev, dt, reinterpret_cast<void*>(fn))
