// The deferred device-error record (Note [Deferred device errors], device_errors.h).
#include "kernels/cuda/device_errors.h"
#include <cuda_runtime_api.h>
#include <atomic>
#include <cstring>
#include <mutex>
#include "core/error.h"
#include "core/op_id.h"
#include "kernels/cuda/check.h"

namespace tocha {
namespace cuda {

namespace {
std::atomic<DeviceErrorRecord*> g_record{nullptr};
std::mutex g_mutex;
}  // namespace

DeviceErrorRecord* device_error_record() {
  DeviceErrorRecord* r = g_record.load(std::memory_order_acquire);
  if (r) return r;
  std::lock_guard<std::mutex> lock(g_mutex);
  r = g_record.load(std::memory_order_relaxed);
  if (!r) {
    void* p = nullptr;
    TOCHA_CUDA_CHECK("cuda", cudaHostAlloc(&p, sizeof(DeviceErrorRecord), cudaHostAllocMapped | cudaHostAllocPortable));
    std::memset(p, 0, sizeof(DeviceErrorRecord));
    void* dev = nullptr;
    TOCHA_CUDA_CHECK("cuda", cudaHostGetDevicePointer(&dev, p, 0));
    // With unified addressing (every 64-bit platform CUDA 13 supports) both views are one pointer.
    TOCHA_CHECK(dev == p, "cuda", "mapped host memory has a different device address; unified addressing is required");
    r = static_cast<DeviceErrorRecord*>(p);
    g_record.store(r, std::memory_order_release);
  }
  return r;
}

void raise_device_errors() {
  DeviceErrorRecord* r = g_record.load(std::memory_order_acquire);
  // Called after the host waited for the stream (an opaque call: the compiler rereads memory).
  // A record claimed but not yet ready is being written by a kernel still running on another
  // device: it is raised at a later synchronization.
  if (!r || !r->ready) return;
  std::atomic_thread_fence(std::memory_order_acquire);
  DeviceErrorRecord e;
  std::memcpy(&e, const_cast<const DeviceErrorRecord*>(r), sizeof e);
  r->ready = 0;
  std::atomic_thread_fence(std::memory_order_release);
  r->claimed = 0;
  const char* when = "found on the GPU; raised at the first synchronization after it";
  if (e.kind == kBadTarget)
    fail(op_name(OpId(e.op)), "target ", e.value, " (sample ", e.where + e.base, ") is out of range: classes are ",
         e.base, "..", e.bound - 1 + e.base, " (", when, ")");
  if (e.kind == kBadPosition)
    fail(op_name(OpId(e.op)), "indices must lie in [", e.base, ", ", e.base + e.bound - 1, "] (positions in a ",
         e.bound / e.where, "x", e.where, " plane), got ", e.value, " (", when, ")");
  if (e.kind == kBadWeight) {
    if (e.dim == 0) {
      double v;
      std::memcpy(&v, &e.value, sizeof v);
      fail(op_name(OpId(e.op)), "weights must be finite and non-negative, got ", v, " at row ", e.where + 1,
           ", column ", e.base + 1, " (", when, ")");
    }
    if (e.dim == 1) fail(op_name(OpId(e.op)), "the weights of row ", e.where + 1, " sum to zero (", when, ")");
    fail(op_name(OpId(e.op)), "cannot draw ", e.bound, " samples without replacement from row ", e.where + 1,
         ", which has only ", e.value, " non-zero weights (", when, ")");
  }
  fail(op_name(OpId(e.op)), "index ", e.value, " is out of range for dimension ", e.dim + 1, " of size ", e.bound,
       e.base == 1 ? " (indices are 1-based; " : " (", when, ")");
}

}  // namespace cuda
}  // namespace tocha
