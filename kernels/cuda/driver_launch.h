// Kernel launches through the driver's cuLaunchKernel instead of the runtime's <<<>>>, for the
// launch-bound tiny ops (Note [Driver launches], driver_launch.cpp). Off unless
// TOCHA_CUDA_DRIVER_LAUNCH=1: an experiment until a GPU run shows it is cheaper.
#pragma once
#include <cuda_runtime_api.h>

namespace tocha {
namespace cuda {

// Whether launches go through the driver (read once from the environment).
bool driver_launch_enabled();

// The driver's handle of a __global__ function, by its host address (cache it per kernel).
void* driver_function(const char* op, const void* kernel);

// Launches the kernel `function` (from driver_function) with the given parameter pointers.
void driver_launch(const char* op, void* function, unsigned grid, unsigned block, cudaStream_t stream, void** args);

}  // namespace cuda
}  // namespace tocha
