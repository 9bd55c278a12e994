// SmallVector<T, N>: a vector that keeps its first N elements inside the object and moves to the
// heap only past N. The autograd tape uses it for the per-node lists (edges, input shapes, saved
// tensors, gradients) that hold one to three entries for almost every op, so recording an op
// and running its backward allocate nothing but the node itself (Note [Tape allocations] in
// core/autograd/node.h). The interface is the subset of std::vector those users need.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include "core/raw_new.h"
#include <utility>

namespace tocha {

template <typename T, size_t N>
class SmallVector {
 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  explicit SmallVector(size_t n) { resize(n); }
  SmallVector(size_t n, const T& v) { resize(n, v); }
  SmallVector(std::initializer_list<T> init) {
    reserve(init.size());
    for (const T& v : init) push_back(v);
  }
  SmallVector(const SmallVector& o) {
    reserve(o.size_);
    for (const T& v : o) push_back(v);
  }
  SmallVector(SmallVector&& o) noexcept { take(std::move(o)); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) {
      clear();
      reserve(o.size_);
      for (const T& v : o) push_back(v);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      destroy_all();
      release_heap();
      take(std::move(o));
    }
    return *this;
  }
  ~SmallVector() {
    destroy_all();
    release_heap();
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  T* begin() { return ptr_; }
  T* end() { return ptr_ + size_; }
  const T* begin() const { return ptr_; }
  const T* end() const { return ptr_ + size_; }
  T& operator[](size_t i) { return ptr_[i]; }
  const T& operator[](size_t i) const { return ptr_[i]; }
  T& front() { return ptr_[0]; }
  const T& front() const { return ptr_[0]; }
  T& back() { return ptr_[size_ - 1]; }
  const T& back() const { return ptr_[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= cap_) return;
    T* fresh = static_cast<T*>(raw_new<T>(n * sizeof(T)));
    for (size_t i = 0; i < size_; ++i) {
      new (fresh + i) T(std::move(ptr_[i]));
      ptr_[i].~T();
    }
    release_heap();
    ptr_ = fresh;
    cap_ = n;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == cap_) grow_for_append(std::forward<Args>(args)...);
    else new (ptr_ + size_) T(std::forward<Args>(args)...);
    return ptr_[size_++];
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  void pop_back() { ptr_[--size_].~T(); }
  void resize(size_t n) {
    reserve(n);
    while (size_ < n) new (ptr_ + size_++) T();
    while (size_ > n) pop_back();
  }
  void resize(size_t n, const T& v) {
    reserve(n);
    while (size_ < n) new (ptr_ + size_++) T(v);
    while (size_ > n) pop_back();
  }
  void assign(size_t n, const T& v) {
    clear();
    resize(n, v);
  }
  void clear() { destroy_all(); }
  // Gives the heap block back when the elements fit inside again.
  void shrink_to_fit() {
    if (ptr_ == inline_ptr() || size_ > N) return;
    T* heap = ptr_;
    size_t n = size_;
    ptr_ = inline_ptr();
    for (size_t i = 0; i < n; ++i) {
      new (ptr_ + i) T(std::move(heap[i]));
      heap[i].~T();
    }
    raw_delete<T>(heap);
    cap_ = N;
  }

 private:
  T* inline_ptr() { return reinterpret_cast<T*>(inline_); }
  void destroy_all() {
    while (size_ > 0) ptr_[--size_].~T();
  }
  void release_heap() {
    if (ptr_ != inline_ptr()) raw_delete<T>(ptr_);
    ptr_ = inline_ptr();
    cap_ = N;
  }
  // Appends when full: the new element is built before the old ones move, so arguments that
  // refer to an element of this vector stay valid.
  template <typename... Args>
  void grow_for_append(Args&&... args) {
    size_t n = cap_ * 2;
    T* fresh = static_cast<T*>(raw_new<T>(n * sizeof(T)));
    new (fresh + size_) T(std::forward<Args>(args)...);
    for (size_t i = 0; i < size_; ++i) {
      new (fresh + i) T(std::move(ptr_[i]));
      ptr_[i].~T();
    }
    release_heap();
    ptr_ = fresh;
    cap_ = n;
  }
  void take(SmallVector&& o) {
    if (o.ptr_ != o.inline_ptr()) {
      ptr_ = o.ptr_;
      size_ = o.size_;
      cap_ = o.cap_;
      o.ptr_ = o.inline_ptr();
      o.size_ = 0;
      o.cap_ = N;
      return;
    }
    for (size_t i = 0; i < o.size_; ++i) new (ptr_ + i) T(std::move(o.ptr_[i]));
    size_ = o.size_;
    o.destroy_all();
  }

  T* ptr_ = inline_ptr();
  size_t size_ = 0;
  size_t cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

}  // namespace tocha
