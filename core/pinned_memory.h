// Pinned (page-locked) host memory and asynchronous host<->device copies (issue 9): the hooks the
// CUDA backend registers (kernels/cuda/pinned.cpp) and the front-ends t:pinMemory(), t:isPinned()
// and copyAsync use. Without the backend there is no pinned memory and copies stay synchronous.
#pragma once
#include <cstddef>
#include "core/device.h"
#include "core/tensor.h"

namespace tocha {

struct PinnedMemoryHooks {
  // nbytes of page-locked host memory from the caching host allocator; throws OutOfMemory.
  void* (*alloc)(size_t nbytes);
  // Returns a block to the cache; its reuse waits for the async copies queued on it.
  void (*free)(void* p);
  // Whether p points into a live pinned block.
  bool (*is_pinned)(const void* p);
  // Queues a copy of n bytes between a pinned host block and device memory on the device's stream
  // and returns without waiting (Note [Asynchronous copies] in kernels/cuda/pinned.cpp).
  void (*copy_async)(void* dst, Device dst_dev, const void* src, Device src_dev, size_t n);
  // Releases the cached (free) blocks.
  void (*empty_cache)();
};
void register_pinned_memory(const PinnedMemoryHooks& h);
// The registered hooks, or nullptr in a build without CUDA.
const PinnedMemoryHooks* pinned_memory();

// An uninitialized contiguous CPU tensor in pinned memory (cutorch's createCudaHostTensor).
Tensor empty_pinned(const DimVec& sizes, DType dt);
// A contiguous copy of a CPU tensor in pinned memory (t itself when it is pinned already).
Tensor pin_memory(const Tensor& t);
// Whether t's memory is pinned host memory.
bool is_pinned(const Tensor& t);
// dst <- src. Between pinned host memory and a CUDA device (same dtype and sizes, both contiguous,
// no autograd recording needed) the copy is queued on the device's stream and returns at once;
// any other pair takes the ordinary copy_.
void copy_async(const Tensor& dst, const Tensor& src);

}  // namespace tocha
