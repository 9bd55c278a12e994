// cudaMalloc-backed RawDeviceMemory, the process-wide caching allocator, and the DeviceAllocator
// hooks (alloc/free/copy) that Storage uses for cuda tensors. See allocator.h.
#include "kernels/cuda/allocator.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/device_errors.h"
#include "kernels/cuda/pinned.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {

namespace {

class CudaMemory : public RawDeviceMemory {
 public:
  void* malloc(int device, size_t nbytes) override {
    DeviceGuard g(device);
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, nbytes);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it
      return nullptr;
    }
    TOCHA_CUDA_CHECK("alloc", e);
    return p;
  }
  void free(int device, void* p) override {
    DeviceGuard g(device);
    TOCHA_CUDA_CHECK("free", cudaFree(p));
  }
  void synchronize(int device) override {
    DeviceGuard g(device);
    TOCHA_CUDA_CHECK("alloc", cudaStreamSynchronize(stream(device)));
  }
  void* record_event(int device, void* s) override {
    DeviceGuard g(device);
    cudaEvent_t ev;
    TOCHA_CUDA_CHECK("alloc", cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    TOCHA_CUDA_CHECK("alloc", cudaEventRecord(ev, static_cast<cudaStream_t>(s)));
    return ev;
  }
  bool event_done(void* ev) override {
    cudaError_t e = cudaEventQuery(static_cast<cudaEvent_t>(ev));
    if (e == cudaErrorNotReady) {
      cudaGetLastError();
      return false;
    }
    TOCHA_CUDA_CHECK("alloc", e);
    return true;
  }
  void destroy_event(void* ev) override { TOCHA_CUDA_CHECK("alloc", cudaEventDestroy(static_cast<cudaEvent_t>(ev))); }
  size_t capacity(int device) override { return properties(device).totalGlobalMem; }
};

void* alloc(size_t nbytes, int device) {
  if (device < 0 || device >= device_count()) require_device("alloc", device);  // throws
  void* p = caching_allocator().allocate(device, nbytes, stream(device));
  memory_on_alloc(DeviceType::cuda, nbytes);
  return p;
}

void free_block(void* p, size_t nbytes, int) {
  caching_allocator().free(p);
  memory_on_free(DeviceType::cuda, nbytes);
}

// Note [Copies and streams]: host-to-device copies from pageable memory are staged by the
// driver before cudaMemcpyAsync returns, so the source may be freed at once; device-to-host
// copies are synchronized before returning (the host reads the result next). Copies between two
// devices synchronize both streams around the peer copy, so neither block can be reused while
// the copy still reads or writes it.
void copy(void* dst, Device dst_dev, const void* src, Device src_dev, size_t n) {
  if (n == 0) return;
  const char* op = "copy";
  if (src_dev.is_cpu()) {
    LaunchScope s(dst_dev.index);
    TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s.stream));
    // A pinned source is read by the DMA engine later, not staged now (Note [Asynchronous copies]).
    if (host_is_pinned(src)) TOCHA_CUDA_CHECK(op, cudaStreamSynchronize(s.stream));
  } else if (dst_dev.is_cpu()) {
    LaunchScope s(src_dev.index);
    TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s.stream));
    TOCHA_CUDA_CHECK(op, cudaStreamSynchronize(s.stream));
    raise_device_errors();  // Note [Deferred device errors]
  } else if (src_dev.index == dst_dev.index) {
    LaunchScope s(dst_dev.index);
    TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, s.stream));
  } else {
    {
      DeviceGuard g(src_dev.index);
      TOCHA_CUDA_CHECK(op, cudaStreamSynchronize(stream(src_dev.index)));
    }
    LaunchScope s(dst_dev.index);
    TOCHA_CUDA_CHECK(op, cudaMemcpyPeerAsync(dst, dst_dev.index, src, src_dev.index, n, s.stream));
    TOCHA_CUDA_CHECK(op, cudaStreamSynchronize(s.stream));
  }
}

const bool registered = [] {
  register_device_allocator(DeviceType::cuda, DeviceAllocator{alloc, free_block, copy});
  return true;
}();

}  // namespace

CachingAllocator& caching_allocator() {
  static CachingAllocator* a = [] {
    static CudaMemory raw;
    auto* c = new CachingAllocator(&raw, "cuda");
    c->set_reclaim_hook([](int) { memory_request_gc(DeviceType::cuda); });
    return c;
  }();
  return *a;
}

}  // namespace cuda
}  // namespace tocha
