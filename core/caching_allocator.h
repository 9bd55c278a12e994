// CachingAllocator: the device-agnostic caching allocator behind CUDA storages (DESIGN.md
// decision 9). Plain C++ over a RawDeviceMemory interface, so its logic (size classes, per-stream
// reuse, OOM retry) is unit-tested on machines without a GPU through a fake backend.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include "core/pointer_map.h"
#include <vector>

namespace tocha {

// What the allocator needs from a device runtime (kernels/cuda/allocator.cpp implements it with
// cudaMalloc; tests with a fake). Streams and events are opaque handles.
class RawDeviceMemory {
 public:
  virtual ~RawDeviceMemory() = default;
  // nbytes of device memory, or nullptr when the device is out of memory (other errors throw).
  virtual void* malloc(int device, size_t nbytes) = 0;
  virtual void free(int device, void* p) = 0;
  // Waits for all work queued on the device (cached blocks may still be in use by kernels).
  virtual void synchronize(int device) = 0;
  // An event recorded on stream now; whether it has completed; releasing it.
  virtual void* record_event(int device, void* stream) = 0;
  virtual bool event_done(void* event) = 0;
  virtual void destroy_event(void* event) = 0;
  // Total memory of the device in bytes (0 if unknown): the GC-pressure heuristic uses it.
  virtual size_t capacity(int device) = 0;
};

// Per-device counters (bytes are size-class bytes unless said otherwise).
struct CacheStats {
  int64_t allocated_bytes = 0;    // held by live blocks (requested sizes rounded to classes)
  int64_t requested_bytes = 0;    // the sizes callers asked for, of live blocks
  int64_t reserved_bytes = 0;     // obtained from the device: live + cached + pending
  int64_t cached_bytes = 0;       // free blocks ready for reuse
  int64_t peak_allocated_bytes = 0;
  int64_t peak_reserved_bytes = 0;
  int64_t device_allocs = 0;      // calls to RawDeviceMemory::malloc that succeeded
  int64_t device_frees = 0;
  int64_t cache_hits = 0;         // allocations served from the cache
  int64_t oom_retries = 0;        // times the cache was emptied to retry a failed allocation
  int64_t ooms = 0;               // allocations that failed even after the retry
};

class CachingAllocator {
 public:
  // raw outlives the allocator. device_type_name names the device in errors ("cuda").
  explicit CachingAllocator(RawDeviceMemory* raw, const char* device_type_name = "cuda");
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // Note [Size classes]: requests round up to a class so that freed blocks fit later requests of
  // similar size: at least 512 bytes, then 8 classes per power of two (at most 12.5% waste),
  // with the step capped at 64 MiB for huge blocks. A cached block is only reused for its own
  // class, so a small request never pins a huge block.
  static size_t round_size(size_t nbytes);

  // A block of at least nbytes for use on `stream` of `device`. On out-of-memory: the reclaim
  // hook runs (it raises the Lua GC flag), every cached block of the device is released, and the
  // allocation is retried once; then OutOfMemory says how much was requested, in use and cached.
  void* allocate(int device, size_t nbytes, void* stream);
  // Returns a block to the cache of the stream it was allocated on (after every other stream
  // that used it, see record_stream, has passed this point).
  void free(void* p);
  // Marks that `stream` (not the allocation stream) uses block p: its reuse waits for that
  // stream's work queued before the block is freed.
  void record_stream(void* p, void* stream);
  // Releases every cached block (all devices when device < 0) back to the device.
  void empty_cache(int device = -1);

  CacheStats stats(int device) const;
  void reset_peaks(int device);
  // Size of the block holding p (its class), 0 if p is not a live block.
  size_t block_size(const void* p) const;

  // Note [Device memory pressure]: dead Lua handles are what holds most device memory, and only
  // Lua's GC can free them; C++ must never call into Lua from inside an FFI call. So the hook
  // (the CUDA backend installs memory_request_gc) raises the GC flag that every Lua constructor
  // polls. It runs (outside the allocator's lock) before the retry of a failed allocation, and
  // whenever a new device allocation would take reserved memory past gc_fraction of capacity;
  // the Lua side also collects and empties the cache when an error has code TOCHA_EOOM.
  using Hook = void (*)(int device);
  void set_reclaim_hook(Hook h) { reclaim_hook_ = h; }
  // When a new device allocation takes reserved memory past this fraction of the capacity, the
  // reclaim hook runs first so that Lua collects dead tensors early (default 0.8; 0 disables).
  void set_gc_fraction(double f) { gc_fraction_ = f; }

 private:
  struct Block {
    void* ptr;
    size_t size;       // class size
    size_t requested;  // caller's size while live
    int device;
    void* stream;
    std::vector<void*> other_streams;  // record_stream while live
    std::vector<void*> events;         // pending after free
  };
  struct PoolKey {
    int device;
    void* stream;
    size_t size;
    bool operator==(const PoolKey& o) const { return device == o.device && stream == o.stream && size == o.size; }
  };
  struct PoolKeyHash {
    size_t operator()(const PoolKey& k) const {
      return std::hash<size_t>()(k.size) ^ (std::hash<void*>()(k.stream) << 1) ^ size_t(k.device) * 0x9e3779b97f4a7c15ull;
    }
  };

  CacheStats& stats_for(int device);
  void process_pending();
  void release_cached(int device);  // caller holds mutex_
  void* raw_alloc(int device, size_t size);
  [[noreturn]] void throw_oom(int device, size_t requested, size_t rounded);

  RawDeviceMemory* raw_;
  std::string type_name_;
  mutable std::mutex mutex_;
  std::unordered_map<PoolKey, std::vector<Block*>, PoolKeyHash> pools_;
  PointerMap<Block> live_;  // Note [Flat live-block map]
  std::vector<Block*> pending_;  // freed, waiting for events of other streams
  std::vector<CacheStats> stats_;
  Hook reclaim_hook_ = nullptr;
  double gc_fraction_ = 0.8;
};

}  // namespace tocha
