// unflatten, unbind, diagonal, broadcasting helpers, atleast_nd, hstack family, tensor_split, rot90
// and repeat_interleave (see shape_extra.h): checks that name the op, then recorded primitives.
#include "core/ops/shape_extra.h"
#include "core/type_name.h"
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/ops/flip.h"
#include "core/ops/index.h"
#include "core/ops/join.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

Tensor unflatten(const Tensor& x, int64_t dim, const DimVec& sizes) {
  const char* op = "unflatten";
  TOCHA_CHECK(x.dim() > 0, op, "expected a tensor with at least one dimension, got a 0-dim tensor");
  TOCHA_CHECK(sizes.size() > 0, op, "expected at least one size");
  const int d = wrap_dim(dim, x.dim(), op);
  TOCHA_CHECK(x.dim() - 1 + sizes.size() <= kMaxDims, op, "the result would have more than ", kMaxDims, " dims");
  int minus = 0;
  int64_t known = 1;
  for (int i = 0; i < sizes.size(); ++i) {
    TOCHA_CHECK(sizes[i] >= -1, op, "invalid size ", sizes[i], " in ", list_str(sizes, false));
    if (sizes[i] == -1) ++minus;
    else known *= sizes[i];
  }
  TOCHA_CHECK(minus <= 1, op, "only one size may be -1, got ", list_str(sizes, false));
  const int64_t n = x.size(d);
  TOCHA_CHECK(minus ? (known > 0 && n % known == 0) || (known == 0 && n == 0) : known == n, op, "sizes ",
              list_str(sizes, false), " do not multiply to ", n, ", the size of dimension ", d + 1, " (tensor of size ",
              shape_str(x.sizes()), ")");
  DimVec out;
  for (int k = 0; k < d; ++k) out.push_back(x.size(k));
  for (int i = 0; i < sizes.size(); ++i) out.push_back(sizes[i] == -1 ? (known ? n / known : 0) : sizes[i]);
  for (int k = d + 1; k < x.dim(); ++k) out.push_back(x.size(k));
  return reshape(x, out);
}

std::vector<Tensor> unbind(const Tensor& x, int64_t dim) {
  const char* op = "unbind";
  TOCHA_CHECK(x.dim() > 0, op, "expected a tensor with at least one dimension, got a 0-dim tensor");
  const int d = wrap_dim(dim, x.dim(), op);
  TOCHA_CHECK(x.size(d) <= (int64_t(1) << 24), op, "at most 2^24 slices, got ", x.size(d), " (dimension ", d + 1, ")");
  std::vector<Tensor> r;
  for (int64_t i = 0; i < x.size(d); ++i) r.push_back(select(x, d, i));
  return r;
}

namespace {

// Note [diagonal of an expanded tensor]
// as_strided's gradient takes x's elements as distinct, so through an expanded (stride-0) dim
// it came back multiplied by the expansion. Under autograd such dims go first: another dim is
// narrowed to one and the diagonal expanded back; an expanded dim1 or dim2 holds one value along
// it, so the diagonal reads along the other dim (narrow, permute and select, all exact).
bool has_expanded_dim(const Tensor& x) {
  for (int k = 0; k < x.dim(); ++k)
    if (x.stride(k) == 0 && x.size(k) > 1) return true;
  return false;
}

Tensor diagonal_of_expanded(const Tensor& x, int64_t offset, int d1, int d2, int64_t len) {
  DimVec out_sizes, perm;
  Tensor t = x;
  for (int k = 0; k < x.dim(); ++k) {
    if (k == d1 || k == d2) continue;
    out_sizes.push_back(x.size(k));
    perm.push_back(k);
    if (x.stride(k) == 0 && x.size(k) > 1) t = narrow(t, k, 0, 1);
  }
  out_sizes.push_back(len);
  perm.push_back(d1);
  perm.push_back(d2);
  const bool e1 = x.stride(d1) == 0 && x.size(d1) > 1, e2 = x.stride(d2) == 0 && x.size(d2) > 1;
  t = narrow(t, d1, e1 ? 0 : offset >= 0 ? 0 : -offset, e1 ? 1 : len);
  t = narrow(t, d2, e2 ? 0 : offset >= 0 ? offset : 0, e2 ? 1 : len);
  t = permute(t, perm);
  const int last = t.dim() - 1;
  Tensor r;
  if (!e1 && !e2) r = diagonal(t, 0, last - 1, last);
  else if (!e2) r = select(t, last - 1, 0);
  else if (!e1) r = select(t, last, 0);
  else r = unsqueeze(select(select(t, last, 0), last - 1, 0), last - 1);
  return expand(r, out_sizes);
}

}  // namespace

// Note [diagonal as as_strided]
// The diagonal is a view: the two dims go, a last dim of length max(0, min(n1, n2 - offset))
// (offset >= 0) comes, stepping stride1 + stride2 from the element (0, offset) or (-offset, 0).
// as_strided is recorded, so the gradient scatters back onto the diagonal.
Tensor diagonal(const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
  const char* op = "diagonal";
  TOCHA_CHECK(x.dim() >= 2, op, "expected a tensor with at least 2 dimensions, got a tensor of size ",
              shape_str(x.sizes()));
  const int d1 = wrap_dim(dim1, x.dim(), op), d2 = wrap_dim(dim2, x.dim(), op);
  TOCHA_CHECK(d1 != d2, op, "dims ", d1 + 1, " and ", d2 + 1, " are the same dimension; expected two different dims");
  const int64_t n1 = x.size(d1), n2 = x.size(d2);
  int64_t len = 0, start = x.storage_offset();
  if (offset >= 0) {
    len = offset < n2 ? std::min(n1, n2 - offset) : 0;
    if (len > 0) start += offset * x.stride(d2);
  } else {
    len = -offset < n1 ? std::min(n1 + offset, n2) : 0;
    if (len > 0) start -= offset * x.stride(d1);
  }
  if (len > 0 && autograd::needs_record({&x}) && has_expanded_dim(x))
    return diagonal_of_expanded(x, offset, d1, d2, len);
  DimVec sizes, strides;
  for (int k = 0; k < x.dim(); ++k) {
    if (k == d1 || k == d2) continue;
    sizes.push_back(x.size(k));
    strides.push_back(x.stride(k));
  }
  sizes.push_back(len);
  strides.push_back(x.stride(d1) + x.stride(d2));
  if (len == 0) start = x.storage_offset();
  return as_strided(x, sizes, strides, start);
}

DimVec broadcast_shape_list(const std::vector<DimVec>& shapes, const char* op) {
  DimVec r;
  for (size_t i = 0; i < shapes.size(); ++i) {
    DimVec next;
    TOCHA_CHECK(broadcast_shapes(r, shapes[i], &next), op, "shape ", shape_str(shapes[i]), " (argument ", i + 1,
                ") does not broadcast with ", shape_str(r));
    r = next;
  }
  return r;
}

Tensor broadcast_to(const Tensor& x, const DimVec& sizes) {
  const char* op = "broadcastTo";
  TOCHA_CHECK(sizes.size() >= x.dim(), op, "cannot broadcast a tensor of size ", shape_str(x.sizes()), " to ",
              shape_str(sizes), ": fewer dims");
  const int lead = sizes.size() - x.dim();
  for (int i = 0; i < sizes.size(); ++i) {
    const int k = i - lead;
    const bool ok = k < 0 ? sizes[i] >= 0 : sizes[i] == x.size(k) || x.size(k) == 1 || sizes[i] == -1;
    TOCHA_CHECK(ok, op, "cannot broadcast a tensor of size ", shape_str(x.sizes()), " to ", list_str(sizes, false));
  }
  return expand(x, sizes);
}

std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors) {
  std::vector<DimVec> shapes;
  for (const Tensor& t : tensors) shapes.push_back(t.sizes());
  const DimVec s = broadcast_shape_list(shapes, "broadcastTensors");
  std::vector<Tensor> r;
  for (const Tensor& t : tensors) r.push_back(expand(t, s));
  return r;
}

Tensor atleast_nd(const Tensor& x, int n) {
  if (x.dim() >= n) return x;  // PyTorch returns the input itself
  DimVec s;
  if (x.dim() == 0) {
    s = DimVec::filled(n, 1);
  } else if (x.dim() == 1) {
    s = n == 2 ? DimVec{1, x.size(0)} : DimVec{1, x.size(0), 1};
  } else {  // 2-D to 3-D
    s = DimVec{x.size(0), x.size(1), 1};
  }
  return reshape(x, s);
}

const char* stack_kind_name(char kind) {
  if (kind == 'h') return "hstack";
  if (kind == 'v') return "vstack";
  if (kind == 'r') return "rowStack";
  return kind == 'd' ? "dstack" : "columnStack";
}

Tensor stack_kind(const std::vector<Tensor>& tensors, char kind) {
  const char* op = stack_kind_name(kind);
  if (kind == 'r') kind = 'v';  // row_stack is vstack under its own name
  TOCHA_CHECK(!tensors.empty(), op, "expected at least one tensor");
  std::vector<Tensor> parts;
  for (const Tensor& t : tensors) {
    if (kind == 'h') parts.push_back(atleast_nd(t, 1));
    else if (kind == 'v') parts.push_back(atleast_nd(t, 2));
    else if (kind == 'd') parts.push_back(atleast_nd(t, 3));
    else parts.push_back(t.dim() <= 1 ? reshape(t, DimVec{t.numel(), 1}) : t);
  }
  int dim = kind == 'v' ? 0 : kind == 'd' ? 2 : 1;
  if (kind == 'h' && parts[0].dim() == 1) dim = 0;
  // cat skips 1D empty tensors (Torch7); stacking them must still check the others.
  for (size_t i = 1; i < parts.size(); ++i) {
    bool ok = parts[i].dim() == parts[0].dim();
    for (int k = 0; ok && k < parts[0].dim(); ++k) ok = k == dim || parts[i].size(k) == parts[0].size(k);
    TOCHA_CHECK(ok, op, "tensor ", i + 1, " of size ", shape_str(tensors[i].sizes()), " does not fit tensor 1 of size ",
                shape_str(tensors[0].sizes()), ": expected the same sizes except in dimension ", dim + 1);
  }
  return cat(parts, dim);
}

std::vector<Tensor> tensor_split_sections(const Tensor& x, int64_t sections, int64_t dim) {
  const char* op = "tensorSplit";
  TOCHA_CHECK(x.dim() > 0, op, "expected a tensor with at least one dimension, got a 0-dim tensor");
  TOCHA_CHECK(sections > 0, op, "number of sections must be positive, got ", sections);
  // More parts than elements are empty views; past 2^24 of them the result table is the problem.
  TOCHA_CHECK(sections <= (int64_t(1) << 24), op, "at most 2^24 sections, got ", sections);
  const int d = wrap_dim(dim, x.dim(), op);
  const int64_t n = x.size(d), q = n / sections, extra = n % sections;
  std::vector<Tensor> r;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = q + (i < extra ? 1 : 0);
    r.push_back(narrow(x, d, start, len));
    start += len;
  }
  return r;
}

std::vector<Tensor> tensor_split_indices(const Tensor& x, const DimVec& starts, int64_t dim) {
  const char* op = "tensorSplit";
  TOCHA_CHECK(x.dim() > 0, op, "expected a tensor with at least one dimension, got a 0-dim tensor");
  const int d = wrap_dim(dim, x.dim(), op);
  const int64_t n = x.size(d);
  auto clamp_pos = [n](int64_t p) { return p < 0 ? std::max<int64_t>(0, p + n) : std::min(p, n); };
  std::vector<Tensor> r;
  int64_t prev = 0;
  for (int i = 0; i <= starts.size(); ++i) {
    const int64_t p = i < starts.size() ? clamp_pos(starts[i]) : n;
    r.push_back(narrow(x, d, prev, std::max<int64_t>(0, p - prev)));
    prev = p;  // as Python slicing: a part ending before it starts is empty, the next starts at p
  }
  return r;
}

// Note [rot90]
// As PyTorch: k = 1 flips dims[1] then swaps the dims, k = 2 flips both, k = 3 flips dims[0] then
// swaps; k = 0 copies. Every path copies (flip does), so the result never aliases x.
Tensor rot90(const Tensor& x, int64_t k, const DimVec& dims) {
  const char* op = "rot90";
  TOCHA_CHECK(dims.size() == 2, op, "expected 2 dims, got ", dims.size(), " ", list_str(dims, true));
  TOCHA_CHECK(x.dim() >= 2, op, "expected a tensor with at least 2 dimensions, got a tensor of size ",
              shape_str(x.sizes()));
  const int d0 = wrap_dim(dims[0], x.dim(), op), d1 = wrap_dim(dims[1], x.dim(), op);
  TOCHA_CHECK(d0 != d1, op, "dims ", list_str(dims, true), " name the same dimension twice");
  k = ((k % 4) + 4) % 4;
  if (k == 1) return contiguous(transpose(flip(x, DimVec{d1}), d0, d1));
  if (k == 2) return flip(x, DimVec{d0, d1});
  if (k == 3) return contiguous(transpose(flip(x, DimVec{d0}), d0, d1));
  return clone(x);
}

namespace {

// repeats as a CPU int64 vector, checked (integer dtype, 1D or one element, no negatives).
Tensor checked_repeats(const char* op, const Tensor& repeats) {
  TOCHA_CHECK(repeats.dtype() == DType::i64 || repeats.dtype() == DType::i32 || repeats.dtype() == DType::u8, op,
              "repeats must be an integer tensor (LongTensor), got a ", tensor_type_name(repeats));
  TOCHA_CHECK(repeats.dim() <= 1, op, "repeats must be a number or a 1D tensor, got a tensor of size ",
              shape_str(repeats.sizes()));
  Tensor r = contiguous(to_dtype(to_device(repeats, Device{}), DType::i64));
  const int64_t* p = r.data<int64_t>();
  for (int64_t i = 0; i < r.numel(); ++i)
    TOCHA_CHECK(p[i] >= 0, op, "repeats must not be negative, got ", p[i], " at position ", i + 1);
  return reshape(r, DimVec{r.numel()});
}

Tensor interleave_index(const Tensor& reps, int64_t n, int64_t base, Device dev) {
  const int64_t* p = reps.data<int64_t>();
  const bool one = reps.numel() == 1;
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    TOCHA_CHECK(!__builtin_add_overflow(total, p[one ? 0 : i], &total), "repeatInterleave",
                "the total number of repeats overflows 64 bits");
  }
  Tensor idx = empty({total}, DType::i64);
  int64_t* q = idx.data<int64_t>();
  for (int64_t i = 0, k = 0; i < n; ++i)
    for (int64_t j = 0; j < p[one ? 0 : i]; ++j) q[k++] = i + base;
  return to_device(idx, dev);
}

}  // namespace

Tensor repeat_interleave(const Tensor& x_, const Tensor& repeats, bool has_dim, int64_t dim) {
  const char* op = "repeatInterleave";
  check_same_device(op, x_, repeats);
  Tensor reps = checked_repeats(op, repeats);
  Tensor x = has_dim ? x_ : reshape(x_, DimVec{x_.numel()});
  if (x.dim() == 0) x = reshape(x, DimVec{1});
  const int d = wrap_dim(dim, x.dim(), op);
  const int64_t n = x.size(d);
  TOCHA_CHECK(reps.numel() == 1 || reps.numel() == n, op, "repeats has ", reps.numel(), " elements but dimension ",
              d + 1, " has size ", n, "; expected one repeat count per slice, or one for all");
  return index_select(x, d, interleave_index(reps, n, 0, x.device()), 0);
}

// One count for every slice: x with a dim of size `repeats` inserted after d, expanded and merged
// into d, one copy (no index built on the host and moved to x's device, no gather).
Tensor repeat_interleave(const Tensor& x_, int64_t repeats, bool has_dim, int64_t dim) {
  const char* op = "repeatInterleave";
  TOCHA_CHECK(repeats >= 0, op, "repeats must not be negative, got ", repeats);
  Tensor x = has_dim ? x_ : reshape(x_, DimVec{x_.numel()});
  if (x.dim() == 0) x = reshape(x, DimVec{1});
  const int d = wrap_dim(dim, x.dim(), op);
  DimVec expanded = x.sizes(), out = x.sizes();
  expanded.insert(d + 1, repeats);
  TOCHA_CHECK(!__builtin_mul_overflow(out[d], repeats, &out[d]), op, "dimension ", d + 1,
              " of size ", x.size(d), " repeated ", repeats, " times overflows 64 bits");
  Tensor r = reshape(expand(unsqueeze(x, d + 1), expanded), out);
  return r.shares_storage(x_) ? clone(r) : r;  // repeats == 1 (or size-1 dims) reshape to a view
}

Tensor repeat_interleave_index(const Tensor& repeats, int64_t base) {
  const char* op = "repeatInterleave";
  TOCHA_CHECK(repeats.dim() == 1, op, "repeats alone must be a 1D tensor, got a tensor of size ",
              shape_str(repeats.sizes()));
  Tensor reps = checked_repeats(op, repeats);
  return interleave_index(reps, reps.numel(), base, repeats.device());
}

}  // namespace tocha
