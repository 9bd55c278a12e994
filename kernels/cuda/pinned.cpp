// Pinned host memory: a caching allocator over cudaHostAlloc (size classes as in the device
// allocator, blocks reused only after the async copies queued on them finished) and the
// asynchronous copies between pinned blocks and devices, registered as core's PinnedMemoryHooks.
//
// Note [Asynchronous copies]: dst:copy(src, true) between a pinned host tensor and a device queues
// cudaMemcpyAsync on the device's stream (Note [One stream per device]) and returns. The device
// side is ordered with every other op on that stream; the host side is not: the host must not
// read a pinned destination, or overwrite a pinned source, before torch.cuda.synchronize() (as in
// PyTorch). Freeing is safe: a block used by an async copy records an event on that stream when
// it is freed and is reused only once the event completed. The ordinary (synchronous) copy of a
// pinned source waits for its copy (allocator.cpp), because the driver does not stage pinned
// memory the way it stages pageable memory.
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>
#include "core/caching_allocator.h"
#include "core/error.h"
#include "core/memory.h"
#include "core/pinned_memory.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/pinned.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {

namespace {

struct Block {
  void* ptr;
  size_t size;                          // size class
  std::vector<int> devices;             // devices whose streams queued async copies on it (live)
  std::vector<cudaEvent_t> events;      // recorded when freed, pending reuse
};

class PinnedCache {
 public:
  void* allocate(size_t nbytes) {
    size_t size = CachingAllocator::round_size(nbytes);
    std::lock_guard<std::mutex> lock(mutex_);
    process_pending();
    auto& pool = free_[size];
    Block* b = nullptr;
    if (!pool.empty()) {
      b = pool.back();
      pool.pop_back();
      cached_bytes_ -= int64_t(size);
    } else {
      b = new Block{raw_alloc(size), size, {}, {}};
    }
    live_[reinterpret_cast<uintptr_t>(b->ptr)] = b;
    memory_on_alloc(DeviceType::cpu, size);
    return b->ptr;
  }

  void free(void* p) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = live_.find(reinterpret_cast<uintptr_t>(p));
    if (it == live_.end()) return;  // not ours: nothing to do (never happens through Storage)
    Block* b = it->second;
    live_.erase(it);
    memory_on_free(DeviceType::cpu, b->size);
    // Runs inside Storage's destructor: nothing may throw. If an event cannot be recorded (the
    // runtime shutting down at exit), wait for the device instead, or give up on reusing the block.
    for (int d : b->devices) {
      try {
        DeviceGuard g(d);
        cudaEvent_t ev;
        TOCHA_CUDA_CHECK("pinMemory", cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        if (cudaEventRecord(ev, stream(d)) != cudaSuccess) {
          cudaEventDestroy(ev);
          TOCHA_CUDA_CHECK("pinMemory", cudaStreamSynchronize(stream(d)));
        } else {
          b->events.push_back(ev);
        }
      } catch (...) {
        cudaGetLastError();
        b->devices.clear();
        for (cudaEvent_t ev : b->events) cudaEventDestroy(ev);
        delete b;  // leaks the pinned pages rather than risk reusing them mid-copy
        return;
      }
    }
    b->devices.clear();
    if (b->events.empty()) to_cache(b);
    else pending_.push_back(b);
  }

  // The live block holding p, or null (callers hold mutex_).
  Block* find(const void* p) {
    auto u = reinterpret_cast<uintptr_t>(p);
    auto it = live_.upper_bound(u);
    if (it == live_.begin()) return nullptr;
    --it;
    Block* b = it->second;
    return u < it->first + b->size ? b : nullptr;
  }

  bool contains(const void* p) {
    std::lock_guard<std::mutex> lock(mutex_);
    return find(p) != nullptr;
  }

  // p (inside a live block) is used by an async copy on device's stream.
  void record_use(const void* p, int device) {
    std::lock_guard<std::mutex> lock(mutex_);
    Block* b = find(p);
    if (!b) return;
    for (int d : b->devices)
      if (d == device) return;
    b->devices.push_back(device);
  }

  void empty_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    process_pending();
    for (auto& kv : free_) {
      for (Block* b : kv.second) {
        TOCHA_CUDA_CHECK("emptyCache", cudaFreeHost(b->ptr));
        delete b;
      }
      kv.second.clear();
    }
    cached_bytes_ = 0;
  }

 private:
  void to_cache(Block* b) {
    free_[b->size].push_back(b);
    cached_bytes_ += int64_t(b->size);
  }

  // Moves freed blocks whose copies completed into the cache.
  void process_pending() {
    for (size_t i = 0; i < pending_.size();) {
      Block* b = pending_[i];
      bool done = true;
      for (cudaEvent_t ev : b->events) {
        cudaError_t e = cudaEventQuery(ev);
        if (e == cudaErrorNotReady) {
          cudaGetLastError();
          done = false;
          break;
        }
        TOCHA_CUDA_CHECK("pinMemory", e);
      }
      if (!done) {
        ++i;
        continue;
      }
      for (cudaEvent_t ev : b->events) TOCHA_CUDA_CHECK("pinMemory", cudaEventDestroy(ev));
      b->events.clear();
      to_cache(b);
      pending_[i] = pending_.back();
      pending_.pop_back();
    }
  }

  // cudaHostAlloc; on failure the cache is emptied and the allocation retried once.
  void* raw_alloc(size_t size) {
    require_device("pinMemory", 0);
    void* p = nullptr;
    cudaError_t e = cudaHostAlloc(&p, size, cudaHostAllocPortable);
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      for (auto& kv : free_) {
        for (Block* b : kv.second) {
          TOCHA_CUDA_CHECK("pinMemory", cudaFreeHost(b->ptr));
          delete b;
        }
        kv.second.clear();
      }
      cached_bytes_ = 0;
      e = cudaHostAlloc(&p, size, cudaHostAllocPortable);
      if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        throw OutOfMemory(str_cat("[pinMemory] out of pinned host memory: requested ", size, " bytes"));
      }
    }
    TOCHA_CUDA_CHECK("pinMemory", e);
    return p;
  }

  std::mutex mutex_;
  std::map<uintptr_t, Block*> live_;  // ordered: interior pointers find their block
  std::unordered_map<size_t, std::vector<Block*>> free_;
  std::vector<Block*> pending_;
  int64_t cached_bytes_ = 0;
};

// Never destroyed: storages may be freed during static destruction.
PinnedCache& cache() {
  static PinnedCache* c = new PinnedCache;
  return *c;
}

void* pinned_alloc(size_t n) { return cache().allocate(n); }
void pinned_free(void* p) { cache().free(p); }
bool pinned_contains(const void* p) { return cache().contains(p); }
void pinned_empty() { cache().empty_cache(); }

void pinned_copy_async(void* dst, Device dst_dev, const void* src, Device src_dev, size_t n) {
  if (n == 0) return;
  const char* op = "copyAsync";
  if (src_dev.is_cpu()) {
    LaunchScope s(dst_dev.index);
    TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s.stream));
    cache().record_use(src, dst_dev.index);
  } else {
    LaunchScope s(src_dev.index);
    TOCHA_CUDA_CHECK(op, cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s.stream));
    cache().record_use(dst, src_dev.index);
  }
}

const bool registered = [] {
  register_pinned_memory(PinnedMemoryHooks{pinned_alloc, pinned_free, pinned_contains, pinned_copy_async, pinned_empty});
  return true;
}();

}  // namespace

bool host_is_pinned(const void* p) { return cache().contains(p); }

}  // namespace cuda
}  // namespace tocha
