// The caching allocator's bookkeeping against a fake device (runs on every machine): size
// classes, reuse per stream, cross-stream frees through events, counters, the GC hook and the
// out-of-memory path (hook, empty cache, retry once, then an error with the numbers). Also the
// device runtime as seen without a GPU, and the device-mixing checks of the op front-ends.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <string>
#include "core/caching_allocator.h"
#include "core/device_runtime.h"
#include "core/error.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/philox.h"
#include "core/storage.h"

using namespace tocha;

namespace {

// A device of `capacity` bytes whose memory is host memory; events complete when told to.
class FakeDevice : public RawDeviceMemory {
 public:
  explicit FakeDevice(size_t capacity) : capacity_(capacity) {}
  ~FakeDevice() override {
    for (auto& kv : live_) std::free(kv.first);
  }
  void* malloc(int, size_t n) override {
    if (used_ + n > capacity_) return nullptr;
    void* p = std::malloc(n);
    live_[p] = n;
    used_ += n;
    ++mallocs;
    return p;
  }
  void free(int, void* p) override {
    used_ -= live_.at(p);
    live_.erase(p);
    std::free(p);
    ++frees;
  }
  void synchronize(int) override { ++syncs; }
  void* record_event(int, void*) override {
    events_[++next_event_] = false;
    return reinterpret_cast<void*>(next_event_);
  }
  bool event_done(void* e) override { return events_.at(reinterpret_cast<intptr_t>(e)); }
  void destroy_event(void* e) override { events_.erase(reinterpret_cast<intptr_t>(e)); }
  size_t capacity(int) override { return capacity_; }

  void complete_events() {
    for (auto& kv : events_) kv.second = true;
  }
  size_t used() const { return used_; }
  size_t pending_events() const { return events_.size(); }
  int mallocs = 0, frees = 0, syncs = 0;

 private:
  size_t capacity_;
  size_t used_ = 0;
  std::map<void*, size_t> live_;
  std::map<intptr_t, bool> events_;
  intptr_t next_event_ = 0;
};

void* const kStreamA = reinterpret_cast<void*>(0x10);
void* const kStreamB = reinterpret_cast<void*>(0x20);

int g_hook_calls = 0;
void count_hook(int) { ++g_hook_calls; }

}  // namespace

TEST_CASE("caching allocator: size classes", "[alloc]") {
  CHECK(CachingAllocator::round_size(0) == 512);
  CHECK(CachingAllocator::round_size(1) == 512);
  CHECK(CachingAllocator::round_size(512) == 512);
  CHECK(CachingAllocator::round_size(513) == 1024);
  // 8 classes per power of two above 4 KiB: 4096 + 512 steps.
  CHECK(CachingAllocator::round_size(4097) == 4608);
  CHECK(CachingAllocator::round_size(size_t(1) << 20) == size_t(1) << 20);
  CHECK(CachingAllocator::round_size((size_t(1) << 20) + 1) == (size_t(1) << 20) + (size_t(1) << 17));
  // Waste stays under 12.5% and classes are monotone.
  size_t prev = 0;
  for (size_t n = 1; n < (size_t(1) << 24); n = n * 3 / 2 + 7) {
    size_t r = CachingAllocator::round_size(n);
    CHECK(r >= n);
    CHECK(r >= prev);
    if (n > 4096) CHECK(double(r - n) <= 0.125 * double(n));
    prev = r;
  }
  // Huge blocks step by at most 64 MiB.
  size_t big = (size_t(1) << 34) + 1;
  CHECK(CachingAllocator::round_size(big) - big < (size_t(64) << 20));
}

TEST_CASE("caching allocator: reuse within a stream and counters", "[alloc]") {
  FakeDevice dev(size_t(1) << 30);
  CachingAllocator a(&dev);
  a.set_gc_fraction(0);
  void* p = a.allocate(0, 1000, kStreamA);
  CacheStats s = a.stats(0);
  CHECK(s.allocated_bytes == 1024);
  CHECK(s.requested_bytes == 1000);
  CHECK(s.reserved_bytes == 1024);
  CHECK(s.device_allocs == 1);
  CHECK(a.block_size(p) == 1024);
  a.free(p);
  s = a.stats(0);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.requested_bytes == 0);
  CHECK(s.cached_bytes == 1024);
  CHECK(s.reserved_bytes == 1024);
  CHECK(a.block_size(p) == 0);
  // Same class, same stream: the cached block comes back without a device allocation.
  void* q = a.allocate(0, 900, kStreamA);
  CHECK(q == p);
  CHECK(a.stats(0).cache_hits == 1);
  CHECK(dev.mallocs == 1);
  // Another class is a new block; another stream too (its queued work is not ordered with ours).
  void* r = a.allocate(0, 5000, kStreamA);
  a.free(q);
  void* t = a.allocate(0, 1000, kStreamB);
  CHECK(t != p);
  CHECK(dev.mallocs == 3);
  CHECK(a.stats(0).peak_allocated_bytes == 1024 + 5120);
  a.free(r);
  a.free(t);
  a.empty_cache();
  s = a.stats(0);
  CHECK(s.cached_bytes == 0);
  CHECK(s.reserved_bytes == 0);
  CHECK(s.device_frees == 3);
  CHECK(dev.used() == 0);
  CHECK(dev.syncs >= 1);  // emptying waits for queued work that may still use the blocks
}

TEST_CASE("caching allocator: devices are counted separately", "[alloc]") {
  FakeDevice dev(size_t(1) << 30);
  CachingAllocator a(&dev);
  a.set_gc_fraction(0);
  void* p0 = a.allocate(0, 4096, kStreamA);
  void* p1 = a.allocate(1, 8192, kStreamA);
  CHECK(a.stats(0).allocated_bytes == 4096);
  CHECK(a.stats(1).allocated_bytes == 8192);
  a.free(p0);
  a.free(p1);
  a.empty_cache(1);
  CHECK(a.stats(0).cached_bytes == 4096);
  CHECK(a.stats(1).cached_bytes == 0);
  CHECK(a.stats(7).allocated_bytes == 0);  // a device never used
}

TEST_CASE("caching allocator: a block used by another stream waits for its event", "[alloc]") {
  FakeDevice dev(size_t(1) << 30);
  CachingAllocator a(&dev);
  a.set_gc_fraction(0);
  void* p = a.allocate(0, 2048, kStreamA);
  a.record_stream(p, kStreamB);
  a.record_stream(p, kStreamA);  // its own stream: nothing to wait for
  a.free(p);
  CHECK(dev.pending_events() == 1);
  CHECK(a.stats(0).cached_bytes == 0);
  void* q = a.allocate(0, 2048, kStreamA);  // the event has not completed: a new block
  CHECK(q != p);
  dev.complete_events();
  a.free(q);
  void* r = a.allocate(0, 2048, kStreamA);  // now p (or q) is reusable
  CHECK((r == p || r == q));
  CHECK(dev.pending_events() == 0);
  a.free(r);
}

TEST_CASE("caching allocator: out of memory empties the cache, retries, then reports", "[alloc]") {
  FakeDevice dev(size_t(64) << 10);  // 64 KiB
  CachingAllocator a(&dev);
  a.set_gc_fraction(0);
  g_hook_calls = 0;
  a.set_reclaim_hook(count_hook);
  // Fill the device with cached blocks of one class, then ask for another class.
  void* b1 = a.allocate(0, 16 << 10, kStreamA);
  void* b2 = a.allocate(0, 16 << 10, kStreamA);
  void* b3 = a.allocate(0, 16 << 10, kStreamA);
  a.free(b1);
  a.free(b2);
  CHECK(a.stats(0).cached_bytes == (32 << 10));
  void* big = a.allocate(0, 40 << 10, kStreamA);  // fits only once the cache is released
  CHECK(big != nullptr);
  CHECK(g_hook_calls == 1);
  CacheStats s = a.stats(0);
  CHECK(s.oom_retries == 1);
  CHECK(s.cached_bytes == 0);
  CHECK(s.ooms == 0);
  // Nothing left to release: the error names requested, in use and cached bytes.
  try {
    a.allocate(0, 20 << 10, kStreamA);
    FAIL("expected OutOfMemory");
  } catch (const OutOfMemory& e) {
    std::string m = e.what();
    CHECK(m.find("[alloc] out of memory on cuda:0") != std::string::npos);
    CHECK(m.find("tried to allocate 20.00 KiB") != std::string::npos);
    CHECK(m.find("56.00 KiB in use") != std::string::npos);
    CHECK(m.find("0 bytes cached") != std::string::npos);
    CHECK(m.find("capacity 64.00 KiB") != std::string::npos);
  }
  CHECK(a.stats(0).ooms == 1);
  CHECK(g_hook_calls == 2);
  a.free(big);
  a.free(b3);
}

TEST_CASE("caching allocator: memory pressure asks for a collection before growing", "[alloc]") {
  FakeDevice dev(size_t(100) << 10);
  CachingAllocator a(&dev);
  a.set_gc_fraction(0.5);
  g_hook_calls = 0;
  a.set_reclaim_hook(count_hook);
  void* p = a.allocate(0, 40 << 10, kStreamA);  // 40% of capacity: no pressure
  CHECK(g_hook_calls == 0);
  void* q = a.allocate(0, 20 << 10, kStreamA);  // would pass 50%: the hook runs, then it allocates
  CHECK(g_hook_calls == 1);
  CHECK(q != nullptr);
  CHECK(a.stats(0).ooms == 0);
  a.free(p);
  a.free(q);
}

TEST_CASE("device runtime without a device", "[cuda]") {
  const DeviceRuntime* r = device_runtime(DeviceType::cuda);
  if (r && r->device_count() > 0) {
    SUCCEED("a CUDA device is present; the no-device behaviour is not testable here");
    return;
  }
  // Built without CUDA, or no GPU/driver: a clear error, never a crash.
  try {
    require_device_runtime(DeviceType::cuda, "setDevice");
    FAIL("expected an error");
  } catch (const Error& e) {
    std::string m = e.what();
    CHECK(m.rfind("[setDevice] ", 0) == 0);
    INFO(m);
    CHECK((m.find("without cuda") != std::string::npos || m.find("no CUDA device") != std::string::npos));
  }
  try {
    empty({2, 3}, DType::f32, Device{DeviceType::cuda, 0});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("cuda") != std::string::npos);
  }
}

TEST_CASE("ops refuse tensors on different devices, naming the op and both devices", "[cuda]") {
  // A "cuda:0" tensor over host memory: the front-ends check devices before any kernel runs, so
  // the message is testable without a GPU.
  static float host[6] = {1, 2, 3, 4, 5, 6};
  Ref<Storage> st = Storage::from_blob(host, sizeof host, Device{DeviceType::cuda, 0}, nullptr, nullptr);
  Tensor fake = make_view(st, DType::f32, DimVec{2, 3}, DimVec{3, 1}, 0);
  Tensor cpu = empty({2, 3}, DType::f32);
  try {
    binary(OpId::add, cpu, fake);
    FAIL("expected an error");
  } catch (const Error& e) {
    std::string m = e.what();
    CHECK(m.rfind("[add] ", 0) == 0);
    CHECK(m.find("cpu") != std::string::npos);
    CHECK(m.find("cuda:0") != std::string::npos);
  }
}

TEST_CASE("philox4x32-10 matches the Random123 known answers", "[random]") {
  auto check = [](Philox4 ctr, uint32_t k0, uint32_t k1, Philox4 want) {
    Philox4 got = philox4x32_10(ctr, k0, k1);
    for (int i = 0; i < 4; ++i) CHECK(got.x[i] == want.x[i]);
  };
  check({{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}});
  check({{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu,
        {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}});
  check({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u,
        {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}});
  // The generator hands out disjoint counter ranges and replays them after a reseed.
  PhiloxGenerator g;
  g.manual_seed(7);
  uint64_t s = 0, o1 = 0, o2 = 0;
  g.reserve(10, &s, &o1);
  g.reserve(5, &s, &o2);
  CHECK(s == 7);
  CHECK(o2 == o1 + 10);
  g.manual_seed(7);
  g.reserve(1, &s, &o1);
  CHECK(o1 == 0);
}
