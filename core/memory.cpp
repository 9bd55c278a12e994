// Memory accounting, the GC-pressure flag and the CPU allocator. See memory.h.
#include "core/memory.h"
#include <atomic>
#include <cstdlib>
#include <malloc.h>
#include "core/error.h"

namespace tocha {

namespace {
struct Counters {
  std::atomic<int64_t> live{0}, peak{0}, allocations{0}, gc_requests{0};
};
Counters g_counters[kNumDeviceTypes];
// Note [Pressure is growth]: the flag is raised when live tensor bytes have grown past the
// threshold since the last collection (g_since_gc: allocations minus frees since then, counted from
// its lowest point), not when that many bytes were allocated.
// Memory freed without Lua's help (cuDNN, cuBLAS and cuSOLVER workspaces, a kernel's scratch, the
// tensors a finished backward saved) is no garbage Lua could collect: counted as allocations, the
// workspaces of a batch-1024 CNN step on the GPU (hundreds of MB for cuDNN's FFT algorithms) asked
// for a full collection every second step, ~4 ms of host time each with the GPU idle (bench/README.md,
// GPU session of 2026-11-28). Dead tensors held by Lua handles stay live until collected, so they
// still raise the flag as before. The growth is judged when Lua polls (memory_gc_pending).
std::atomic<int64_t> g_since_gc{0};
// Live bytes right after the last collection: the threshold is at least that (like Lua's own
// pause, a collection when live bytes have doubled).
std::atomic<int64_t> g_live_after_gc{0};
std::atomic<int64_t> g_min_threshold{int64_t(256) << 20};
std::atomic<int> g_gc_pending{0};
std::atomic<int> g_growth_device{0};  // the device whose allocation last passed the threshold

int64_t gc_threshold_now() {
  int64_t threshold = g_min_threshold.load(std::memory_order_relaxed);
  int64_t baseline = g_live_after_gc.load(std::memory_order_relaxed);
  return baseline > threshold ? baseline : threshold;
}
}  // namespace

namespace {
// Note [Batched accounting]: CPU allocations from one thread are counted in thread-local
// deltas and published to the shared atomics every kBatchBytes (Torch7 batched its heap
// tracking the same way), so a tiny tensor costs no atomic operation. memory_stats() publishes
// the calling thread's deltas first, so single-threaded numbers are exact.
constexpr int64_t kBatchBytes = 256 << 10;

void publish(DeviceType dev, int64_t live_delta, int64_t count) {
  Counters& c = g_counters[int(dev)];
  int64_t live = c.live.fetch_add(live_delta, std::memory_order_relaxed) + live_delta;
  if (count) c.allocations.fetch_add(count, std::memory_order_relaxed);
  int64_t peak = c.peak.load(std::memory_order_relaxed);
  while (live > peak && !c.peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {}
  if (!live_delta) return;
  int64_t since = g_since_gc.fetch_add(live_delta, std::memory_order_relaxed) + live_delta;
  if (since < 0) {
    // Frees of memory older than the last collection (a model dropped and freed by incremental
    // steps): the growth counts from the lowest point, or 10 GB freed would let 10 GB more pile up
    // before the next collection. (A racing update only shifts the count by one block.)
    g_since_gc.compare_exchange_strong(since, 0, std::memory_order_relaxed);
    return;
  }
  if (live_delta > 0 && since > gc_threshold_now()) g_growth_device.store(int(dev), std::memory_order_relaxed);
}

struct LocalDeltas {
  int64_t live = 0, allocated = 0, count = 0, since_step = 0;  // (allocated: only to publish often)
  void flush() {
    if (live || allocated || count) publish(DeviceType::cpu, live, count);
    live = allocated = count = 0;
  }
  ~LocalDeltas() { flush(); }
};
// Note [Hot thread-locals] (core/autograd/grad_mode.cpp).
__attribute__((tls_model("initial-exec"))) thread_local LocalDeltas t_cpu;
}  // namespace

// Note [CPU-tensor GC steps]: a loop of mid-size CPU ops (100x100 adds) leaves one dead 40 KB
// result per op, freed only when Lua's collector, paced by its own small heap, finishes a cycle;
// each new result was then written to memory that had left the caches long before: 5.0-5.3 us per
// add where PyTorch, which frees at once, takes 1.5 us (on a VM whose cache misses are dear).
// Every kCpuBytesPerGcStep of CPU tensor blocks of kGcStepMinBlock bytes or more asks Lua for one
// basic step (collectgarbage('step', 0)): 2.9 us. Tiny tensors keep LuaJIT's pacing (they live in
// compact blocks, Note [Compact block cache]); a step of size 8 at 4 MiB, the graph steps' size,
// made the batch-1 autograd MLP 8% slower, a basic step every 1 MiB changed no training benchmark
// beyond noise (bench/README.md, ninth session). The MiB are now counted, and Lua runs a step of
// size 2 per MiB owed (lua/torch/lib.lua): a 4 MiB result (kron of two 32x32 matrices) owed
// one basic step like a 1 MiB one, so a loop of them cycled through 256 MiB of dead results,
// each written cold: 524 us per product where the same product into one result took 145
// (PyTorch's kron: 162); now 264-290 us. add100x100 went from 4.06 to 3.19 us; the MLP, LSTM and
// autograd benchmarks did not move beyond their noise (bench/sessions2.md, fourteenth session).
constexpr int64_t kCpuBytesPerGcStep = int64_t(1) << 20;
constexpr size_t kGcStepMinBlock = 4096;
constexpr int kMaxBasicStepsOwed = 16;
// The steps Lua owes (memory_gc_step_pending): 0 none, 1 one of size 8, k >= 2: k - 1 basic ones.
std::atomic<int> g_gc_step_pending{0};

void owe_basic_steps(int steps) {
  int cur = g_gc_step_pending.load(std::memory_order_relaxed), next;
  do {
    if (cur == 1) return;  // a pending step of size 8 is not downgraded
    next = (cur ? cur : 1) + steps;
    if (next > kMaxBasicStepsOwed + 1) next = kMaxBasicStepsOwed + 1;
  } while (!g_gc_step_pending.compare_exchange_weak(cur, next, std::memory_order_relaxed));
}

void memory_on_alloc(DeviceType dev, size_t nbytes) {
  if (dev != DeviceType::cpu) {
    publish(dev, int64_t(nbytes), 1);
    return;
  }
  LocalDeltas& d = t_cpu;
  d.live += int64_t(nbytes);
  d.allocated += int64_t(nbytes);
  d.count += 1;
  if (nbytes >= kGcStepMinBlock && (d.since_step += int64_t(nbytes)) >= kCpuBytesPerGcStep) {
    int64_t mib = d.since_step / kCpuBytesPerGcStep;
    d.since_step -= mib * kCpuBytesPerGcStep;
    owe_basic_steps(int(mib < kMaxBasicStepsOwed ? mib : kMaxBasicStepsOwed));
  }
  if (d.allocated >= kBatchBytes || d.live >= kBatchBytes) d.flush();
}

void memory_on_free(DeviceType dev, size_t nbytes) {
  if (dev != DeviceType::cpu) {
    publish(dev, -int64_t(nbytes), 0);
    return;
  }
  LocalDeltas& d = t_cpu;
  d.live -= int64_t(nbytes);
  if (d.live <= -kBatchBytes) d.flush();
}

MemoryStats memory_stats(DeviceType dev) {
  if (dev == DeviceType::cpu) t_cpu.flush();
  const Counters& c = g_counters[int(dev)];
  MemoryStats s;
  s.live_bytes = c.live.load();
  s.peak_bytes = c.peak.load();
  s.allocations = c.allocations.load();
  s.gc_requests = c.gc_requests.load();
  return s;
}

void memory_reset_peak(DeviceType dev) {
  if (dev == DeviceType::cpu) t_cpu.flush();
  Counters& c = g_counters[int(dev)];
  c.peak.store(c.live.load());
}

// The growth is judged when Lua polls (after each op), not at each allocation: an op whose scratch
// passed the threshold for a moment and was freed before it returned asks for nothing.
bool memory_gc_pending() {
  if (g_gc_pending.load(std::memory_order_relaxed)) return true;
  if (g_since_gc.load(std::memory_order_relaxed) <= gc_threshold_now()) return false;
  if (!g_gc_pending.exchange(1, std::memory_order_relaxed))
    g_counters[g_growth_device.load(std::memory_order_relaxed)].gc_requests.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// Note [Graph-driven GC steps]: a dead autograd graph (nodes, saved tensors, gradients) is freed
// only when Lua collects the handles that hold it, and Lua paces its collector by its own heap,
// where a graph weighs a few small handles. A loop of small forward+backward steps therefore
// left thousands of dead graphs to be collected at once and built each new graph in memory that
// had left the caches. make_node asks for an incremental step every kNodesPerGcStep nodes; the
// Lua side (lib.wrap) runs collectgarbage('step', 8), so the collector also advances with graph
// churn (tiny forward+backward: ~5.8 -> ~3.5 us) while plain tensor ops and Lua code keep
// LuaJIT's own pacing (a lower pause for everything made a table-heavy loop 2.4x slower).
// Note [Device-tensor GC steps]: a loop of tiny CUDA ops leaves a dead handle per op whose
// tensor header, caching-allocator block and live-map slot are released only when Lua's
// collector finishes a cycle; paced by Lua's own small heap, a cycle spans tens of thousands of
// ops, so each burst of frees (and the allocations that reuse them) touches memory that has left
// the caches. new_block_tensor asks for an incremental step every 4096 device tensors: on the
// fake GPU stack the host time of `t1 + t2` went from 573-611 to 441-454 ns (2048 and 8192 were
// slower than 4096). CPU tensors keep LuaJIT's pacing: there the same steps changed nothing
// measurable (tiny tensors live in one compact block, Note [Compact block cache]).
void memory_request_gc_step() { g_gc_step_pending.store(1, std::memory_order_relaxed); }
int memory_gc_step_pending() { return g_gc_step_pending.load(std::memory_order_relaxed); }
void memory_gc_step_done() { g_gc_step_pending.store(0, std::memory_order_relaxed); }
void memory_gc_done() {
  t_cpu.flush();
  int64_t live = 0;
  for (const Counters& c : g_counters) live += c.live.load(std::memory_order_relaxed);
  g_live_after_gc.store(live, std::memory_order_relaxed);
  g_since_gc.store(0, std::memory_order_relaxed);
  g_gc_pending.store(0, std::memory_order_relaxed);
  g_gc_step_pending.store(0, std::memory_order_relaxed);
}
void memory_request_gc(DeviceType dev) {
  if (!g_gc_pending.exchange(1, std::memory_order_relaxed))
    g_counters[int(dev)].gc_requests.fetch_add(1, std::memory_order_relaxed);
}
void memory_set_gc_threshold(int64_t min_bytes) { g_min_threshold.store(min_bytes < 0 ? 0 : min_bytes); }
int64_t memory_gc_threshold() { return g_min_threshold.load(); }

// Note [Small allocations]: glibc's memalign bypasses its per-thread cache and costs several
// hundred instructions, which dominated tiny ops. Blocks therefore come from plain malloc and are
// aligned by hand, with the raw pointer stored just before the aligned address.
// Note [Large blocks from plain malloc]: large blocks came from aligned_alloc, whose chunks are
// the request plus up to an alignment, trimmed to fit: a freed chunk of a block was then too small
// for the next request of the same size, so a loop of 8 MB results grew the heap to ~900 MB where
// 256 MB were ever live, and half of its result pages were page faults (a fresh page each): 216k
// faults in 200 `index` calls. malloc(n + alignment) makes equal requests take equal chunks, so
// the blocks Lua's collector frees are the ones reused.

// Note [Heap trimming]: tensors die in batches (when Lua collects), so glibc's default of giving
// the top of the heap back to the OS after 128 KiB are free made every batch of new tensors
// page-fault the same memory in again. Keep freed memory in the process instead.
static void tune_malloc() {
  static bool done = [] {
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    mallopt(M_TOP_PAD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    return true;
  }();
  (void)done;
}

namespace {
// 64-byte aligned (page-aligned from 1 MiB) host memory, not counted. Throws OutOfMemory.
void* raw_alloc(size_t nbytes) {
  tune_malloc();
  // Note [Page-aligned large blocks]: blocks of 1 MiB and more start on a page. MPI's shared-
  // memory transport copied a 64-byte-aligned 1 MiB buffer about 7% slower (median of 60 single
  // all-reduces, bench/distributed.lua's pattern); the padding is at most 0.4%.
  const size_t align = nbytes >= (size_t(1) << 20) ? 4096 : kCpuAlignment;
  void* p = nullptr;
  void* raw = nbytes <= SIZE_MAX - align ? std::malloc(nbytes + align) : nullptr;
  if (raw) {  // malloc's pointers are 16-aligned: room for raw
    uintptr_t aligned = (reinterpret_cast<uintptr_t>(raw) + align) & ~uintptr_t(align - 1);
    p = reinterpret_cast<void*>(aligned);
    reinterpret_cast<void**>(p)[-1] = raw;
  }
  if (!p)
    throw OutOfMemory(str_cat("[alloc] out of memory: could not allocate ", nbytes, " bytes on cpu (",
                              memory_stats(DeviceType::cpu).live_bytes, " bytes live)"));
  return p;
}
// Frees what raw_alloc returned (every block keeps malloc's own pointer just before its own).
void raw_free(void* p, size_t) { std::free(reinterpret_cast<void**>(p)[-1]); }
}  // namespace

void* cpu_alloc(size_t nbytes) {
  if (nbytes == 0) nbytes = 1;  // keep a valid, unique pointer for empty storages
  void* p = raw_alloc(nbytes);
  memory_on_alloc(DeviceType::cpu, nbytes);
  return p;
}

namespace {
// Note [Compact block cache]: freed compact blocks (Note [Compact tensors]) wait in a per-thread
// list per size class and are handed out again without malloc, up to 8 MiB in all. The budget is
// in bytes, not blocks per class: Lua's collector frees the dead tensors of a loop in bursts of
// thousands (about 7000 tiny CUDA tensors in a `t1 + t2` loop), and with 256 blocks per class
// most of a burst went back to malloc only to be allocated again (CUDA `t1 + t2`: 0.86-1.12 us
// of host time -> 0.51-0.98 us with the fake GPU stack, bench/cuda_host.lua).
constexpr int kBlockClasses = 48;  // blocks up to 48 * 64 bytes
constexpr size_t kCachedBytes = size_t(8) << 20;
struct BlockCache {
  void* head[kBlockClasses] = {};
  size_t bytes = 0;  // held by all classes
  ~BlockCache() {
    for (int c = 0; c < kBlockClasses; ++c)
      while (head[c]) {
        void* p = head[c];
        head[c] = *static_cast<void**>(p);
        raw_free(p, size_t(c) * 64);
      }
  }
};
// The cache itself lives on the heap; only the pointer is an initial-exec thread-local.
struct BlockCacheOwner {
  BlockCache* cache = nullptr;
  ~BlockCacheOwner() { delete cache; }
};
__attribute__((tls_model("initial-exec"))) thread_local BlockCacheOwner t_blocks;
inline BlockCache& block_cache() {
  BlockCacheOwner& o = t_blocks;
  if (!o.cache) o.cache = new BlockCache();
  return *o.cache;
}
}  // namespace

void* cpu_alloc_block(size_t nbytes, bool counted) {
  size_t cls = (nbytes + 63) / 64;
  nbytes = cls * 64;
  BlockCache& cache = block_cache();
  void* p;
  if (cls < size_t(kBlockClasses) && cache.head[cls]) {
    p = cache.head[cls];
    cache.head[cls] = *static_cast<void**>(p);
    cache.bytes -= nbytes;
  } else {
    p = raw_alloc(nbytes);
  }
  if (counted) memory_on_alloc(DeviceType::cpu, nbytes);
  return p;
}

void cpu_free_block(void* p, size_t nbytes, bool counted) {
  size_t cls = (nbytes + 63) / 64;
  nbytes = cls * 64;
  if (counted) memory_on_free(DeviceType::cpu, nbytes);
  BlockCache& cache = block_cache();
  if (cls < size_t(kBlockClasses) && cache.bytes + nbytes <= kCachedBytes) {
    *static_cast<void**>(p) = cache.head[cls];
    cache.head[cls] = p;
    cache.bytes += nbytes;
    return;
  }
  raw_free(p, nbytes);
}

void cpu_free(void* p, size_t nbytes) {
  if (!p) return;
  if (nbytes == 0) nbytes = 1;
  raw_free(p, nbytes);
  memory_on_free(DeviceType::cpu, nbytes);
}

}  // namespace tocha
