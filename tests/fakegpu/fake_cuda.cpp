// A fake CUDA stack for machines without a GPU: libcudart, cuBLAS, cuDNN and cuSOLVER entry
// points that Tocha calls, answering like one idle device whose kernels never run. Built as one
// shared object that tests/fakegpu's symlinks name libcudart.so.13, libcublas.so.13, libcudnn.so.9
// and libcusolver.so.12; a process started with LD_LIBRARY_PATH pointing there loads it instead of
// the real libraries.
//
// Note [Fake GPU]: what it is for. Kernels are not executed, so tensor values on the "device" are
// meaningless. What is real is every host-side step of a CUDA op: Lua, dispatch, the caching
// allocator, the launch configuration, cuDNN/cuBLAS descriptor work, and the copies (device
// memory is host memory, so cudaMemcpy* and cudaMemset* are carried out). That lets a machine with
// no GPU (CI, this one) (1) test how often a training step waits for the device, launches kernels
// or asks cuDNN's heuristics (tests/lua/test_fakegpu_steps.lua), and (2) measure the host cost of
// a launch without the driver's own (bench/cuda_host.lua). The counters are read through the FFI:
// fakegpu_counters(), fakegpu_reset(), fakegpu_trace(on) / fakegpu_trace_take().
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <cxxabi.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "tests/fakegpu/fake_counters.h"

namespace {

FakeGpuCounters counters_;
bool tracing = false;
std::string trace_log;
thread_local int current = 0;

// Note [Simulated device time]: with FAKEGPU_KERNEL_US=t (or fakegpu_set_kernel_us(t)) the fake
// device takes t microseconds for every kernel, library call, fill and on-device copy, one after
// another, and a wait (cudaStreamSynchronize, cudaDeviceSynchronize) spins until the device has
// finished what was queued. A training step then runs as on a GPU whose work is that long, and
// the device's idle time (gpu_idle_ns: queued work arriving after the previous one finished) is
// what the host's pace costs it: Lua's collector, allocation misses, waits that leave the device
// without work. 0 (the default) keeps the device infinitely fast. As on a GPU, the host may run
// ahead by at most kQueueDepth launches: the next one waits for a free slot.
double kernel_ns = [] {
  const char* e = std::getenv("FAKEGPU_KERNEL_US");
  return e ? std::atof(e) * 1e3 : 0.0;
}();
long long device_free_at = 0;  // steady-clock ns at which the queued work ends
constexpr int kQueueDepth = 1024;
long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
void device_wait() {
  if (kernel_ns <= 0) return;
  while (now_ns() < device_free_at) {
  }
}

int device_total() {
  static int n = [] {
    const char* e = std::getenv("FAKEGPU_DEVICES");
    return e ? std::atoi(e) : 1;
  }();
  return n;
}

// Host functions of registered kernels -> their (mangled) device names.
std::unordered_map<const void*, const char*>& kernel_names() {
  static std::unordered_map<const void*, const char*> m;
  return m;
}

void trace(const char* what) { fakegpu_trace_call(what); }

// The kernel's name without return type, template arguments and parameters: "tocha::cuda::fill_kernel".
void trace_kernel(const void* fn) {
  if (!tracing) return;
  auto it = kernel_names().find(fn);
  const char* mangled = it == kernel_names().end() ? "?" : it->second;
  int status = 0;
  char* full = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && full ? full : mangled;
  std::free(full);
  const std::string anon = "(anonymous namespace)::";
  for (size_t at; (at = name.find(anon)) != std::string::npos;) name.erase(at, anon.size());
  name = name.substr(0, name.find_first_of("<("));
  trace_log += "kernel " + name.substr(name.rfind(' ') + 1) + '\n';
}

struct Launch {
  dim3 grid, block;
  size_t shared;
  void* stream;
};
thread_local Launch pending_launch;

void* fake_handle() { return std::calloc(1, 64); }

void* aligned_zeroed(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, 256, n ? n : 1) != 0) return nullptr;
  std::memset(p, 0, n);
  return p;
}

// Device memory is uninitialized like cudaMalloc's (pages of a large block are not touched until
// written), and a device has FAKEGPU_MEMORY_MIB of it (default 8192): past that cudaMalloc fails
// as on a full GPU, so the out-of-memory paths run too.
size_t device_capacity() {
  static size_t bytes = [] {
    const char* e = std::getenv("FAKEGPU_MEMORY_MIB");
    return size_t(e ? std::atoll(e) : 8192) << 20;
  }();
  return bytes;
}
std::unordered_map<void*, size_t>& device_blocks() {
  static std::unordered_map<void*, size_t> m;
  return m;
}
size_t device_in_use = 0;

}  // namespace

extern "C" {

FakeGpuCounters* fakegpu_counters() { return &counters_; }
void fakegpu_trace_call(const char* what) {
  if (!tracing) return;
  trace_log += what;
  trace_log += '\n';
}
void fakegpu_reset() { counters_ = FakeGpuCounters{}; }
void fakegpu_device_work() {
  if (kernel_ns <= 0) return;
  long long now = now_ns();
  if (now > device_free_at) {
    if (device_free_at) counters_.gpu_idle_ns += now - device_free_at;
    device_free_at = now;
  }
  while (device_free_at - now > (long long)(kQueueDepth * kernel_ns)) now = now_ns();
  device_free_at += (long long)kernel_ns;
  counters_.gpu_busy_ns += (long)kernel_ns;
}
void fakegpu_set_kernel_us(double us) {
  device_wait();
  kernel_ns = us * 1e3;
  device_free_at = 0;
}
void fakegpu_trace(int on) {
  tracing = on != 0;
  trace_log.clear();
}
// The names traced since the last call, one per line ("kernel <name>", "sync", "cudnn <call>"...).
const char* fakegpu_trace_take() {
  static std::string out;
  out.swap(trace_log);
  trace_log.clear();
  return out.c_str();
}

// ---- kernel registration and launch (what nvcc's generated host code calls) ----
void** __cudaRegisterFatBinary(void*) { return static_cast<void**>(fake_handle()); }
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}
void __cudaRegisterFunction(void**, const char* host_fun, char*, const char* device_name, int, uint3*, uint3*, dim3*,
                            dim3*, int*) {
  kernel_names()[host_fun] = device_name;
}
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st* stream) {
  pending_launch = Launch{grid, block, shared, stream};
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  *grid = pending_launch.grid;
  *block = pending_launch.block;
  *shared = pending_launch.shared;
  *static_cast<void**>(stream) = pending_launch.stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* fn) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(fn));
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3, dim3, void**, size_t, cudaStream_t) {
  counters_.launches += 1;
  trace_kernel(kernel);
  fakegpu_device_work();
  return cudaSuccess;
}

// Driver-level launches (Note [Driver launches]): the kernel handle is the kernel's host address.
cudaError_t cudaGetKernel(cudaKernel_t* kernel, const void* fn) { return __cudaGetKernel(kernel, fn); }
static int fake_cu_launch_kernel(void* f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*,
                                 void**, void**) {
  counters_.launches += 1;
  trace_kernel(f);
  fakegpu_device_work();
  return 0;
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int, unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  const bool known = std::strcmp(symbol, "cuLaunchKernel") == 0;
  *fn = known ? reinterpret_cast<void*>(&fake_cu_launch_kernel) : nullptr;
  if (status) *status = known ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}

// ---- devices, errors, streams, events ----
cudaError_t cudaGetDeviceCount(int* n) {
  *n = device_total();
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* d) {
  *d = current;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  if (d < 0 || d >= device_total()) return cudaErrorInvalidDevice;
  current = d;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int d) {
  if (d < 0 || d >= device_total()) return cudaErrorInvalidDevice;
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "Fake GPU (tests/fakegpu: kernels do not run)");
  p->totalGlobalMem = device_capacity();
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = 132;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->sharedMemPerBlock = 48 << 10;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 0x7fffffff;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  return cudaSuccess;
}
cudaError_t cudaGetLastError() { return cudaSuccess; }
cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "fake CUDA error"; }
const char* cudaGetErrorName(cudaError_t) { return "cudaErrorFake"; }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = static_cast<cudaStream_t>(fake_handle());
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) {
  counters_.syncs += 1;
  trace("sync");
  device_wait();
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() {
  counters_.syncs += 1;
  trace("sync");
  device_wait();
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) {
  *e = static_cast<cudaEvent_t>(fake_handle());
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) {
  counters_.events += 1;
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  std::free(e);
  return cudaSuccess;
}

// ---- memory: device memory is host memory. Copies between host and device are carried out, so
// data sent to the device comes back; copies on the device and fills are only counted, like
// kernels (their cost would otherwise stand in the host timings of bench/cuda_host.lua). ----
cudaError_t cudaMalloc(void** p, size_t n) {
  *p = nullptr;
  if (n > device_capacity() - device_in_use || posix_memalign(p, 256, n ? n : 1) != 0) return cudaErrorMemoryAllocation;
  device_blocks()[*p] = n;
  device_in_use += n;
  counters_.device_mallocs += 1;
  if (tracing) trace(("cudaMalloc " + std::to_string(n)).c_str());
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  auto it = device_blocks().find(p);
  if (it != device_blocks().end()) {
    device_in_use -= it->second;
    device_blocks().erase(it);
  }
  std::free(p);
  counters_.device_frees += 1;
  return cudaSuccess;
}
cudaError_t cudaHostAlloc(void** p, size_t n, unsigned) {
  *p = aligned_zeroed(n);
  if (!*p) return cudaErrorMemoryAllocation;
  counters_.host_allocs += 1;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) {
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaHostGetDevicePointer(void** dev, void* host, unsigned) {
  *dev = host;
  return cudaSuccess;
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  std::memset(a, 0, sizeof *a);
  a->type = cudaMemoryTypeDevice;
  a->device = current;
  a->devicePointer = const_cast<void*>(p);
  return cudaSuccess;
}
// Counts a copy; whether it crosses between host and device (and so is carried out).
static bool count_copy(cudaMemcpyKind kind) {
  if (kind == cudaMemcpyDeviceToHost) {
    counters_.copies_to_host += 1;
    trace("copy to host");
    return true;
  }
  if (kind == cudaMemcpyHostToDevice) {
    counters_.copies_to_device += 1;
    return true;
  }
  counters_.copies_on_device += 1;
  fakegpu_device_work();
  return kind == cudaMemcpyHostToHost;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t) {
  if (count_copy(kind)) std::memmove(dst, src, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t) {
  if (!count_copy(kind)) return cudaSuccess;
  for (size_t r = 0; r < height; ++r)
    std::memmove(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width);
  return cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void*, int, const void*, int, size_t, cudaStream_t) {
  counters_.copies_on_device += 1;
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void*, int, size_t, cudaStream_t) {
  counters_.memsets += 1;
  fakegpu_device_work();
  return cudaSuccess;
}
cudaError_t cudaMemset2DAsync(void*, size_t, int, size_t, size_t, cudaStream_t) {
  counters_.memsets += 1;
  fakegpu_device_work();
  return cudaSuccess;
}

}  // extern "C"
