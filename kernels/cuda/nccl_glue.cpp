// nccl_glue.cpp -- what torch.distributed's NCCL plugin (bindings/distributed/libtocha_nccl.so,
// a separate library that cannot see libtocha's hidden C++ symbols) needs from the CUDA runtime:
// Tocha's compute stream of a device, so that its NCCL calls are ordered with Tocha's kernels.
#include "kernels/cuda/runtime.h"

// Not in tocha.h: an internal hook for the plugin, declared in bindings/distributed/tocha_nccl.h.
extern "C" __attribute__((visibility("default"))) void* tocha_cuda_compute_stream(int device) noexcept {
  try {
    return static_cast<void*>(tocha::cuda::stream(device));
  } catch (...) {
    return nullptr;  // no such device, or no CUDA: the plugin reports it
  }
}
