// Kernel signature of the 2-D pooling ops (maxPool2d, maxPool2dBackward, avgPool2d, avgPool2dBackward):
// the contract between core/ops/pool2d.cpp and kernels/cpu/pool2d.cpp. Tensors are contiguous planes;
// kernels never validate, except the positions maxPool2dBackward reads (Note [Positions checked by
// the pooling backward]).
#pragma once
#include <atomic>
#include <cstdint>

namespace tocha {

struct Pool2dArgs {
  int64_t planes = 0;  // N * C
  int64_t iH = 0, iW = 0, oH = 0, oW = 0;
  int64_t kH = 1, kW = 1, dH = 1, dW = 1, padH = 0, padW = 0;
  bool count_include_pad = true;
  // maxPool2dBackward: kH..padW are the windows the indices were taken in (their maxima lie inside),
  // so a kernel may gather per input element; false: only the indices are known.
  bool windows = false;
  int64_t index_base = 0;
  // Forward: in = input planes, out = output planes, indices written by maxPool2d.
  // Backward: in = grad_output planes, out = grad_input planes (fully written), indices read.
  const void* in = nullptr;
  void* out = nullptr;
  int64_t* indices = nullptr;
  // maxPool2dBackward on the CPU: the first position found outside its plane (skipped, not written
  // through); the front-end raises the error once the kernel returns.
  struct BadPosition {
    std::atomic<bool> found{false};
    int64_t value = 0;
  };
  BadPosition* bad = nullptr;
};
using Pool2dKernel = void (*)(const Pool2dArgs&);

}  // namespace tocha
