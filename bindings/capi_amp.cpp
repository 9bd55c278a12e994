// C ABI of autocast and pinned memory (bindings/tocha_amp.h) over core/autocast.h and
// core/pinned_memory.h.
#include "bindings/capi.h"
#include "core/autocast.h"
#include "core/ops/tensor_ops.h"
#include "core/pinned_memory.h"

using namespace tocha;
using namespace tocha::capi;

int tocha_autocast_set(int device_type, int enabled, int dtype) noexcept {
  return guard_int([&] {
    const char* op = "autocast";
    TOCHA_CHECK(device_type >= 0 && device_type < kNumDeviceTypes, op, "invalid device type ", device_type);
    autocast::State s = autocast::current();
    uint32_t bit = 1u << device_type;
    if (enabled) {
      DType dt = arg_dtype(dtype, op);
      TOCHA_CHECK(dt == DType::f16 || dt == DType::bf16, op, "dtype must be f16 or bf16, got ", dtype_name(dt));
      s.mask |= bit;
      s.dtype[device_type] = dt;
    } else {
      s.mask &= ~bit;
    }
    autocast::exchange(s);
  });
}

int tocha_autocast_get(int device_type, int* dtype) noexcept {
  if (device_type < 0 || device_type >= kNumDeviceTypes) return -1;
  autocast::State s = autocast::current();
  if (dtype) *dtype = int(s.dtype[device_type]);
  return (s.mask >> device_type) & 1u;
}

tocha_tensor* tocha_tensor_empty_pinned(int ndim, const int64_t* sizes, int dtype) noexcept {
  return guard_tensor([&] {
    Tensor r = empty_pinned(arg_dims(ndim, sizes, "pinMemory"), arg_dtype(dtype, "pinMemory"));
    zero_bool_bytes(r, 0);  // Note [Bool bytes]
    return r;
  });
}

tocha_tensor* tocha_tensor_pin_memory(const tocha_tensor* t) noexcept {
  return guard_tensor([&] { return pin_memory(arg(t, "pinMemory")); });
}

int tocha_tensor_is_pinned(const tocha_tensor* t) noexcept {
  int r = -1;
  guard_int([&] { r = is_pinned(arg(t, "isPinned")) ? 1 : 0; });
  return r;
}

int tocha_tensor_copy_async(tocha_tensor* dst, const tocha_tensor* src) noexcept {
  return guard_int([&] { copy_async(arg(dst, "copy"), arg(src, "copy")); });
}
