// Storage: a refcounted, untyped, 64-byte aligned buffer on one device. Tensors are strided views
// over a storage; several tensors may share one. Host buffers can be wrapped without a copy.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include "core/device.h"
#include "core/ref.h"
#include "core/tensor_header.h"

namespace tocha {

class Storage : public RefCounted {
 public:
  using Deleter = void (*)(void* data, void* ctx);

  // Allocates nbytes on dev (counted by the memory accounting). Throws OutOfMemory.
  static Ref<Storage> allocate(size_t nbytes, Device dev);
  // Wraps memory owned by someone else; deleter(data, ctx) runs when the last reference goes.
  static Ref<Storage> from_blob(void* data, size_t nbytes, Device dev, Deleter deleter, void* ctx);

  void* data() const { return view_.data; }
  size_t nbytes() const { return size_t(view_.nbytes); }
  // The C-visible part (data pointer and size) that tensor headers point to.
  tocha_storage_view* view() { return &view_; }
  Device device() const { return device_; }
  bool owns_memory() const { return deleter_ == nullptr; }

  // Grows or shrinks an owned storage, keeping the first min(old,new) bytes (Torch7 resize).
  void resize(size_t nbytes);

  // Note [Version counter]: every in-place write to a storage bumps its version; autograd saves
  // the version with each saved tensor and refuses to use it if it changed. Views share the
  // storage, so they share the counter.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

  static void destroy_ref(Storage* s) {
    if (s->release_ref()) s->destroy();
  }

  // Note [Compact tensors]: a small CPU tensor is one allocation holding its TensorImpl, its
  // Storage and its data (core/tensor.cpp). The block belongs to the Storage: it is freed when
  // the last reference to the Storage goes, and the TensorImpl inside keeps such a reference.
  // Constructs a Storage at `at` inside the block [block, block + block_bytes), with nbytes of
  // data at `data` inside the same block.
  static Storage* construct_in_block(void* at, void* block, size_t block_bytes, void* data, size_t nbytes);
  // The same for a tensor whose data does not fit a compact block or lives on a device: the Storage
  // (constructed at `at` inside the block) owns nbytes from dev's allocator. Throws OutOfMemory
  // before constructing anything.
  static Storage* allocate_in_block(void* at, void* block, size_t block_bytes, size_t nbytes, Device dev);

 private:
  Storage() = default;
  ~Storage();
  void destroy();
  tocha_storage_view view_{nullptr, 0};
  Device device_;
  Deleter deleter_ = nullptr;
  void* deleter_ctx_ = nullptr;
  std::atomic<uint32_t> version_{0};
  void* block_ = nullptr;    // the compact block this Storage lives in, if any
  size_t block_bytes_ = 0;
  bool inline_data_ = false; // the data is inside that block (until a resize moves it)
  bool block_counted_ = true; // the block is counted as memory (false: a header-only block)
};

// Device allocation hooks: the CUDA backend registers its caching allocator here.
struct DeviceAllocator {
  void* (*alloc)(size_t nbytes, int device_index);
  void (*free)(void* p, size_t nbytes, int device_index);
  void (*copy)(void* dst, Device dst_dev, const void* src, Device src_dev, size_t nbytes);
};
void register_device_allocator(DeviceType t, const DeviceAllocator& a);
const DeviceAllocator* device_allocator(DeviceType t);

}  // namespace tocha
