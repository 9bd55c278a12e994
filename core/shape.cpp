// Shape helpers. See shape.h.
#include "core/shape.h"
#include <algorithm>

namespace tocha {

int64_t shape_numel(const DimVec& sizes, const char* op) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    TOCHA_CHECK(s >= 0, op, "invalid size ", s, " in shape ", shape_str(sizes));
    if (s != 0 && n > INT64_MAX / s) fail(op, "shape ", shape_str(sizes), " has too many elements");
    n *= s;
  }
  return n;
}

DimVec contiguous_strides(const DimVec& sizes) {
  DimVec st = DimVec::filled(sizes.size(), 1);
  int64_t acc = 1;
  for (int i = sizes.size() - 1; i >= 0; --i) {
    st[i] = acc;
    // Sizes with no elements (a 0 dim) may multiply past int64 (0 x 3 x 2^62): such strides only
    // saturate, since no element is ever addressed through them.
    if (__builtin_mul_overflow(acc, sizes[i] > 0 ? sizes[i] : 1, &acc)) acc = INT64_MAX;
  }
  return st;
}

std::string shape_str(const DimVec& sizes) {
  if (sizes.empty()) return "[] (a 0-dim tensor)";
  std::string s;
  for (int i = 0; i < sizes.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(sizes[i]);
  }
  return s;
}

std::string list_str(const DimVec& v, bool dims) {
  std::string s = "{";
  for (int i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims && v[i] >= 0 ? v[i] + 1 : v[i]);
  }
  return s + "}";
}

bool may_overlap(int ndim, const int64_t* sizes, const int64_t* strides) {
  int dims[kMaxDims], n = 0;
  for (int d = 0; d < ndim; ++d)
    if (sizes[d] > 1) dims[n++] = d;
  auto stride = [&](int d) { return strides[d] < 0 ? -strides[d] : strides[d]; };
  std::sort(dims, dims + n, [&](int a, int b) { return stride(a) < stride(b); });
  int64_t span = 0;  // the largest offset the dims so far reach
  for (int i = 0; i < n; ++i) {
    if (stride(dims[i]) <= span) return true;
    span += (sizes[dims[i]] - 1) * stride(dims[i]);
  }
  return false;
}

bool broadcast_shapes(const DimVec& a, const DimVec& b, DimVec* out) {
  int n = a.size() > b.size() ? a.size() : b.size();
  DimVec r = DimVec::filled(n, 1);
  for (int i = 0; i < n; ++i) {
    int ia = a.size() - n + i, ib = b.size() - n + i;
    int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
    if (sa == sb || sb == 1) r[i] = sa;
    else if (sa == 1) r[i] = sb;
    else return false;
  }
  *out = r;
  return true;
}

DimVec broadcast_strides(const DimVec& sizes, const DimVec& strides, const DimVec& to) {
  DimVec st = DimVec::filled(to.size(), 0);
  int off = to.size() - sizes.size();
  for (int i = 0; i < sizes.size(); ++i) st[off + i] = sizes[i] == 1 && to[off + i] != 1 ? 0 : strides[i];
  return st;
}

int wrap_dim(int64_t dim, int ndim, const char* op) {
  int64_t n = ndim > 0 ? ndim : 1;  // a 0-dim tensor accepts dim 0 / -1 like PyTorch
  if (dim < -n || dim >= n)
    fail(op, "dimension ", dim >= 0 ? dim + 1 : dim, " out of range for a ", ndim, "D tensor");
  return int(dim < 0 ? dim + n : dim);
}

}  // namespace tocha
