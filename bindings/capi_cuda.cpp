// C ABI of the device runtime (bindings/tocha_cuda.h) over core/device_runtime.h. Nothing here
// includes CUDA headers: without the backend, device_runtime() is null and there are no devices.
#include <cstdio>
#include "bindings/capi.h"
#include "core/device_runtime.h"
#include "core/philox.h"
#include "core/pinned_memory.h"

using namespace tocha;
using namespace tocha::capi;

namespace {
const DeviceRuntime& rt(const char* op) { return require_device_runtime(DeviceType::cuda, op); }
}  // namespace

int tocha_cuda_is_built(void) noexcept { return device_runtime(DeviceType::cuda) ? 1 : 0; }

int tocha_cuda_device_count(void) noexcept {
  const DeviceRuntime* r = device_runtime(DeviceType::cuda);
  if (!r) return 0;
  int n = 0;
  if (guard_int([&] { n = r->device_count(); }) != 0) return 0;
  return n;
}

const char* tocha_cuda_unavailable_reason(void) noexcept {
  const DeviceRuntime* r = device_runtime(DeviceType::cuda);
  if (!r) return "Tocha was built without CUDA support (configure with -DTOCHA_CUDA=ON)";
  const char* s = "";
  guard_int([&] { s = r->unavailable_reason(); });
  return s ? s : "";
}

int tocha_cuda_current_device(void) noexcept {
  int d = -1;
  if (guard_int([&] { d = rt("getDevice").current_device(); }) != 0) return -1;
  return d;
}

int tocha_cuda_set_device(int device) noexcept {
  return guard_int([&] { rt("setDevice").set_device(device); });
}

int tocha_cuda_synchronize(int device) noexcept {
  return guard_int([&] { rt("synchronize").synchronize(device); });
}

int tocha_cuda_device_properties(int device, tocha_device_properties* out) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(out, "getDeviceProperties", "output pointer is NULL");
    DeviceProperties p;
    rt("getDeviceProperties").properties(device, &p);
    std::snprintf(out->name, sizeof out->name, "%s", p.name);
    out->total_memory = p.total_memory;
    out->major = p.major;
    out->minor = p.minor;
    out->multiprocessors = p.multiprocessors;
    out->warp_size = p.warp_size;
    out->max_threads_per_block = p.max_threads_per_block;
    out->shared_memory_per_block = p.shared_memory_per_block;
  });
}

// Without a backend or a device there is nothing cached: emptying is a no-op, like PyTorch.
int tocha_cuda_empty_cache(void) noexcept {
  return guard_int([&] {
    const DeviceRuntime* r = device_runtime(DeviceType::cuda);
    if (r && r->device_count() > 0) {
      r->empty_cache();
      if (const PinnedMemoryHooks* h = pinned_memory()) h->empty_cache();  // the pinned host cache too
    }
  });
}

int tocha_cuda_memory_stats(int device, tocha_cuda_mem_stats* out) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(out, "memoryStats", "output pointer is NULL");
    CacheStats s;
    const DeviceRuntime* r = device_runtime(DeviceType::cuda);
    if (r && r->device_count() > 0) s = r->cache_stats(device);
    out->allocated_bytes = s.allocated_bytes;
    out->requested_bytes = s.requested_bytes;
    out->reserved_bytes = s.reserved_bytes;
    out->cached_bytes = s.cached_bytes;
    out->peak_allocated_bytes = s.peak_allocated_bytes;
    out->peak_reserved_bytes = s.peak_reserved_bytes;
    out->device_allocs = s.device_allocs;
    out->device_frees = s.device_frees;
    out->cache_hits = s.cache_hits;
    out->oom_retries = s.oom_retries;
    out->ooms = s.ooms;
  });
}

int tocha_cuda_reset_peak_stats(int device) noexcept {
  return guard_int([&] {
    const DeviceRuntime* r = device_runtime(DeviceType::cuda);
    if (r && r->device_count() > 0) r->reset_peak_stats(device);
  });
}

int tocha_cuda_allow_tf32(void) noexcept { return cuda_allow_tf32() ? 1 : 0; }
void tocha_cuda_set_allow_tf32(int on) noexcept { set_cuda_allow_tf32(on != 0); }
int tocha_cudnn_benchmark(void) noexcept { return cudnn_benchmark() ? 1 : 0; }
void tocha_cudnn_set_benchmark(int on) noexcept { set_cudnn_benchmark(on != 0); }
int tocha_cudnn_graph_api(void) noexcept { return cudnn_graph_api() ? 1 : 0; }
void tocha_cudnn_set_graph_api(int on) noexcept { set_cudnn_graph_api(on != 0); }
void tocha_cudnn_graph_stats(int64_t* plans, int64_t* legacy) noexcept {
  CudnnGraphStats s = cudnn_graph_stats();
  *plans = s.plans;
  *legacy = s.legacy;
}

// Generators exist without a device (seeding before the first GPU use, like PyTorch).
int tocha_cuda_manual_seed(int device, uint64_t seed) noexcept {
  return guard_int([&] {
    if (device < 0) cuda_manual_seed_all(seed);
    else cuda_generator(device).manual_seed(seed);
  });
}
int tocha_cuda_initial_seed(int device, uint64_t* seed) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(seed, "initialSeed", "output pointer is NULL");
    *seed = cuda_generator(device < 0 ? 0 : device).initial_seed();
  });
}
int tocha_cuda_get_rng_state(int device, uint64_t* seed, uint64_t* offset) noexcept {
  return guard_int([&] {
    TOCHA_CHECK(seed && offset, "cuda.getRNGState", "output pointer is NULL");
    cuda_generator(device < 0 ? 0 : device).get_state(seed, offset);
  });
}
int tocha_cuda_set_rng_state(int device, uint64_t seed, uint64_t offset) noexcept {
  return guard_int([&] { cuda_generator(device < 0 ? 0 : device).set_state(seed, offset); });
}
