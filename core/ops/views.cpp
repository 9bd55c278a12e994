// View front-ends. See views.h.
#include "core/ops/views.h"
#include "core/autograd/record.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

namespace {
// Records view op `op` from t to r with integer attributes (see formulas/views.cpp).
Tensor recorded(OpId op, const Tensor& t, Tensor r, int64_t i0 = 0, int64_t i1 = 0, int64_t i2 = 0,
                const DimVec* shape = nullptr) {
  if (autograd::needs_record(t)) {
    auto node = autograd::record(op, {&t}, {&r});
    node->attrs.i[0] = i0;
    node->attrs.i[1] = i1;
    node->attrs.i[2] = i2;
    if (shape) node->attrs.shape = *shape;
  }
  return r;
}
}  // namespace

Tensor narrow(const Tensor& t, int64_t dim_, int64_t start, int64_t length) {
  TOCHA_CHECK(t.dim() > 0, "narrow", "cannot narrow a 0-dim tensor");
  int d = wrap_dim(dim_, t.dim(), "narrow");
  int64_t n = t.size(d);
  if (start < 0) start += n;
  TOCHA_CHECK(start >= 0 && length >= 0 && start + length <= n, "narrow", "slice of ", length,
              " elements from index ", start + 1, " is out of range for dimension ", d + 1, " of size ", n,
              " (tensor of size ", shape_str(t.sizes()), ")");
  DimVec sizes = t.sizes();
  sizes[d] = length;
  return recorded(OpId::narrow, t, alias_with(t, sizes, t.strides(), t.storage_offset() + start * t.stride(d)), d, start);
}

Tensor select(const Tensor& t, int64_t dim_, int64_t index) {
  TOCHA_CHECK(t.dim() > 0, "select", "cannot select on a 0-dim tensor");
  int d = wrap_dim(dim_, t.dim(), "select");
  int64_t n = t.size(d);
  if (index < 0) index += n;
  TOCHA_CHECK(index >= 0 && index < n, "select", "index ", index + 1, " is out of range for dimension ", d + 1,
              " of size ", n, " (tensor of size ", shape_str(t.sizes()), ")");
  DimVec sizes = t.sizes(), strides = t.strides();
  int64_t offset = t.storage_offset() + index * t.stride(d);
  sizes.erase(d);
  strides.erase(d);
  return recorded(OpId::select, t, alias_with(t, sizes, strides, offset), d, index);
}

Tensor transpose(const Tensor& t, int64_t d1_, int64_t d2_) {
  if (t.dim() == 0) return alias_with(t, t.sizes(), t.strides(), t.storage_offset());
  int d1 = wrap_dim(d1_, t.dim(), "transpose"), d2 = wrap_dim(d2_, t.dim(), "transpose");
  DimVec sizes = t.sizes(), strides = t.strides();
  std::swap(sizes[d1], sizes[d2]);
  std::swap(strides[d1], strides[d2]);
  return recorded(OpId::transpose, t, alias_with(t, sizes, strides, t.storage_offset()), d1, d2);
}

Tensor permute(const Tensor& t, const DimVec& dims) {
  TOCHA_CHECK(dims.size() == t.dim(), "permute", "got ", dims.size(), " dims for a ", t.dim(), "D tensor");
  DimVec sizes, strides, perm;
  bool seen[kMaxDims] = {};
  for (int i = 0; i < dims.size(); ++i) {
    int d = wrap_dim(dims[i], t.dim(), "permute");
    TOCHA_CHECK(!seen[d], "permute", "dimension ", d + 1, " appears twice");
    seen[d] = true;
    sizes.push_back(t.size(d));
    strides.push_back(t.stride(d));
    perm.push_back(d);
  }
  return recorded(OpId::permute, t, alias_with(t, sizes, strides, t.storage_offset()), 0, 0, 0, &perm);
}

DimVec infer_size(const char* op, const DimVec& sizes, int64_t numel) {
  DimVec r = sizes;
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < r.size(); ++i) {
    if (r[i] == -1) {
      TOCHA_CHECK(infer < 0, op, "only one dimension can be -1, got size ", shape_str(sizes));
      infer = i;
    } else {
      TOCHA_CHECK(r[i] >= 0, op, "invalid size ", r[i], " in ", shape_str(sizes));
      // A product past int64 cannot match any tensor's element count (and must not overflow).
      TOCHA_CHECK(r[i] == 0 || known <= INT64_MAX / r[i], op, "cannot view a tensor of ", numel,
                  " elements as size ", shape_str(sizes));
      known *= r[i];
    }
  }
  if (infer >= 0) {
    TOCHA_CHECK(known != 0 && numel % known == 0, op, "cannot view ", numel, " elements as size ", shape_str(sizes));
    r[infer] = numel / known;
  }
  TOCHA_CHECK(shape_numel(r, op) == numel, op, "cannot view a tensor of ", numel, " elements as size ",
              shape_str(r));
  return r;
}

bool view_strides(const DimVec& old_sizes, const DimVec& old_strides, const DimVec& sizes, DimVec* out) {
  int64_t numel = shape_numel(old_sizes);
  if (numel == 0 || old_sizes.empty()) {
    *out = contiguous_strides(sizes);
    return true;
  }
  // Walk chunks of old dims that are contiguous among themselves, matching new dims to them.
  DimVec st = DimVec::filled(sizes.size(), 0);
  int view_d = sizes.size() - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int d = old_sizes.size() - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
        st[view_d] = view_numel * chunk_base_stride;
        view_numel *= sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return false;
  *out = st;
  return true;
}

Tensor view(const Tensor& t, const DimVec& sizes_) {
  DimVec sizes = infer_size("view", sizes_, t.numel());
  DimVec st;
  TOCHA_CHECK(view_strides(t.sizes(), t.strides(), sizes, &st), "view", "cannot view a non-contiguous tensor of size ",
              shape_str(t.sizes()), " as ", shape_str(sizes), "; call contiguous() first or use reshape");
  return recorded(OpId::view, t, alias_with(t, sizes, st, t.storage_offset()));
}

Tensor reshape(const Tensor& t, const DimVec& sizes_) {
  DimVec sizes = infer_size("reshape", sizes_, t.numel());
  DimVec st;
  if (view_strides(t.sizes(), t.strides(), sizes, &st))
    return recorded(OpId::view, t, alias_with(t, sizes, st, t.storage_offset()));
  Tensor c = clone(t);
  return recorded(OpId::view, c, alias_with(c, sizes, contiguous_strides(sizes), 0));
}

Tensor expand(const Tensor& t, const DimVec& sizes_) {
  TOCHA_CHECK(sizes_.size() >= t.dim(), "expand", "cannot expand a tensor of size ", shape_str(t.sizes()),
              " to fewer dimensions (", shape_str(sizes_), ")");
  int off = sizes_.size() - t.dim();
  DimVec sizes = sizes_, strides = DimVec::filled(sizes_.size(), 0);
  for (int i = 0; i < sizes.size(); ++i) {
    int j = i - off;
    if (j < 0) {
      TOCHA_CHECK(sizes[i] >= 0, "expand", "size ", sizes[i], " is not allowed for a new leading dimension (",
                  shape_str(sizes_), ")");
      continue;
    }
    TOCHA_CHECK(sizes[i] >= -1, "expand", "size ", sizes[i], " is not allowed (-1 keeps a dimension; expanding to ",
                shape_str(sizes_), ")");
    if (sizes[i] == -1) sizes[i] = t.size(j);
    if (t.size(j) == sizes[i]) {
      strides[i] = t.stride(j);
    } else {
      TOCHA_CHECK(t.size(j) == 1, "expand", "cannot expand dimension ", j + 1, " of size ", t.size(j), " to ",
                  sizes[i], " (tensor of size ", shape_str(t.sizes()), " to ", shape_str(sizes_), ")");
      strides[i] = 0;
    }
  }
  return recorded(OpId::expand, t, alias_with(t, sizes, strides, t.storage_offset()));
}

Tensor unfold(const Tensor& t, int64_t dim_, int64_t size, int64_t step) {
  int d = wrap_dim(dim_, t.dim(), "unfold");
  int64_t n = t.dim() == 0 ? 1 : t.size(d);
  TOCHA_CHECK(size >= 0 && size <= n, "unfold", "slice size ", size, " exceeds dimension ", d + 1, " of size ", n);
  TOCHA_CHECK(step > 0, "unfold", "step must be positive, got ", step);
  // a 0-dim tensor gives its one slice alone: size [size], as PyTorch's (it was 1 x size)
  if (t.dim() == 0) return recorded(OpId::unfold, t, alias_with(t, DimVec{size}, DimVec{1}, t.storage_offset()), d, size, step);
  DimVec sizes = t.sizes(), strides = t.strides();
  sizes[d] = (n - size) / step + 1;
  int64_t st = t.dim() == 0 ? 1 : t.stride(d);
  strides[d] = st * step;
  sizes.push_back(size);
  strides.push_back(st);
  return recorded(OpId::unfold, t, alias_with(t, sizes, strides, t.storage_offset()), d, size, step);
}

Tensor squeeze(const Tensor& t) {
  DimVec sizes, strides;
  for (int d = 0; d < t.dim(); ++d)
    if (t.size(d) != 1) { sizes.push_back(t.size(d)); strides.push_back(t.stride(d)); }
  return recorded(OpId::view, t, alias_with(t, sizes, strides, t.storage_offset()));
}

Tensor squeeze(const Tensor& t, int64_t dim_) {
  if (t.dim() == 0) return alias_with(t, t.sizes(), t.strides(), t.storage_offset());
  int d = wrap_dim(dim_, t.dim(), "squeeze");
  DimVec sizes = t.sizes(), strides = t.strides();
  if (sizes[d] == 1) { sizes.erase(d); strides.erase(d); }
  return recorded(OpId::view, t, alias_with(t, sizes, strides, t.storage_offset()));
}

Tensor unsqueeze(const Tensor& t, int64_t dim_) {
  int d = wrap_dim(dim_, t.dim() + 1, "unsqueeze");
  DimVec sizes = t.sizes(), strides = t.strides();
  int64_t st = d < t.dim() ? t.size(d) * t.stride(d) : 1;
  sizes.insert(d, 1);
  strides.insert(d, st);
  return recorded(OpId::view, t, alias_with(t, sizes, strides, t.storage_offset()));
}

Tensor as_strided(const Tensor& t, const DimVec& sizes, const DimVec& strides, int64_t offset) {
  Tensor r = alias_with(t, DimVec{}, DimVec{}, 0);
  try {
    set_storage_(r, t.storage(), offset, sizes, strides);
  } catch (const OutOfMemory&) {
    throw;
  } catch (const Error& e) {  // its checks name "set": the user called asStrided
    std::string msg = e.what();
    if (msg.rfind("[set] ", 0) == 0) msg = msg.substr(6);
    fail("asStrided", msg);
  }
  if (autograd::needs_record(t)) {
    auto node = autograd::record(OpId::asStrided, {&t}, {&r});
    node->attrs.shape = sizes;
    node->attrs.shape2 = strides;
    node->attrs.i[0] = offset;
    node->attrs.i[1] = t.storage_offset();
    node->attrs.shape3 = t.strides();
  }
  return r;
}

}  // namespace tocha
