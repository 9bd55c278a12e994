// The (op, device, dtype) -> kernel table. See kernel_registry.h.
#include "core/kernel_registry.h"
#include "core/error.h"

namespace tocha {

namespace {
void* g_table[kNumOps][kNumDeviceTypes][kNumDTypes];
}

void register_kernel(OpId op, DeviceType dev, DType dt, void* fn) {
  g_table[int(op)][int(dev)][int(dt)] = fn;
}

void* find_kernel(OpId op, DeviceType dev, DType dt) {
  return g_table[int(op)][int(dev)][int(dt)];
}

void throw_no_kernel(OpId op, DeviceType dev, DType dt) {
  fail(op_name(op), "no kernel for ", device_type_name(dev), "/", dtype_name(dt));
}

}  // namespace tocha
