// PointerMap: a map from non-null pointers to pointers in one flat array (open addressing, linear
// probing, deletion by backward shift), for hot lookups where std::unordered_map's node per entry
// costs a malloc and a free per insert/erase and scatters entries over the heap.
//
// Note [Flat live-block map]: the caching allocator finds a freed pointer's block here on every
// CUDA tensor's death. With std::unordered_map the insert, find and erase of a tiny CUDA tensor's
// block were 16% of the host time of `t1 + t2` on a GPU (measured with the fake GPU stack,
// bench/cuda_host.lua).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tocha {

template <class V> class PointerMap {
 public:
  // The value stored under key, or nullptr.
  V* find(const void* key) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return s.value;
      if (!s.key) return nullptr;
    }
  }
  // Inserts or replaces (key must not be null).
  void set(const void* key, V* value) {
    if ((size_ + 1) * 4 > slots_.size() * 3) grow();
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.key == key) {
        s.value = value;
        return;
      }
      if (!s.key) {
        s = Slot{key, value};
        ++size_;
        return;
      }
    }
  }
  // Removes key and returns its value (nullptr when absent).
  V* take(const void* key) {
    if (slots_.empty()) return nullptr;
    size_t i = home(key);
    while (slots_[i].key != key) {
      if (!slots_[i].key) return nullptr;
      i = (i + 1) & mask_;
    }
    V* value = slots_[i].value;
    // Backward shift: move later entries of the probe run into the hole when their home allows.
    for (size_t j = (i + 1) & mask_; slots_[j].key; j = (j + 1) & mask_) {
      const size_t h = home(slots_[j].key);
      const bool movable = i <= j ? (h <= i || h > j) : (h <= i && h > j);
      if (movable) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
    --size_;
    return value;
  }
  size_t size() const { return size_; }
  // Calls f(key, value) for every entry.
  template <class F> void for_each(F f) const {
    for (const Slot& s : slots_)
      if (s.key) f(s.key, s.value);
  }

 private:
  struct Slot {
    const void* key = nullptr;
    V* value = nullptr;
  };
  size_t home(const void* key) const {
    // Fibonacci hashing: the top bits of the product (blocks are 512-byte aligned, so the
    // address's low bits carry nothing).
    return size_t((uint64_t(reinterpret_cast<uintptr_t>(key)) * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    mask_ = slots_.size() - 1;
    shift_ = 64 - __builtin_ctzll(slots_.size());
    size_ = 0;
    for (const Slot& s : old)
      if (s.key) set(s.key, s.value);
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 63;
  size_t size_ = 0;
};

}  // namespace tocha
