// Kernel signature of the 2-D pooling ops (maxPool, maxPoolBackward, avgPool, avgPoolBackward):
// the contract between core/ops/pool.cpp and kernels/cpu/pool.cpp. Tensors are contiguous planes;
// kernels never validate (the front-end checked the indices of maxPoolBackward).
#pragma once
#include <cstdint>

namespace tocha {

struct PoolArgs {
  int64_t planes = 0;  // N * C
  int64_t iH = 0, iW = 0, oH = 0, oW = 0;
  int64_t kH = 1, kW = 1, dH = 1, dW = 1, padH = 0, padW = 0;
  bool count_include_pad = true;
  int64_t index_base = 0;
  // Forward: in = input planes, out = output planes, indices written by maxPool.
  // Backward: in = grad_output planes, out = grad_input planes (fully written), indices read.
  const void* in = nullptr;
  void* out = nullptr;
  int64_t* indices = nullptr;
};
using PoolKernel = void (*)(const PoolArgs&);

}  // namespace tocha
