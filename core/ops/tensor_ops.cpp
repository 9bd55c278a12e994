// Factories, resize/set, cross-device copies and element access. See tensor_ops.h.
#include "core/ops/tensor_ops.h"
#include "core/type_name.h"
#include "core/ops/pointwise.h"

namespace tocha {

Tensor full(const DimVec& sizes, double v, DType dt, Device dev) {
  Tensor t = empty(sizes, dt, dev);
  // One CPU float element (a loss's implicit gradient, scalar constants of formulas): written
  // directly, since the fill's pointwise iterator costs more than the element.
  if (t.numel() == 1 && t.is_cpu() && (dt == DType::f32 || dt == DType::f64)) {
    if (dt == DType::f32) *t.data<float>() = float(v);
    else *t.data<double>() = v;
    return t;
  }
  fill_(t, v);
  return t;
}
Tensor zeros(const DimVec& sizes, DType dt, Device dev) { return full(sizes, 0, dt, dev); }
Tensor ones(const DimVec& sizes, DType dt, Device dev) { return full(sizes, 1, dt, dev); }
Tensor full_like_scalar(double v, DType dt, Device dev) { return full(DimVec{}, v, dt, dev); }

Tensor to_device(const Tensor& t, Device dev) {
  if (t.device() == dev) return t;
  Tensor r = empty(t.sizes(), t.dtype(), dev);
  copy_(r, t);
  return r;
}

void resize_(const Tensor& t, const DimVec& sizes) {
  if (t.sizes() == sizes) return;
  int64_t n = shape_numel(sizes, "resize");
  TensorImpl* impl = t.impl();
  int64_t es = int64_t(t.elsize());
  TOCHA_CHECK(n <= (INT64_MAX / es) - impl->storage_offset, "resize", "size ", shape_str(sizes), " is too large");
  int64_t need = (impl->storage_offset + n) * es;
  const size_t had = impl->storage_ref ? impl->storage_ref->nbytes() : 0;
  if (!impl->storage_ref) {
    impl->set_storage(Storage::allocate(size_t(need), t.device()));
  } else if (int64_t(had) < need) {
    impl->storage_ref->resize(size_t(need));
  }
  impl->set_geometry(sizes, contiguous_strides(sizes), impl->storage_offset);
  if (size_t(need) > had) zero_bool_bytes(t, had);  // Note [Bool bytes]: only the bytes it added
}

void zero_bool_bytes(const Tensor& t, size_t from) {
  if (t.dtype() != DType::b8 || !t.impl()->storage_ref) return;
  const Ref<Storage>& s = t.impl()->storage_ref;
  if (s->nbytes() <= from) return;
  fill_(make_view(s, DType::u8, DimVec{int64_t(s->nbytes() - from)}, DimVec{1}, int64_t(from)), 0);
}

void set_storage_(const Tensor& t, const Ref<Storage>& storage, int64_t offset, const DimVec& sizes,
                  const DimVec& strides) {
  TOCHA_CHECK(offset >= 0, "set", "negative storage offset ", offset);
  TOCHA_CHECK(sizes.size() == strides.size(), "set", "got ", sizes.size(), " sizes but ", strides.size(), " strides");
  shape_numel(sizes, "set");  // rejects negative sizes before anything changes
  int64_t need = required_storage_elems(sizes, strides, offset);
  int64_t have = storage ? int64_t(storage->nbytes() / t.elsize()) : 0;
  TOCHA_CHECK(need <= have, "set", "a view of size ", shape_str(sizes), " at offset ", offset + 1,
              " needs ", need, " elements but the storage has ", have);
  for (int d = 0; d < strides.size(); ++d)
    TOCHA_CHECK(strides[d] >= 0, "set", "negative stride ", strides[d], " in dimension ", d + 1);
  t.impl()->set_storage(storage);
  t.impl()->set_geometry(sizes, strides, offset);
}

void set_(const Tensor& t, const Tensor& src) {
  TOCHA_CHECK(t.dtype() == src.dtype(), "set", "cannot make a ", tensor_type_name(t),
              " view a ", tensor_type_name(src));
  if (t.is_same(src)) return;
  t.impl()->set_storage(src.storage());
  t.impl()->set_geometry(src.sizes(), src.strides(), src.storage_offset());
}

Tensor view_as_shape(const Tensor& t, const DimVec& sizes) {
  TOCHA_ASSERT(t.is_contiguous());
  TOCHA_ASSERT(shape_numel(sizes) == t.numel());
  return alias_with(t, sizes, contiguous_strides(sizes), t.storage_offset());
}

void copy_across_devices(const Tensor& dst, const Tensor& src) {
  // Stage through contiguous tensors of dst's dtype; the byte copy is the device's own.
  Tensor s = contiguous(to_dtype(src.is_cpu() ? src : src, dst.dtype()));
  const DeviceAllocator* a = device_allocator(dst.is_cpu() ? src.device().type : dst.device().type);
  TOCHA_CHECK(a && a->copy, "copy", "cannot copy from ", src.device().str(), " to ", dst.device().str());
  if (dst.is_contiguous()) {
    a->copy(dst.raw_data(), dst.device(), s.raw_data(), s.device(), size_t(s.numel()) * s.elsize());
  } else {
    Tensor staged = empty(dst.sizes(), dst.dtype(), dst.device());
    a->copy(staged.raw_data(), staged.device(), s.raw_data(), s.device(), size_t(s.numel()) * s.elsize());
    copy_(dst, staged);
  }
  dst.bump_version();
}

static int64_t linear_to_offset(const Tensor& t, int64_t linear) {
  int64_t off = 0;
  for (int d = t.dim() - 1; d >= 0; --d) {
    int64_t i = linear % t.size(d);
    linear /= t.size(d);
    off += i * t.stride(d);
  }
  return off;
}

double item_at(const Tensor& t, int64_t linear) {
  TOCHA_CHECK(linear >= 0 && linear < t.numel(), "item", "index ", linear + 1, " out of range for a tensor with ",
              t.numel(), " elements");
  Tensor src = t;
  int64_t off = linear_to_offset(t, linear);
  if (!t.is_cpu()) {
    src = empty(DimVec{}, t.dtype(), Device{});
    copy_(src, alias_with(t, DimVec{}, DimVec{}, t.storage_offset() + off));
    off = 0;
  }
  const char* p = static_cast<const char*>(src.raw_data()) + off * int64_t(src.elsize());
  return visit_dtype(src.dtype(), [&](auto tag) -> double {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, p, sizeof(T));
    return double(opmath_t<T>(v));
  });
}

void set_item_at(const Tensor& t, int64_t linear, double v) {
  TOCHA_CHECK(linear >= 0 && linear < t.numel(), "set", "index ", linear + 1, " out of range for a tensor with ",
              t.numel(), " elements");
  int64_t off = linear_to_offset(t, linear);
  fill_(alias_with(t, DimVec{}, DimVec{}, t.storage_offset() + off), v);
}

bool any_true(const Tensor& t) {
  Tensor c = contiguous(to_dtype(t.is_cpu() ? t : t, DType::b8));
  if (!c.is_cpu()) c = [&] { Tensor h = empty(c.sizes(), DType::b8); copy_(h, c); return h; }();
  const uint8_t* p = c.data<uint8_t>();
  for (int64_t i = 0; i < c.numel(); ++i)
    if (p[i]) return true;
  return false;
}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  return !any_true(binary(OpId::ne, a, b));
}

}  // namespace tocha
