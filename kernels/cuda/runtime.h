// The CUDA runtime as the kernels see it: device count (probed once, never throwing), one
// stream per device that every kernel, copy and cuBLAS call of Tocha uses, device guards, and
// cached device properties.
#pragma once
#include <cuda_runtime_api.h>

namespace tocha {
namespace cuda {

// Devices present; 0 when there is no driver or device (the reason is then in unavailable_reason).
int device_count();
const char* unavailable_reason();
// Throws "[op] no CUDA device: ..." when device_count() is 0, or when device is out of range.
void require_device(const char* op, int device);

// Note [One stream per device]: all of Tocha's work on a device is queued on one non-blocking
// stream, created on first use, so ops run in program order without host synchronization and
// the caching allocator can reuse a freed block at once (same-stream order). Copies to the host
// synchronize that stream. Legacy-stream calls (cudaMemcpy, cudaMemset) are never used: they
// would not be ordered with it.
cudaStream_t stream(int device);
int current_device();
const cudaDeviceProp& properties(int device);

// Makes `device` current for a scope and restores the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int prev_ = -1;
};

// The device that owns device memory p (kernel arguments carry pointers, not devices): 0 on a
// single-GPU machine without asking the driver.
int device_of(const void* p);

// What a kernel launch needs: the device made current for the scope and its stream.
struct LaunchScope {
  DeviceGuard guard;
  cudaStream_t stream;
  explicit LaunchScope(int device) : guard(device), stream(cuda::stream(device)) {}
};

}  // namespace cuda
}  // namespace tocha
