// Per-thread scratch buffers for CPU kernels that need a workspace (convolution columns, oneDNN's
// blocked copies). Allocated before any parallel region (nothing may throw inside one).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

namespace tocha {
namespace cpu {

// Buffers up to kKeepScratch bytes stay cached per calling thread, so a training loop does not
// allocate (and page-fault) per call; larger ones are owned by the caller's holder.
constexpr size_t kKeepScratch = size_t(64) << 20;
struct ScratchFree {
  void operator()(void* p) const { std::free(p); }
};
using ScratchHolder = std::unique_ptr<void, ScratchFree>;

// `count` elements of T, 64-byte aligned; `own` keeps a buffer larger than kKeepScratch alive.
template <class T> T* scratch(int64_t count, ScratchHolder* own) {
  struct Cache {
    ScratchHolder mem;
    size_t cap = 0;
  };
  thread_local Cache cache;
  const size_t bytes = (size_t(count) * sizeof(T) + 63) / 64 * 64;
  if (bytes == 0) return nullptr;
  if (bytes > kKeepScratch) {
    own->reset(std::aligned_alloc(64, bytes));
    if (!*own) throw std::bad_alloc();
    return static_cast<T*>(own->get());
  }
  if (cache.cap < bytes) {
    cache.mem.reset();
    cache.mem.reset(std::aligned_alloc(64, bytes));
    cache.cap = cache.mem ? bytes : 0;
    if (!cache.mem) throw std::bad_alloc();
  }
  return static_cast<T*>(cache.mem.get());
}

}  // namespace cpu
}  // namespace tocha
