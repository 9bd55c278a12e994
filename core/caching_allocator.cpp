// The caching allocator: size classes, per-(device, stream) pools, cross-stream frees through
// events, and the out-of-memory path. See caching_allocator.h.
#include "core/caching_allocator.h"
#include <algorithm>
#include <cstdio>
#include "core/error.h"

namespace tocha {

namespace {
constexpr size_t kMinBlock = 512;
constexpr size_t kMaxStep = size_t(64) << 20;

std::string bytes_str(int64_t n) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = 0;
  while (v >= 1024 && u < 4) { v /= 1024; ++u; }
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(n));
  else std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}
}  // namespace

size_t CachingAllocator::round_size(size_t n) {
  if (n <= kMinBlock) return kMinBlock;
  // The power of two at or below n, and a step of 1/8 of it (capped).
  int lg = 63 - __builtin_clzll(static_cast<unsigned long long>(n));
  size_t step = (size_t(1) << lg) / 8;
  if (step < kMinBlock) step = kMinBlock;
  if (step > kMaxStep) step = kMaxStep;
  TOCHA_CHECK(n <= SIZE_MAX - step, "alloc", "cannot allocate ", n, " bytes");
  return (n + step - 1) / step * step;
}

CachingAllocator::CachingAllocator(RawDeviceMemory* raw, const char* device_type_name)
    : raw_(raw), type_name_(device_type_name) {}

CachingAllocator::~CachingAllocator() {
  // Live blocks belong to storages that may outlive us at exit: leave them. Cached ones go back.
  try {
    empty_cache(-1);
  } catch (...) {
  }
  live_.for_each([](const void*, Block* b) { delete b; });
  for (Block* b : pending_) delete b;
}

CacheStats& CachingAllocator::stats_for(int device) {
  if (device >= int(stats_.size())) stats_.resize(size_t(device) + 1);
  return stats_[size_t(device)];
}

CacheStats CachingAllocator::stats(int device) const {
  std::lock_guard<std::mutex> g(mutex_);
  if (device < 0 || device >= int(stats_.size())) return CacheStats{};
  return stats_[size_t(device)];
}

void CachingAllocator::reset_peaks(int device) {
  std::lock_guard<std::mutex> g(mutex_);
  CacheStats& s = stats_for(device);
  s.peak_allocated_bytes = s.allocated_bytes;
  s.peak_reserved_bytes = s.reserved_bytes;
}

size_t CachingAllocator::block_size(const void* p) const {
  std::lock_guard<std::mutex> g(mutex_);
  const Block* b = live_.find(p);
  return b ? b->size : 0;
}

// Moves freed blocks whose other-stream events have all completed into their pools.
void CachingAllocator::process_pending() {
  for (size_t i = 0; i < pending_.size();) {
    Block* b = pending_[i];
    bool done = true;
    for (void* e : b->events)
      if (!raw_->event_done(e)) { done = false; break; }
    if (!done) { ++i; continue; }
    for (void* e : b->events) raw_->destroy_event(e);
    b->events.clear();
    pools_[PoolKey{b->device, b->stream, b->size}].push_back(b);
    stats_for(b->device).cached_bytes += int64_t(b->size);
    pending_[i] = pending_.back();
    pending_.pop_back();
  }
}

void CachingAllocator::release_cached(int device) {
  std::vector<int> synced;
  for (auto it = pools_.begin(); it != pools_.end();) {
    if (device >= 0 && it->first.device != device) { ++it; continue; }
    int d = it->first.device;
    if (!it->second.empty() && std::find(synced.begin(), synced.end(), d) == synced.end()) {
      // Work queued before the frees may still read these blocks.
      raw_->synchronize(d);
      synced.push_back(d);
    }
    for (Block* b : it->second) {
      raw_->free(b->device, b->ptr);
      CacheStats& s = stats_for(b->device);
      s.cached_bytes -= int64_t(b->size);
      s.reserved_bytes -= int64_t(b->size);
      s.device_frees += 1;
      delete b;
    }
    it = pools_.erase(it);
  }
}

void* CachingAllocator::raw_alloc(int device, size_t size) {
  void* p = raw_->malloc(device, size);
  if (p) {
    CacheStats& s = stats_for(device);
    s.device_allocs += 1;
    s.reserved_bytes += int64_t(size);
    s.peak_reserved_bytes = std::max(s.peak_reserved_bytes, s.reserved_bytes);
  }
  return p;
}

void CachingAllocator::throw_oom(int device, size_t requested, size_t rounded) {
  CacheStats& s = stats_for(device);
  s.ooms += 1;
  size_t cap = raw_->capacity(device);
  throw OutOfMemory(str_cat("[alloc] out of memory on ", type_name_, ":", device, ": tried to allocate ",
                            bytes_str(int64_t(requested)), " (block of ", bytes_str(int64_t(rounded)), "); ",
                            bytes_str(s.allocated_bytes), " in use by tensors, ", bytes_str(s.cached_bytes),
                            " cached", cap ? str_cat(", device capacity ", bytes_str(int64_t(cap))) : std::string(),
                            ". Free tensors (t:free(), collectgarbage()) or use smaller batches"));
}

void* CachingAllocator::allocate(int device, size_t nbytes, void* stream) {
  TOCHA_CHECK(device >= 0, "alloc", "invalid device index ", device);
  const size_t size = round_size(nbytes);
  {
    std::lock_guard<std::mutex> g(mutex_);
    process_pending();
    CacheStats& s = stats_for(device);
    auto it = pools_.find(PoolKey{device, stream, size});
    Block* b = nullptr;
    if (it != pools_.end() && !it->second.empty()) {
      b = it->second.back();
      it->second.pop_back();
      s.cached_bytes -= int64_t(size);
      s.cache_hits += 1;
    } else {
      size_t cap = raw_->capacity(device);
      bool pressure = gc_fraction_ > 0 && cap &&
                 double(s.reserved_bytes + int64_t(size)) > gc_fraction_ * double(cap);
      if (!pressure) {
        void* p = raw_alloc(device, size);
        if (p) b = new Block{p, size, 0, device, stream, {}, {}};
      }
    }
    if (b) {
      b->requested = nbytes;
      live_.set(b->ptr, b);
      s.allocated_bytes += int64_t(size);
      s.requested_bytes += int64_t(nbytes);
      s.peak_allocated_bytes = std::max(s.peak_allocated_bytes, s.allocated_bytes);
      return b->ptr;
    }
  }
  // Out of memory, or close to it: let the owner reclaim (outside the lock: the hook may free),
  // then drop the cache and retry once.
  if (reclaim_hook_) reclaim_hook_(device);
  std::lock_guard<std::mutex> g(mutex_);
  CacheStats& s = stats_for(device);
  void* p = raw_alloc(device, size);
  if (!p) {
    s.oom_retries += 1;
    process_pending();
    release_cached(device);
    p = raw_alloc(device, size);
  }
  if (!p) throw_oom(device, nbytes, size);
  Block* b = new Block{p, size, nbytes, device, stream, {}, {}};
  live_.set(p, b);
  s.allocated_bytes += int64_t(size);
  s.requested_bytes += int64_t(nbytes);
  s.peak_allocated_bytes = std::max(s.peak_allocated_bytes, s.allocated_bytes);
  return p;
}

void CachingAllocator::free(void* p) {
  if (!p) return;
  std::lock_guard<std::mutex> g(mutex_);
  Block* b = live_.take(p);
  TOCHA_ASSERT(b);
  CacheStats& s = stats_for(b->device);
  s.allocated_bytes -= int64_t(b->size);
  s.requested_bytes -= int64_t(b->requested);
  b->requested = 0;
  if (!b->other_streams.empty()) {
    for (void* st : b->other_streams) b->events.push_back(raw_->record_event(b->device, st));
    b->other_streams.clear();
    pending_.push_back(b);
    return;
  }
  pools_[PoolKey{b->device, b->stream, b->size}].push_back(b);
  s.cached_bytes += int64_t(b->size);
}

void CachingAllocator::record_stream(void* p, void* stream) {
  std::lock_guard<std::mutex> g(mutex_);
  Block* b = live_.find(p);
  TOCHA_ASSERT(b);
  if (stream == b->stream) return;
  if (std::find(b->other_streams.begin(), b->other_streams.end(), stream) == b->other_streams.end())
    b->other_streams.push_back(stream);
}

void CachingAllocator::empty_cache(int device) {
  std::lock_guard<std::mutex> g(mutex_);
  process_pending();
  release_cached(device);
}

}  // namespace tocha
