// Errors that CUDA kernels find in their input (a class target out of range) and the host
// raises later, at its next synchronization, instead of synchronizing in the op to check first.
//
// Note [Deferred device errors]: checking a device tensor's values on the host needs a copy to
// the host, which waits for every kernel queued before it: a loss that checked its targets that
// way stalled the GPU pipeline two or three times per training step. Kernels check them instead:
// the first thread that meets a bad value claims the record (mapped pinned host memory, written
// by the kernel directly), skips the value (no out-of-bounds access, no device assert: the CUDA
// context stays usable), and the host raises the error at the first synchronization after the
// kernel: a copy to the host (:item(), :float(), printing) or torch.cuda.synchronize(). Torch7's
// criterion:forward reads its loss, so there the error still comes from the loss's own line. The
// record is cleared once raised; the CPU keeps its checks before the kernel.
#pragma once
#include <cstdint>

namespace tocha {
namespace cuda {

struct DeviceErrorRecord {
  unsigned int claimed;  // 0 until a kernel claims the record
  int op;                // the OpId of the kernel that found the error
  long long sample, target, base, classes;
};

// The record, mapped into every device's address space (allocated on first use). Must be called
// with a CUDA context current (inside a LaunchScope).
DeviceErrorRecord* device_error_record();

// Throws the recorded error, if any, and clears it. Call after the host waited for the stream.
void raise_device_errors();

#ifdef __CUDACC__
// A class-loss kernel met target `target` for sample `sample` (0-based) outside [0, classes)
// after subtracting base.
__device__ __forceinline__ void report_bad_target(DeviceErrorRecord* r, int op, int64_t sample, int64_t target,
                                                  int64_t base, int64_t classes) {
  if (atomicCAS(&r->claimed, 0u, 1u) != 0u) return;
  r->op = op;
  r->sample = sample;
  r->target = target;
  r->base = base;
  r->classes = classes;
  __threadfence_system();
}
#endif

}  // namespace cuda
}  // namespace tocha
