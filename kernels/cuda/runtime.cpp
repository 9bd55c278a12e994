// Device discovery, per-device streams, guards and properties, and the DeviceRuntime that the
// C ABI reaches through core/device_runtime.h. See runtime.h.
#include "kernels/cuda/runtime.h"
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>
#include "core/device_runtime.h"
#include "core/error.h"
#include "kernels/cuda/allocator.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/device_errors.h"

namespace tocha {
namespace cuda {

namespace {
struct Devices {
  int count = 0;
  std::string reason;
  std::vector<cudaDeviceProp> props;
  std::vector<cudaStream_t> streams;
  std::mutex mutex;
};
Devices& devices() {
  static Devices* d = [] {
    auto* d = new Devices();
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      cudaGetLastError();
      d->reason = std::string("no CUDA device: ") + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
      n = 0;
    } else if (n == 0) {
      d->reason = "no CUDA device: the driver reports 0 devices";
    }
    d->count = n;
    d->props.resize(size_t(n));
    for (int i = 0; i < n; ++i) TOCHA_CUDA_CHECK("cuda", cudaGetDeviceProperties(&d->props[size_t(i)], i));
    d->streams.assign(size_t(n), nullptr);
    return d;
  }();
  return *d;
}
}  // namespace

int device_count() { return devices().count; }
const char* unavailable_reason() { return devices().reason.c_str(); }

void require_device(const char* op, int device) {
  Devices& d = devices();
  TOCHA_CHECK(d.count > 0, op, d.reason);
  TOCHA_CHECK(device >= 0 && device < d.count, op, "invalid device cuda:", device, " (", d.count,
              d.count == 1 ? " device is" : " devices are", " present: cuda:0",
              d.count > 1 ? str_cat("..cuda:", d.count - 1) : std::string(), ")");
}

cudaStream_t stream(int device) {
  Devices& d = devices();
  // Every launch asks: the created stream is returned at once; the checks run before creating it.
  if (device >= 0 && device < d.count)
    if (cudaStream_t s = d.streams[size_t(device)]) return s;
  require_device("cuda", device);
  cudaStream_t s = nullptr;
  std::lock_guard<std::mutex> g(d.mutex);
  if (!d.streams[size_t(device)]) {
    DeviceGuard guard(device);
    TOCHA_CUDA_CHECK("cuda", cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    d.streams[size_t(device)] = s;
  }
  return d.streams[size_t(device)];
}

int current_device() {
  require_device("cuda", 0);
  int dev = 0;
  TOCHA_CUDA_CHECK("cuda", cudaGetDevice(&dev));
  return dev;
}

const cudaDeviceProp& properties(int device) {
  require_device("cuda", device);
  return devices().props[size_t(device)];
}

DeviceGuard::DeviceGuard(int device) {
  int cur = 0;
  TOCHA_CUDA_CHECK("cuda", cudaGetDevice(&cur));
  if (cur != device) {
    TOCHA_CUDA_CHECK("cuda", cudaSetDevice(device));
    prev_ = cur;
  }
}

DeviceGuard::~DeviceGuard() {
  if (prev_ >= 0) cudaSetDevice(prev_);
}

int device_of(const void* p) {
  if (device_count() <= 1) return 0;
  cudaPointerAttributes a;
  TOCHA_CUDA_CHECK("cuda", cudaPointerGetAttributes(&a, p));
  return a.device;
}

namespace {
void synchronize(int device) {
  if (device < 0) device = current_device();
  require_device("synchronize", device);
  DeviceGuard g(device);
  TOCHA_CUDA_CHECK("synchronize", cudaStreamSynchronize(stream(device)));
  raise_device_errors();  // Note [Deferred device errors]
}

void get_properties(int device, DeviceProperties* out) {
  const cudaDeviceProp& p = properties(device);
  std::snprintf(out->name, sizeof out->name, "%s", p.name);
  out->total_memory = int64_t(p.totalGlobalMem);
  out->major = p.major;
  out->minor = p.minor;
  out->multiprocessors = p.multiProcessorCount;
  out->warp_size = p.warpSize;
  out->max_threads_per_block = p.maxThreadsPerBlock;
  out->shared_memory_per_block = int64_t(p.sharedMemPerBlock);
}

void set_device(int device) {
  require_device("setDevice", device);
  TOCHA_CUDA_CHECK("setDevice", cudaSetDevice(device));
}

const bool registered = [] {
  DeviceRuntime r;
  r.device_count = [] { return device_count(); };
  r.unavailable_reason = [] { return unavailable_reason(); };
  r.current_device = [] { return current_device(); };
  r.set_device = set_device;
  r.synchronize = synchronize;
  r.properties = get_properties;
  r.empty_cache = [] { caching_allocator().empty_cache(-1); };
  r.cache_stats = [](int device) { return caching_allocator().stats(device); };
  r.reset_peak_stats = [](int device) { caching_allocator().reset_peaks(device); };
  register_device_runtime(DeviceType::cuda, r);
  return true;
}();
}  // namespace

}  // namespace cuda
}  // namespace tocha
