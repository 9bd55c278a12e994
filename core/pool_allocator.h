// PoolAllocator<T>: a std::allocator replacement for objects created and destroyed at a high rate
// (autograd nodes, through std::allocate_shared): freed blocks go to a per-thread free list of
// their type and are reused by the next allocation on that thread instead of going back to
// malloc. A block may be freed on another thread than the one that allocated it; it then joins
// that thread's list (the blocks are plain memory). Each list keeps at most kMaxCached blocks.
#pragma once
#include <cstddef>
#include <new>
#include "core/raw_new.h"

namespace tocha {

namespace pool_detail {

struct FreeBlock {
  FreeBlock* next;
};

// One per (thread, block type). `alive` turns false when the thread's list is destroyed at
// thread exit, after which frees go straight to the system.
template <typename T>
struct FreeList {
  FreeBlock* head = nullptr;
  int count = 0;
  bool alive = true;
  ~FreeList() {
    alive = false;
    while (head) {
      FreeBlock* b = head;
      head = b->next;
      raw_delete<T>(b);
    }
    count = 0;
  }
  static FreeList& local() {
    static thread_local FreeList list;
    return list;
  }
};

}  // namespace pool_detail

template <typename T>
struct PoolAllocator {
  using value_type = T;
  static constexpr int kMaxCached = 4096;
  static_assert(sizeof(T) >= sizeof(pool_detail::FreeBlock), "block too small for the free list");

  PoolAllocator() = default;
  template <typename U>
  PoolAllocator(const PoolAllocator<U>&) {}

  T* allocate(size_t n) {
    if (n == 1) {
      auto& list = pool_detail::FreeList<T>::local();
      if (list.head) {
        pool_detail::FreeBlock* b = list.head;
        list.head = b->next;
        --list.count;
        return reinterpret_cast<T*>(b);
      }
    }
    return static_cast<T*>(raw_new<T>(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (n == 1) {
      auto& list = pool_detail::FreeList<T>::local();
      if (list.alive && list.count < kMaxCached) {
        auto* b = reinterpret_cast<pool_detail::FreeBlock*>(p);
        b->next = list.head;
        list.head = b;
        ++list.count;
        return;
      }
    }
    raw_delete<T>(p);
  }
  template <typename U>
  bool operator==(const PoolAllocator<U>&) const { return true; }
  template <typename U>
  bool operator!=(const PoolAllocator<U>&) const { return false; }
};

}  // namespace tocha
