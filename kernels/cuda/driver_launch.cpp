// Launches through the driver's cuLaunchKernel (kernels/cuda/driver_launch.h).
//
// Note [Driver launches]: on the H100 machine a tiny op took 3.3-3.4 us even without allocating
// (t3:add(t1, t2)), of which our own host work is ~0.2 us: the rest is the launch. The runtime's
// <<<>>> looks up the context and the kernel's driver handle (with lazy module loading) on every
// call before calling cuLaunchKernel; calling the driver directly with a handle cached per kernel
// skips that. The driver's entry point comes from the runtime (cudaGetDriverEntryPointByVersion),
// so nothing links libcuda. Only the contiguous pointwise kernels (the tiny ops) take this path,
// and only with TOCHA_CUDA_DRIVER_LAUNCH=1: on an H200 (three runs, bench/README.md) the driver's
// launch from C was 0.2-0.3 us cheaper (bench/launch_ref.cu), but from Lua the *_driver rows of
// bench/cuda.lua were within the runs' noise of the runtime's (better in two, worse in one).
#include "kernels/cuda/driver_launch.h"
#include "core/device_runtime.h"
#include "core/error.h"
#include "kernels/cuda/check.h"

namespace tocha {
namespace cuda {

namespace {
// cuLaunchKernel's signature with the driver's handle types as void* (CUfunction, CUstream).
using LaunchFn = int (*)(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                         unsigned shared, void* stream, void** params, void** extra);

LaunchFn launch_entry(const char* op) {
  static const LaunchFn fn = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return LaunchFn(nullptr);
    return reinterpret_cast<LaunchFn>(entry);
  }();
  TOCHA_CHECK(fn, op, "the CUDA driver has no cuLaunchKernel entry point (unset TOCHA_CUDA_DRIVER_LAUNCH)");
  return fn;
}
}  // namespace

bool driver_launch_enabled() {
  static const bool on = env_flag("TOCHA_CUDA_DRIVER_LAUNCH", false);
  return on;
}

// The context-less kernel handle (a CUkernel), not cudaGetFuncBySymbol's CUfunction: that one
// belongs to the context current when it was asked for, so one cached handle would fail on a
// second GPU. cuLaunchKernel takes a CUkernel as its CUfunction and launches it in the stream's
// context.
void* driver_function(const char* op, const void* kernel) {
  cudaKernel_t k = nullptr;
  TOCHA_CUDA_CHECK(op, cudaGetKernel(&k, kernel));
  return reinterpret_cast<void*>(k);
}

void driver_launch(const char* op, void* function, unsigned grid, unsigned block, cudaStream_t stream, void** args) {
  const int r = launch_entry(op)(function, grid, 1, 1, block, 1, 1, 0, reinterpret_cast<void*>(stream), args, nullptr);
  // CUresult values below 1000 share their meaning with cudaError_t's (both are the driver's).
  if (r != 0) fail_cuda(op, "cuLaunchKernel", cudaError_t(r));
}

}  // namespace cuda
}  // namespace tocha
