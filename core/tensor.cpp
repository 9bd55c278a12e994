// TensorImpl geometry and tensor allocation. See tensor.h.
#include "core/tensor.h"
#include <new>
#include "core/memory.h"
#include "core/autograd/meta.h"

namespace tocha {

TensorImpl::TensorImpl() {
  ndim = 0;
  dtype = int32_t(DType::f32);
  device_type = int32_t(DeviceType::cpu);
  device_index = 0;
  numel = 1;
  storage_offset = 0;
  storage = nullptr;
  flags = TOCHA_FLAG_CONTIGUOUS;
  elsize = 4;
  for (int i = 0; i < TOCHA_MAX_DIMS; ++i) size[i] = stride[i] = 0;
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::destroy() {
  if (!block_owner) {
    delete this;
    return;
  }
  // The block holding this impl may only go after the destructor has finished.
  Ref<Storage> keep = std::move(block_owner);
  this->~TensorImpl();
  keep.reset();
}

bool geometry_is_contiguous(const DimVec& sizes, const DimVec& strides) {
  int64_t expected = 1;
  for (int i = sizes.size() - 1; i >= 0; --i) {
    if (sizes[i] == 1) continue;
    if (sizes[i] == 0) return true;
    if (strides[i] != expected) return false;
    // Past int64 (a view that repeats elements, e.g. expanded) no later stride can match: -1.
    if (__builtin_mul_overflow(expected, sizes[i], &expected)) expected = -1;
  }
  return true;
}

int64_t required_storage_elems(const DimVec& sizes, const DimVec& strides, int64_t offset) {
  // Computed in 128 bits: huge sizes or strides from the user must not wrap around and pass a
  // bounds check (the result saturates at INT64_MAX, which no storage can hold).
  __int128 last = offset;
  for (int i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    last += (__int128(sizes[i]) - 1) * __int128(strides[i]);
  }
  last += 1;
  return last > __int128(INT64_MAX) ? INT64_MAX : int64_t(last);
}

void TensorImpl::set_geometry(const DimVec& sizes, const DimVec& strides, int64_t offset) {
  ndim = sizes.size();
  for (int i = 0; i < ndim; ++i) {
    size[i] = sizes[i];
    stride[i] = strides[i];
  }
  numel = shape_numel(sizes);
  storage_offset = offset;
  if (geometry_is_contiguous(sizes, strides)) flags |= TOCHA_FLAG_CONTIGUOUS;
  else flags &= ~TOCHA_FLAG_CONTIGUOUS;
}

void TensorImpl::set_storage(Ref<Storage> s) {
  storage_ref = std::move(s);
  storage = storage_ref ? storage_ref->view() : nullptr;
  Device d = storage_ref ? storage_ref->device() : Device{};
  device_type = int32_t(d.type);
  device_index = d.index;
}

Tensor make_view(const Ref<Storage>& storage, DType dt, const DimVec& sizes, const DimVec& strides,
                 int64_t offset) {
  auto impl = Ref<TensorImpl>::adopt(new TensorImpl());
  impl->dtype = int32_t(dt);
  impl->elsize = int32_t(dtype_size(dt));
  impl->set_storage(storage);
  impl->set_geometry(sizes, strides, offset);
  return Tensor(std::move(impl));
}

namespace {
constexpr size_t kCompactDataBytes = 1024;  // tensors with at most this much data are compact
constexpr size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }
constexpr size_t kImplBytes = round_up(sizeof(TensorImpl), 64);
constexpr size_t kStorageBytes = round_up(sizeof(Storage), 64);

// Note [Compact tensors] for every new tensor: one block holds the TensorImpl and its Storage, and
// the data too when it is small and on the CPU; other data comes from the device's allocator. A
// CUDA tensor so costs one host allocation instead of two: malloc and free (of the separate impl
// and storage, and of the caching allocator's map nodes) were about a sixth of the host time of
// CUDA `t1 + t2` (perf on the fake GPU stack, bench/cuda_host.lua).
constexpr unsigned kDeviceTensorsPerGcStep = 4096;  // Note [Device-tensor GC steps] (core/memory.cpp)

TensorImpl* new_block_tensor(DType dt, size_t nbytes, Device device) {
  if (!device.is_cpu()) {
    static thread_local unsigned made = 0;
    if (++made % kDeviceTensorsPerGcStep == 0) memory_request_gc_step();
  }
  const bool inline_data = device.is_cpu() && nbytes <= kCompactDataBytes;
  const size_t block = kImplBytes + kStorageBytes + (inline_data ? round_up(nbytes ? nbytes : 1, 64) : 0);
  // A header-only block is not counted: the data's allocator counts the tensor's bytes.
  char* mem = static_cast<char*>(cpu_alloc_block(block, inline_data));
  Storage* s;
  if (inline_data) {
    s = Storage::construct_in_block(mem + kImplBytes, mem, block, mem + kImplBytes + kStorageBytes, nbytes);
  } else {
    try {
      s = Storage::allocate_in_block(mem + kImplBytes, mem, block, nbytes, device);
    } catch (...) {
      cpu_free_block(mem, block, false);
      throw;
    }
  }
  Ref<Storage> storage = Ref<Storage>::adopt(s);
  TensorImpl* impl = new (mem) TensorImpl();
  impl->block_owner = storage;
  impl->dtype = int32_t(dt);
  impl->elsize = int32_t(dtype_size(dt));
  impl->set_storage(std::move(storage));
  return impl;
}
}  // namespace

Tensor empty_with_sizes_of(const Tensor& t, DType dt) {
  const TensorImpl* src = t.impl();
  TensorImpl* impl = new_block_tensor(dt, size_t(src->numel) * dtype_size(dt), t.device());
  // Copy the sizes and write contiguous strides directly (same geometry, no DimVec round trip).
  impl->ndim = src->ndim;
  int64_t acc = 1;
  for (int d = src->ndim - 1; d >= 0; --d) {
    impl->size[d] = src->size[d];
    impl->stride[d] = acc;
    acc *= src->size[d] > 0 ? src->size[d] : 1;
  }
  impl->numel = src->numel;
  impl->storage_offset = 0;
  impl->flags = TOCHA_FLAG_CONTIGUOUS;
  return Tensor(Ref<TensorImpl>::adopt(impl));
}

Tensor empty(const DimVec& sizes, DType dt, Device device) {
  int64_t n = shape_numel(sizes, "empty");
  size_t es = dtype_size(dt);
  if (n > int64_t(INT64_MAX / int64_t(es))) fail("empty", "shape ", shape_str(sizes), " is too large");
  TensorImpl* impl = new_block_tensor(dt, size_t(n) * es, device);
  impl->set_geometry(sizes, contiguous_strides(sizes), 0);
  return Tensor(Ref<TensorImpl>::adopt(impl));
}

Tensor alias_with(const Tensor& t, const DimVec& sizes, const DimVec& strides, int64_t offset) {
  Tensor r = make_view(t.storage(), t.dtype(), sizes, strides, offset);
  r.impl()->is_view = true;
  return r;
}

}  // namespace tocha
