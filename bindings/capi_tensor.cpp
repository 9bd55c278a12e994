// C ABI: tensor lifecycle, construction, geometry, copies, element access and views.
#include "capi.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {
namespace capi {

// Note [Freed sentinel]: t:free() points the Lua handle at this tensor. It has no elements and a
// valid (empty) storage view, so metadata reads from Lua are harmless, and arg() turns every
// use of it in an op into the error "tensor was freed".
TensorImpl* freed_sentinel() {
  static TensorImpl* sentinel = [] {
    static tocha_storage_view empty_view{nullptr, 0};
    static char zero_bytes[64] = {};
    empty_view.data = zero_bytes;
    auto* t = new TensorImpl();
    t->refs.store(1 << 30);
    t->numel = 0;
    t->ndim = 0;
    t->storage = &empty_view;
    return t;
  }();
  return sentinel;
}

}  // namespace capi
}  // namespace tocha

using namespace tocha;
using namespace tocha::capi;

// ---- lifecycle ----------------------------------------------------------------------------------

void tocha_tensor_retain(tocha_tensor* t) noexcept {
  if (t && t != freed_sentinel()) static_cast<TensorImpl*>(t)->retain();
}
void tocha_tensor_release(tocha_tensor* t) noexcept {
  if (t && t != freed_sentinel()) TensorImpl::destroy_ref(static_cast<TensorImpl*>(t));
}
void tocha_handle_release(tocha_handle* h) noexcept {
  if (!h) return;
  tocha_tensor* p = h->p;
  h->p = freed_sentinel();
  tocha_tensor_release(p);
}
tocha_tensor* tocha_freed_tensor(void) noexcept { return freed_sentinel(); }
int tocha_tensor_use_count(const tocha_tensor* t) noexcept {
  return t ? static_cast<const TensorImpl*>(t)->refs.load() : 0;
}

// ---- construction -------------------------------------------------------------------------------

tocha_tensor* tocha_tensor_empty(int ndim, const int64_t* sizes, int dtype, int dt, int di) noexcept {
  return guard_tensor([&] {
    Tensor r = empty(arg_dims(ndim, sizes, "empty"), arg_dtype(dtype, "empty"), arg_device(dt, di, "empty"));
    zero_bool_bytes(r, 0);  // Note [Bool bytes]
    return r;
  });
}
tocha_tensor* tocha_tensor_full(int ndim, const int64_t* sizes, double v, int dtype, int dt, int di) noexcept {
  return guard_tensor([&] {
    return full(arg_dims(ndim, sizes, "full"), v, arg_dtype(dtype, "full"), arg_device(dt, di, "full"));
  });
}
tocha_tensor* tocha_tensor_view_storage(const tocha_tensor* base, int64_t offset, int ndim, const int64_t* sizes,
                                        const int64_t* strides) noexcept {
  return guard_tensor([&] {
    Tensor b = arg(base, "Tensor");
    DimVec sz = arg_dims(ndim, sizes, "Tensor");
    DimVec st = strides ? arg_dims(ndim, strides, "Tensor") : contiguous_strides(sz);
    Tensor r = alias_with(b, DimVec{}, DimVec{}, 0);
    set_storage_(r, b.storage(), offset, sz, st);
    return r;
  });
}
tocha_tensor* tocha_tensor_alias(const tocha_tensor* t) noexcept {
  return guard_tensor([&] {
    Tensor a = arg(t, "Tensor");
    return alias_with(a, a.sizes(), a.strides(), a.storage_offset());
  });
}
tocha_tensor* tocha_tensor_clone(const tocha_tensor* t) noexcept {
  return guard_tensor([&] { return clone(arg(t, "clone")); });
}
tocha_tensor* tocha_tensor_contiguous(const tocha_tensor* t) noexcept {
  return guard_tensor([&] { return contiguous(arg(t, "contiguous")); });
}
tocha_tensor* tocha_tensor_to_dtype(const tocha_tensor* t, int dtype) noexcept {
  return guard_tensor([&] { return to_dtype(arg(t, "type"), arg_dtype(dtype, "type")); });
}
tocha_tensor* tocha_tensor_to_device(const tocha_tensor* t, int dt, int di) noexcept {
  return guard_tensor([&] {
    return to_device(arg(t, "to"), arg_device(dt, di, "to"));
  });
}
tocha_tensor* tocha_tensor_from_blob(void* data, int ndim, const int64_t* sizes, const int64_t* strides, int dtype,
                                     void (*deleter)(void*, void*), void* ctx) noexcept {
  return guard_tensor([&] {
    TOCHA_CHECK(data, "fromBlob", "data pointer is NULL");
    DType dt = arg_dtype(dtype, "fromBlob");
    DimVec sz = arg_dims(ndim, sizes, "fromBlob");
    DimVec st = strides ? arg_dims(ndim, strides, "fromBlob") : contiguous_strides(sz);
    shape_numel(sz, "fromBlob");
    for (int d = 0; d < st.size(); ++d) TOCHA_CHECK(st[d] >= 0, "fromBlob", "negative stride ", st[d]);
    int64_t n = required_storage_elems(sz, st, 0);
    TOCHA_CHECK(n <= INT64_MAX / int64_t(dtype_size(dt)), "fromBlob", "size ", shape_str(sz), " is too large");
    auto storage = Storage::from_blob(data, size_t(n) * dtype_size(dt), Device{}, deleter, ctx);
    return make_view(storage, dt, sz, st, 0);
  });
}

// ---- in-place geometry --------------------------------------------------------------------------

int tocha_tensor_resize(tocha_tensor* t, int ndim, const int64_t* sizes) noexcept {
  return guard_int([&] { resize_(arg(t, "resize"), arg_dims(ndim, sizes, "resize")); });
}
int tocha_tensor_set(tocha_tensor* t, const tocha_tensor* src) noexcept {
  return guard_int([&] { set_(arg(t, "set"), arg(src, "set")); });
}
int tocha_tensor_set_storage(tocha_tensor* t, const tocha_tensor* storage_of, int64_t offset, int ndim,
                             const int64_t* sizes, const int64_t* strides) noexcept {
  return guard_int([&] {
    Tensor dst = arg(t, "set"), s = arg(storage_of, "set");
    TOCHA_CHECK(dst.dtype() == s.dtype(), "set", "storage holds ", dtype_name(s.dtype()), " but the tensor is ",
                dtype_name(dst.dtype()));
    DimVec sz = arg_dims(ndim, sizes, "set");
    DimVec st = strides ? arg_dims(ndim, strides, "set") : contiguous_strides(sz);
    set_storage_(dst, s.storage(), offset, sz, st);
  });
}
int64_t tocha_tensor_storage_size(const tocha_tensor* t) noexcept {
  if (!t || t == freed_sentinel() || !t->storage) return 0;
  return t->storage->nbytes / t->elsize;
}
int tocha_tensor_same_storage(const tocha_tensor* a, const tocha_tensor* b) noexcept {
  return a && b && a->storage && a->storage == b->storage;
}

// ---- data ---------------------------------------------------------------------------------------

int tocha_tensor_copy(tocha_tensor* dst, const tocha_tensor* src) noexcept {
  return guard_int([&] { copy_(arg(dst, "copy"), arg(src, "copy")); });
}
int tocha_tensor_fill(tocha_tensor* t, double v) noexcept {
  return guard_int([&] { fill_(arg(t, "fill"), v); });
}
int tocha_tensor_get_item(const tocha_tensor* t, int64_t linear, double* v) noexcept {
  return guard_int([&] { *v = lua_number(item_at(arg(t, "item"), linear)); });
}
int tocha_tensor_set_item(tocha_tensor* t, int64_t linear, double v) noexcept {
  return guard_int([&] { set_item_at(arg(t, "set"), linear, v); });
}
int tocha_tensor_get_at(const tocha_tensor* t, int64_t offset, double* v) noexcept {
  return guard_int([&] {
    Tensor a = arg(t, "get");
    TOCHA_CHECK(offset >= 0 && offset < tocha_tensor_storage_size(t), "get", "offset ", offset, " outside the storage");
    *v = lua_number(item_at(alias_with(a, DimVec{}, DimVec{}, offset), 0));
  });
}
int tocha_tensor_set_at(tocha_tensor* t, int64_t offset, double v) noexcept {
  return guard_int([&] {
    Tensor a = arg(t, "set");
    TOCHA_CHECK(offset >= 0 && offset < tocha_tensor_storage_size(t), "set", "offset ", offset, " outside the storage");
    set_item_at(alias_with(a, DimVec{}, DimVec{}, offset), 0, v);
  });
}
void tocha_tensor_bump_version(tocha_tensor* t) noexcept {
  if (t && t != freed_sentinel() && t->storage) static_cast<TensorImpl*>(t)->storage_ref->bump_version();
}
void* tocha_tensor_data(const tocha_tensor* t) noexcept {
  if (!t || t == freed_sentinel()) {
    set_error(TOCHA_EINVAL, t ? "[data] tensor was freed" : "[data] expected a tensor, got NULL");
    return nullptr;
  }
  if (t->device_type != TOCHA_DEVICE_CPU) {
    set_error(TOCHA_EINVAL, "[data] tensor is not on the CPU (copy it with float() first)");
    return nullptr;
  }
  if (!t->storage || !t->storage->data) return nullptr;
  return t->storage->data + t->storage_offset * t->elsize;
}
int tocha_tensor_equal(const tocha_tensor* a, const tocha_tensor* b) noexcept {
  int r = 0;
  if (guard_int([&] { r = equal(arg(a, "equal"), arg(b, "equal")) ? 1 : 0; }) < 0) return -1;
  return r;
}

// ---- views --------------------------------------------------------------------------------------

tocha_tensor* tocha_narrow(const tocha_tensor* t, int dim, int64_t start, int64_t length) noexcept {
  return guard_tensor([&] { return narrow(arg(t, "narrow"), dim, start, length); });
}
tocha_tensor* tocha_select(const tocha_tensor* t, int dim, int64_t index) noexcept {
  return guard_tensor([&] { return select(arg(t, "select"), dim, index); });
}
tocha_tensor* tocha_transpose(const tocha_tensor* t, int d1, int d2) noexcept {
  return guard_tensor([&] { return transpose(arg(t, "transpose"), d1, d2); });
}
tocha_tensor* tocha_permute(const tocha_tensor* t, int ndim, const int64_t* dims) noexcept {
  return guard_tensor([&] { return permute(arg(t, "permute"), arg_dims(ndim, dims, "permute")); });
}
tocha_tensor* tocha_view(const tocha_tensor* t, int ndim, const int64_t* sizes) noexcept {
  return guard_tensor([&] { return view(arg(t, "view"), arg_dims(ndim, sizes, "view")); });
}
tocha_tensor* tocha_reshape(const tocha_tensor* t, int ndim, const int64_t* sizes) noexcept {
  return guard_tensor([&] { return reshape(arg(t, "reshape"), arg_dims(ndim, sizes, "reshape")); });
}
tocha_tensor* tocha_expand(const tocha_tensor* t, int ndim, const int64_t* sizes) noexcept {
  return guard_tensor([&] { return expand(arg(t, "expand"), arg_dims(ndim, sizes, "expand")); });
}
tocha_tensor* tocha_unfold(const tocha_tensor* t, int dim, int64_t size, int64_t step) noexcept {
  return guard_tensor([&] { return unfold(arg(t, "unfold"), dim, size, step); });
}
tocha_tensor* tocha_squeeze(const tocha_tensor* t) noexcept {
  return guard_tensor([&] { return squeeze(arg(t, "squeeze")); });
}
tocha_tensor* tocha_squeeze_dim(const tocha_tensor* t, int dim) noexcept {
  return guard_tensor([&] { return squeeze(arg(t, "squeeze"), dim); });
}
tocha_tensor* tocha_unsqueeze(const tocha_tensor* t, int dim) noexcept {
  return guard_tensor([&] { return unsqueeze(arg(t, "unsqueeze"), dim); });
}
tocha_tensor* tocha_as_strided(const tocha_tensor* t, int ndim, const int64_t* sizes, const int64_t* strides,
                               int64_t offset) noexcept {
  return guard_tensor([&] {
    return as_strided(arg(t, "asStrided"), arg_dims(ndim, sizes, "asStrided"), arg_dims(ndim, strides, "asStrided"),
                      offset);
  });
}
