// Memory accounting, the GC-pressure flag and the CPU allocator. See memory.h.
#include "core/memory.h"
#include <atomic>
#include <cstdlib>
#include "core/error.h"

namespace tocha {

namespace {
struct Counters {
  std::atomic<int64_t> live{0}, peak{0}, allocations{0}, gc_requests{0};
};
Counters g_counters[kNumDeviceTypes];
std::atomic<int64_t> g_since_gc{0};
// Live bytes right after the last collection: the baseline the next trigger is measured against
// (like Lua's own pause). Live bytes themselves include the garbage a collection would free, so
// comparing against them would never trigger.
std::atomic<int64_t> g_live_after_gc{0};
std::atomic<int64_t> g_min_threshold{int64_t(256) << 20};
std::atomic<int> g_gc_pending{0};
}  // namespace

void memory_on_alloc(DeviceType dev, size_t nbytes) {
  Counters& c = g_counters[int(dev)];
  int64_t live = c.live.fetch_add(int64_t(nbytes), std::memory_order_relaxed) + int64_t(nbytes);
  c.allocations.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = c.peak.load(std::memory_order_relaxed);
  while (live > peak && !c.peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {}
  int64_t since = g_since_gc.fetch_add(int64_t(nbytes), std::memory_order_relaxed) + int64_t(nbytes);
  int64_t threshold = g_min_threshold.load(std::memory_order_relaxed);
  int64_t baseline = g_live_after_gc.load(std::memory_order_relaxed);
  if (baseline > threshold) threshold = baseline;
  if (since > threshold && !g_gc_pending.load(std::memory_order_relaxed)) {
    g_gc_pending.store(1, std::memory_order_relaxed);
    c.gc_requests.fetch_add(1, std::memory_order_relaxed);
  }
}

void memory_on_free(DeviceType dev, size_t nbytes) {
  g_counters[int(dev)].live.fetch_sub(int64_t(nbytes), std::memory_order_relaxed);
}

MemoryStats memory_stats(DeviceType dev) {
  const Counters& c = g_counters[int(dev)];
  MemoryStats s;
  s.live_bytes = c.live.load();
  s.peak_bytes = c.peak.load();
  s.allocations = c.allocations.load();
  s.gc_requests = c.gc_requests.load();
  return s;
}

void memory_reset_peak(DeviceType dev) {
  Counters& c = g_counters[int(dev)];
  c.peak.store(c.live.load());
}

bool memory_gc_pending() { return g_gc_pending.load(std::memory_order_relaxed) != 0; }
void memory_gc_done() {
  int64_t live = 0;
  for (const Counters& c : g_counters) live += c.live.load(std::memory_order_relaxed);
  g_live_after_gc.store(live, std::memory_order_relaxed);
  g_since_gc.store(0, std::memory_order_relaxed);
  g_gc_pending.store(0, std::memory_order_relaxed);
}
void memory_set_gc_threshold(int64_t min_bytes) { g_min_threshold.store(min_bytes < 0 ? 0 : min_bytes); }
int64_t memory_gc_threshold() { return g_min_threshold.load(); }

// Note [Small allocations]: glibc's memalign bypasses its per-thread cache and costs several
// hundred instructions, which dominated tiny ops. Small blocks therefore come from plain malloc
// (cached per thread) and are aligned by hand, with the raw pointer stored just before the
// aligned address; large blocks use aligned_alloc. cpu_free tells them apart by size.
constexpr size_t kSmallBlock = 64 * 1024;

void* cpu_alloc(size_t nbytes) {
  if (nbytes == 0) nbytes = 1;  // keep a valid, unique pointer for empty storages
  void* p;
  if (nbytes <= kSmallBlock) {
    void* raw = std::malloc(nbytes + kCpuAlignment);
    p = raw;
    if (raw) {
      uintptr_t aligned = (reinterpret_cast<uintptr_t>(raw) + kCpuAlignment) & ~uintptr_t(kCpuAlignment - 1);
      p = reinterpret_cast<void*>(aligned);
      reinterpret_cast<void**>(p)[-1] = raw;
    }
  } else {
    size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    p = std::aligned_alloc(kCpuAlignment, rounded);
  }
  if (!p)
    throw OutOfMemory(str_cat("[alloc] out of memory: could not allocate ", nbytes, " bytes on cpu (",
                              memory_stats(DeviceType::cpu).live_bytes, " bytes live)"));
  memory_on_alloc(DeviceType::cpu, nbytes);
  return p;
}

void cpu_free(void* p, size_t nbytes) {
  if (!p) return;
  if (nbytes == 0) nbytes = 1;
  if (nbytes <= kSmallBlock) std::free(reinterpret_cast<void**>(p)[-1]);
  else std::free(p);
  memory_on_free(DeviceType::cpu, nbytes);
}

}  // namespace tocha
