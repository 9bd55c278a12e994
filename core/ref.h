// Ref<T>: an intrusive reference-counted pointer for objects with retain()/release().
// Storage and TensorImpl use it; the C ABI hands one reference to each Lua handle.
#pragma once
#include <atomic>
#include <utility>

namespace tocha {

// Base for intrusively counted objects. Counts are atomic: worker threads share tensors.
class RefCounted {
 public:
  void retain() const { count_.fetch_add(1, std::memory_order_relaxed); }
  // Returns true when this was the last reference.
  bool release_ref() const { return count_.fetch_sub(1, std::memory_order_acq_rel) == 1; }
  int use_count() const { return count_.load(std::memory_order_relaxed); }

 protected:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

 private:
  mutable std::atomic<int> count_{1};
};

template <class T> class Ref {
 public:
  Ref() = default;
  // Adopts one existing reference (for freshly created objects, whose count starts at 1).
  static Ref adopt(T* p) { Ref r; r.p_ = p; return r; }
  // Takes a new reference to p.
  static Ref share(T* p) { if (p) p->retain(); return adopt(p); }
  Ref(const Ref& o) : p_(o.p_) { if (p_) p_->retain(); }
  Ref(Ref&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  Ref& operator=(Ref o) noexcept { std::swap(p_, o.p_); return *this; }
  ~Ref() { reset(); }
  void reset() { if (p_) { T::destroy_ref(p_); p_ = nullptr; } }
  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  // Gives up ownership of one reference (to the C ABI caller).
  T* release() { T* p = p_; p_ = nullptr; return p; }
  bool operator==(const Ref& o) const { return p_ == o.p_; }
  bool operator!=(const Ref& o) const { return p_ != o.p_; }

 private:
  T* p_ = nullptr;
};

}  // namespace tocha
