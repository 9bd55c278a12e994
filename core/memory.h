// Memory accounting and the CPU allocator (DESIGN.md decision 9).
// Every storage allocation is counted per device type. When live bytes have grown past a threshold
// since the last Lua collection (max(min_threshold, live bytes after that collection), like Torch7's
// heap tracking; Note [Pressure is growth]) a flag is raised that the Lua side polls to run
// collectgarbage(); Lua's GC cannot see tensor memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include "core/device.h"

namespace tocha {

constexpr size_t kCpuAlignment = 64;

struct MemoryStats {
  int64_t live_bytes = 0;        // bytes held by live storages
  int64_t peak_bytes = 0;        // high-water mark of live_bytes
  int64_t allocations = 0;       // number of allocations so far
  int64_t gc_requests = 0;       // times the GC flag was raised
};

void memory_on_alloc(DeviceType dev, size_t nbytes);
void memory_on_free(DeviceType dev, size_t nbytes);
MemoryStats memory_stats(DeviceType dev);
void memory_reset_peak(DeviceType dev);

// GC-pressure flag: raised by allocations, cleared by the Lua side after it collected.
bool memory_gc_pending();
void memory_gc_done();
void memory_set_gc_threshold(int64_t min_bytes);  // default 256 MiB
// Raises the flag now: a device allocator near its capacity or out of memory asks Lua to collect
// (Note [Device memory pressure], core/caching_allocator.h).
void memory_request_gc(DeviceType dev);
int64_t memory_gc_threshold();
// Note [Graph-driven GC steps] (core/memory.cpp): autograd asks Lua for an incremental collection
// step every few hundred graph nodes; the Lua side polls it with the flag above.
void memory_request_gc_step();
// The steps Lua owes: 0 none, 1 a step of size 8 (graphs, device tensors), k >= 2: k - 1 basic
// steps (one per MiB of CPU tensor bytes, Note [CPU-tensor GC steps]).
int memory_gc_step_pending();
void memory_gc_step_done();

// CPU allocations: 64-byte aligned (page-aligned from 1 MiB: Note [Page-aligned large blocks]),
// counted. Throws OutOfMemory on failure.
void* cpu_alloc(size_t nbytes);
void cpu_free(void* p, size_t nbytes);
// Compact blocks (Note [Compact tensors]): 64-byte aligned; counted whole (header objects
// included, so that many tiny tensors also raise the GC-pressure flag) unless `counted` is false:
// a block holding only a tensor's header, whose data is counted by its own allocator.
void* cpu_alloc_block(size_t nbytes, bool counted = true);
void cpu_free_block(void* p, size_t nbytes, bool counted = true);

}  // namespace tocha
