// Tensor: a strided view (sizes, strides, offset, dtype, device) over a refcounted Storage.
// TensorImpl extends the C ABI's read-only header (core/tensor_header.h) so LuaJIT can read
// metadata without a call; Tensor is the C++ handle (one reference) used everywhere in core.
#pragma once
#include <atomic>
#include <memory>
#include "core/device.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/storage.h"

namespace tocha {

struct AutogradMeta;  // core/autograd/meta.h
class Tensor;

struct TensorImpl : public tocha_tensor {
  std::atomic<int> refs{1};
  Ref<Storage> storage_ref;
  std::unique_ptr<AutogradMeta> autograd;
  bool is_view = false;  // made by a view op over another tensor's storage (see prepare_in_place)
  Ref<Storage> block_owner;  // set when this impl lives in a compact block (Note [Compact tensors])

  TensorImpl();
  ~TensorImpl();
  // Views and aliases are made and dropped on every op: their impls come from a per-thread
  // free list (core/pool_allocator.h). Compact tensors place theirs in their data block instead.
  static void* operator new(size_t n);
  static void operator delete(void* p, size_t n);
  static void* operator new(size_t, void* at) { return at; }  // placement (compact blocks)
  static void operator delete(void*, void*) {}
  void retain() { refs.fetch_add(1, std::memory_order_relaxed); }
  static void destroy_ref(TensorImpl* t) {
    if (t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) t->destroy();
  }
  void destroy();
  // Sets sizes/strides/offset and recomputes numel and the contiguity flag.
  void set_geometry(const DimVec& sizes, const DimVec& strides, int64_t offset);
  void set_storage(Ref<Storage> s);
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Ref<TensorImpl> impl) : impl_(std::move(impl)) {}
  // Takes a new reference to an impl handed in through the C ABI.
  static Tensor share(tocha_tensor* t) { return Tensor(Ref<TensorImpl>::share(static_cast<TensorImpl*>(t))); }

  bool defined() const { return bool(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  // Gives one reference to the caller (the C ABI returns it to Lua).
  tocha_tensor* release() { return impl_.release(); }

  int dim() const { return impl_->ndim; }
  int64_t size(int d) const { return impl_->size[d]; }
  int64_t stride(int d) const { return impl_->stride[d]; }
  DimVec sizes() const { return DimVec(impl_->size, impl_->ndim); }
  DimVec strides() const { return DimVec(impl_->stride, impl_->ndim); }
  int64_t numel() const { return impl_->numel; }
  int64_t storage_offset() const { return impl_->storage_offset; }
  DType dtype() const { return DType(impl_->dtype); }
  size_t elsize() const { return size_t(impl_->elsize); }
  Device device() const { return Device{DeviceType(impl_->device_type), impl_->device_index}; }
  bool is_cpu() const { return impl_->device_type == int32_t(DeviceType::cpu); }
  bool is_contiguous() const { return impl_->flags & TOCHA_FLAG_CONTIGUOUS; }
  const Ref<Storage>& storage() const { return impl_->storage_ref; }
  // Address of the first element.
  void* raw_data() const { return impl_->storage->data + impl_->storage_offset * impl_->elsize; }
  template <class T> T* data() const { return static_cast<T*>(raw_data()); }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  // True when both view the same storage.
  bool shares_storage(const Tensor& o) const { return storage().get() == o.storage().get(); }
  // Version of the underlying storage (Note [Version counter]).
  uint32_t version() const { return storage()->version(); }
  void bump_version() const { storage()->bump_version(); }

  // Autograd state (core/autograd); cheap checks usable on the op hot path.
  bool requires_grad() const { return impl_->flags & TOCHA_FLAG_REQUIRES_GRAD; }

 private:
  Ref<TensorImpl> impl_;
};

// An uninitialized contiguous tensor with t's sizes and dtype dt (the pointwise fast paths).
Tensor empty_with_sizes_of(const Tensor& t, DType dt);
// Allocates an uninitialized contiguous tensor.
Tensor empty(const DimVec& sizes, DType dtype, Device device = Device{});
// A new tensor header over `storage` (shares it).
Tensor make_view(const Ref<Storage>& storage, DType dtype, const DimVec& sizes, const DimVec& strides,
                 int64_t offset);
// A new header over the same storage with other geometry (views: narrow, transpose, view...).
Tensor alias_with(const Tensor& t, const DimVec& sizes, const DimVec& strides, int64_t offset);
// Whether the geometry addresses elements in row-major order without gaps.
bool geometry_is_contiguous(const DimVec& sizes, const DimVec& strides);
// Bytes from the storage start needed by a view (for bounds checks); 0 for empty views.
int64_t required_storage_elems(const DimVec& sizes, const DimVec& strides, int64_t offset);

}  // namespace tocha
