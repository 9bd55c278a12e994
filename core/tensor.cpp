// TensorImpl geometry and tensor allocation. See tensor.h.
#include "core/tensor.h"
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

bool geometry_is_contiguous(const DimVec& sizes, const DimVec& strides) {
  int64_t expected = 1;
  for (int i = sizes.size() - 1; i >= 0; --i) {
    if (sizes[i] == 1) continue;
    if (sizes[i] == 0) return true;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
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

Tensor empty(const DimVec& sizes, DType dt, Device device) {
  int64_t n = shape_numel(sizes, "empty");
  size_t es = dtype_size(dt);
  if (n > int64_t(INT64_MAX / int64_t(es))) fail("empty", "shape ", shape_str(sizes), " is too large");
  auto storage = Storage::allocate(size_t(n) * es, device);
  return make_view(storage, dt, sizes, contiguous_strides(sizes), 0);
}

Tensor alias_with(const Tensor& t, const DimVec& sizes, const DimVec& strides, int64_t offset) {
  Tensor r = make_view(t.storage(), t.dtype(), sizes, strides, offset);
  r.impl()->is_view = true;
  return r;
}

}  // namespace tocha
