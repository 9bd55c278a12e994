// Runtime services of a device backend (CUDA: device count, current device, properties,
// synchronization, cache control, settings), registered by kernels/cuda at load time so that
// core/ and bindings/ compile without CUDA. An unregistered backend reports itself unavailable.
#pragma once
#include <cstdint>
#include "core/caching_allocator.h"
#include "core/device.h"

namespace tocha {

struct DeviceProperties {
  char name[256];
  int64_t total_memory;      // bytes
  int major, minor;          // compute capability
  int multiprocessors;
  int warp_size;
  int max_threads_per_block;
  int64_t shared_memory_per_block;  // bytes
};

struct DeviceRuntime {
  // Devices present (0 when there is no device or driver); never throws.
  int (*device_count)();
  // Why device_count() is 0 ("no CUDA device: ..."); empty when devices exist.
  const char* (*unavailable_reason)();
  int (*current_device)();
  void (*set_device)(int device);
  // Waits for all work queued on the device (device < 0: the current one).
  void (*synchronize)(int device);
  void (*properties)(int device, DeviceProperties* out);
  // Releases cached blocks of every device; the allocator's counters for one device.
  void (*empty_cache)();
  CacheStats (*cache_stats)(int device);
  void (*reset_peak_stats)(int device);
};

void register_device_runtime(DeviceType t, const DeviceRuntime& r);
// The backend's runtime, or nullptr when Tocha was built without it.
const DeviceRuntime* device_runtime(DeviceType t);
// The runtime of t, checked: an error naming op when the backend is missing or has no device.
const DeviceRuntime& require_device_runtime(DeviceType t, const char* op);

// A switch from the environment (TOCHA_CUDA_SYNC=1 and the like): `fallback` when unset or
// empty, off when "0", on for anything else.
bool env_flag(const char* name, bool fallback);

// Backend settings read by kernels (torch.backends.cuda.allowTF32): TF32 tensor-core math for
// f32 matmuls is off by default, so f32 results match the CPU to f32 precision.
bool cuda_allow_tf32();
void set_cuda_allow_tf32(bool on);
// torch.backends.cudnn.benchmark: convolutions time cuDNN's algorithms on the first call of each
// shape instead of taking the heuristics' first (Note [cuDNN algorithm cache]).
bool cudnn_benchmark();
void set_cudnn_benchmark(bool on);
// torch.backends.cudnn.graphAPI: convolutions try cuDNN's graph API and its engine heuristics
// first (Note [cuDNN engines]). Off by default; TOCHA_CUDNN_GRAPH=1 turns it on at start-up.
bool cudnn_graph_api();
void set_cudnn_graph_api(bool on);
// What the graph path decided per convolution shape: an execution plan, or the legacy API (no
// engine took it). A GPU run can tell from these whether the graph path ran at all.
struct CudnnGraphStats {
  int64_t plans = 0, legacy = 0;
};
CudnnGraphStats cudnn_graph_stats();
void count_cudnn_graph_shape(bool planned);

}  // namespace tocha
