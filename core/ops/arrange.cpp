// roll, tile, movedim, meshgrid and diff front-ends (see arrange.h): checks that name the op, then
// recorded primitives only, so autograd and every device come with them.
#include "core/ops/arrange.h"
#include "core/type_name.h"
#include "core/error.h"
#include "core/ops/join.h"
#include "core/ops/pointwise.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

namespace {

// x shifted by s places along d, through one cat of its two parts (a wrapped copy).
Tensor roll_dim(const Tensor& x, int64_t s, int d) {
  const int64_t n = x.size(d);
  if (n == 0) return x;
  s %= n;
  if (s < 0) s += n;
  if (s == 0) return x;
  return cat({narrow(x, d, n - s, s), narrow(x, d, 0, n - s)}, d);
}

}  // namespace

// Note [roll as cat]
// roll(x, s, d) is cat(x[n-s:], x[:n-s]) along d: one pass that writes every element once (cat
// copies strided parts straight into the result), recorded, so the gradient is the gradient
// rolled back and CUDA needs nothing of its own. Several dims take one pass each, as PyTorch's
// CPU roll does; dims may repeat (their shifts add up). No dims rolls the flattened tensor.
Tensor roll(const Tensor& x, const DimVec& shifts, const DimVec& dims) {
  const char* op = "roll";
  TOCHA_CHECK(shifts.size() > 0, op, "expected at least one shift");
  if (dims.empty()) {
    TOCHA_CHECK(shifts.size() == 1, op, "without dims, expected one shift, got ", shifts.size(), " shifts ",
                list_str(shifts, false));
    Tensor flat = reshape(x, DimVec{x.numel()});
    Tensor r = roll_dim(flat, shifts[0], 0);
    return r.is_same(flat) ? clone(x) : reshape(r, x.sizes());
  }
  TOCHA_CHECK(shifts.size() == dims.size(), op, "got ", shifts.size(), " shifts ", list_str(shifts, false), " but ",
              dims.size(), " dims ", list_str(dims, true), "; expected as many of each");
  int wrapped[kMaxDims];
  for (int i = 0; i < dims.size(); ++i) wrapped[i] = wrap_dim(dims[i], x.dim(), op);  // 0-dim: 0 / -1
  Tensor r = x;
  for (int i = 0; i < dims.size(); ++i) {
    if (x.dim() == 0) break;  // one element: nothing moves
    r = roll_dim(r, shifts[i], wrapped[i]);
  }
  return r.is_same(x) ? clone(x) : r;
}

// Note [tile as expand]
// tile views x as (1, s1, 1, s2, ...), expands that to (r1, s1, r2, s2, ...) and copies it
// contiguous as (r1*s1, r2*s2, ...), a recorded copy, so the gradient is the expand's (a sum over
// the repeats). Torch7's repeatTensor (lua/torch/views.lua) is this with its own count rule.
Tensor tile(const Tensor& x, const DimVec& reps) {
  const char* op = "tile";
  for (int i = 0; i < reps.size(); ++i)
    TOCHA_CHECK(reps[i] >= 0, op, "repetitions must not be negative, got ", list_str(reps, false));
  const int n = reps.size() > x.dim() ? reps.size() : x.dim();
  TOCHA_CHECK(2 * n <= kMaxDims, op, "at most ", kMaxDims / 2, " dims (tensor of size ",
              shape_str(x.sizes()), ", reps ", list_str(reps, false), ")");
  DimVec shape, full_reps, inter, src_inter, out;
  for (int i = 0; i < n; ++i) {
    const int xi = i - (n - x.dim()), ri = i - (n - reps.size());
    const int64_t s = xi >= 0 ? x.size(xi) : 1, r = ri >= 0 ? reps[ri] : 1;
    int64_t rs = 0;
    TOCHA_CHECK(!__builtin_mul_overflow(r, s, &rs), op, "repeating size ", s, " ", r,
                " times overflows 64 bits (tensor of size ", shape_str(x.sizes()), ", reps ", list_str(reps, false), ")");
    shape.push_back(s);
    src_inter.push_back(1);
    src_inter.push_back(s);
    inter.push_back(r);
    inter.push_back(s);
    out.push_back(rs);
  }
  if (n == 0) return clone(x);  // a 0-dim tensor and no reps
  shape_numel(out, op);         // an error naming tile when the result has too many elements
  Tensor v = reshape(reshape(x, shape), src_inter);
  return reshape(clone(expand(v, inter)), out);  // a copy even when every rep is 1
}

Tensor movedim(const Tensor& x, const DimVec& source, const DimVec& destination) {
  const char* op = "movedim";
  const int nd = x.dim();
  TOCHA_CHECK(source.size() == destination.size(), op, "source ", list_str(source, true), " and destination ",
              list_str(destination, true), " must have as many dims");
  int order[kMaxDims], src_seen[kMaxDims], dst_seen[kMaxDims];
  for (int i = 0; i < kMaxDims; ++i) order[i] = -1, src_seen[i] = 0, dst_seen[i] = 0;
  for (int i = 0; i < source.size(); ++i) {
    const int s = wrap_dim(source[i], nd, op), d = wrap_dim(destination[i], nd, op);
    TOCHA_CHECK(!src_seen[s], op, "dimension ", s + 1, " appears more than once in source ", list_str(source, true));
    TOCHA_CHECK(!dst_seen[d], op, "dimension ", d + 1, " appears more than once in destination ",
                list_str(destination, true));
    src_seen[s] = dst_seen[d] = 1;
    order[d] = s;
  }
  if (nd == 0) return permute(x, DimVec{});
  // The dims not moved keep their order in the places left free.
  int next = 0;
  for (int d = 0; d < nd; ++d) {
    if (order[d] >= 0) continue;
    while (src_seen[next]) ++next;
    order[d] = next++;
  }
  DimVec perm;
  for (int d = 0; d < nd; ++d) perm.push_back(order[d]);
  return permute(x, perm);
}

std::vector<Tensor> meshgrid(const std::vector<Tensor>& tensors, bool xy) {
  const char* op = "meshgrid";
  TOCHA_CHECK(!tensors.empty(), op, "expected at least one tensor");
  const int n = int(tensors.size());
  TOCHA_CHECK(n <= kMaxDims, op, "at most ", kMaxDims, " tensors, got ", n);
  DimVec shape;
  for (int i = 0; i < n; ++i) {
    const Tensor& t = tensors[size_t(i)];
    TOCHA_CHECK(t.dim() <= 1, op, "expected 0-dim or 1D tensors, got a tensor of size ", shape_str(t.sizes()),
                " as tensor ", i + 1);
    TOCHA_CHECK(t.dtype() == tensors[0].dtype(), op, "expected tensors of one type, got a ",
                tensor_type_name(tensors[0]), " (tensor 1) and a ", tensor_type_name(t),
                " (tensor ", i + 1, ")");
    check_same_device(op, tensors[0], t);
    shape.push_back(t.numel());
  }
  shape_numel(shape, op);  // n sizes can overflow int64: an error naming meshgrid, not expand
  // 'xy' (NumPy's Cartesian indexing): the first two tensors vary along dims 2 and 1.
  auto place = [&](int i) { return xy && n >= 2 && i < 2 ? 1 - i : i; };
  if (xy && n >= 2) std::swap(shape[0], shape[1]);
  std::vector<Tensor> r;
  r.reserve(size_t(n));
  for (int i = 0; i < n; ++i) {
    DimVec one = DimVec::filled(n, 1);
    one[place(i)] = tensors[size_t(i)].numel();
    r.push_back(expand(reshape(tensors[size_t(i)], one), shape));
  }
  return r;
}

Tensor diff(const Tensor& x, int64_t n, int64_t dim, const Tensor& prepend, const Tensor& append) {
  const char* op = "diff";
  TOCHA_CHECK(x.dim() > 0, op, "expected a tensor with at least one dimension, got a 0-dim tensor");
  TOCHA_CHECK(n >= 0, op, "order n must not be negative, got ", n);
  const int d = wrap_dim(dim, x.dim(), op);
  std::vector<Tensor> parts;
  for (const Tensor* p : {&prepend, &x, &append}) {
    if (!p->defined()) continue;
    const char* what = p == &prepend ? "prepend" : p == &append ? "append" : "x";
    check_same_device(op, x, *p);
    bool ok = p->dim() == x.dim();
    for (int k = 0; ok && k < x.dim(); ++k) ok = k == d || p->size(k) == x.size(k);
    TOCHA_CHECK(ok, op, what, " of size ", shape_str(p->sizes()), " does not fit x of size ", shape_str(x.sizes()),
                ": expected the same sizes except in dimension ", d + 1);
    parts.push_back(*p);
  }
  // n = 0 is x itself, prepend and append ignored (PyTorch and NumPy return the input there).
  if (n == 0) return clone(x);
  Tensor r = parts.size() > 1 ? cat(parts, d) : x;
  const bool is_bool = r.dtype() == DType::b8;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t m = r.size(d);
    if (m == 0) break;
    Tensor hi = narrow(r, d, 1, m - 1), lo = narrow(r, d, 0, m - 1);
    // PyTorch: bool has no subtraction; its difference is xor (ne), kept bool.
    r = is_bool ? to_dtype(binary(OpId::ne, hi, lo), DType::b8) : binary(OpId::csub, hi, lo);
  }
  return r.is_same(x) ? clone(x) : r.is_contiguous() ? r : contiguous(r);
}

}  // namespace tocha
