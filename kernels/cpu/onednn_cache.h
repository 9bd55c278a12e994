// The per-thread oneDNN state of the CPU kernels that use it (conv_onednn.cpp, blas_gemm_onednn.cpp):
// a CPU engine and stream, and a cache of primitives keyed by int64 vectors, most recently used
// first. Making a primitive takes from tens of microseconds to milliseconds, so each kind keeps at
// most `capacity` of them per thread; the keys hold what oneDNN fixes at creation (shapes, strides,
// the thread count).
#pragma once
#ifdef TOCHA_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#include <cstdint>
#include <list>
#include <vector>

namespace tocha {
namespace cpu {

// Entry: a struct with a `std::vector<int64_t> key` member.
template <class Entry> struct OnednnThreadCache {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  std::list<Entry> entries;  // most recently used first

  // The entry of `key`, made by make() (which sets its key) on a miss; the least recently used
  // goes past `capacity`.
  template <class Make> Entry& find(const std::vector<int64_t>& key, size_t capacity, const Make& make) {
    for (auto it = entries.begin(); it != entries.end(); ++it)
      if (it->key == key) {
        entries.splice(entries.begin(), entries, it);
        return entries.front();
      }
    entries.push_front(make());
    if (entries.size() > capacity) entries.pop_back();
    return entries.front();
  }
};

// This thread's cache for entries of type Entry.
template <class Entry> OnednnThreadCache<Entry>& onednn_thread_cache() {
  thread_local OnednnThreadCache<Entry> c;
  return c;
}

}  // namespace cpu
}  // namespace tocha
#endif
