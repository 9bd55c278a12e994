// raw_new<T>(bytes) / raw_delete<T>(p): uninitialised memory for objects of type T, through the
// aligned operator new only when T needs more than the default alignment (the aligned path goes
// through memalign, which costs several times a plain malloc). Used by SmallVector and
// PoolAllocator.
#pragma once
#include <cstddef>
#include <new>

namespace tocha {

template <typename T>
void* raw_new(size_t bytes) {
  if constexpr (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator new(bytes, std::align_val_t(alignof(T)));
  else return ::operator new(bytes);
}

template <typename T>
void raw_delete(void* p) {
  if constexpr (alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__) ::operator delete(p, std::align_val_t(alignof(T)));
  else ::operator delete(p);
}

}  // namespace tocha
