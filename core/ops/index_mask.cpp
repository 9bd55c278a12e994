// maskedFill / maskedCopy / maskedSelect / nonzero front-ends. The last three run the two-pass
// scan of Note [Mask scan]. See index_mask.h.
#include "core/ops/index_mask.h"
#include "core/type_name.h"
#include "core/autograd/record.h"
#include <algorithm>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/index_geometry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {

namespace {

// Chunks of the mask scan: large enough to amortize a chunk's setup, small enough to balance.
constexpr int64_t kMinChunk = int64_t(1) << 15;

// mask seen with self's shape: broadcast (PyTorch) or, failing that, the same element count (Torch7).
Tensor mask_like(const char* op, const Tensor& mask, const Tensor& self) {
  check_mask(op, mask, self);
  DimVec shape;
  if (broadcast_shapes(self.sizes(), mask.sizes(), &shape) && shape == self.sizes()) return expand(mask, shape);
  TOCHA_CHECK(mask.numel() == self.numel(), op, "mask of size ", shape_str(mask.sizes()),
              " does not broadcast to the tensor's size ", shape_str(self.sizes()),
              " and has a different number of elements (", mask.numel(), " vs ", self.numel(), ")");
  return view_as_shape(contiguous(mask), self.sizes());
}

// The count pass over operand 0 of it (whose dtype is dt): sets up scan's chunks, turns the
// counts into each chunk's first place (one more entry: the total, the last chunk's end) and
// returns the number of true elements.
int64_t count_pass(const PointwiseIter& it, DType dt, Device dev, MaskScan* scan, std::vector<int64_t>* counts) {
  scan->chunk = std::max(kMinChunk, (it.numel + 65535) / 65536);
  scan->nchunks = (it.numel + scan->chunk - 1) / scan->chunk;
  counts->assign(size_t(scan->nchunks + 1), 0);
  scan->counts = counts->data();
  scan->count_only = true;
  kernel_for<MaskKernel>(OpId::nonzero, dev.type, dt)(it, *scan);
  int64_t total = 0;
  for (int64_t& c : *counts) {
    int64_t n = c;
    c = total;
    total += n;
  }
  scan->count_only = false;
  return total;
}

// The result tensor of an op with an optional `out`: out itself when it can be written directly.
Tensor result_target(const char* op, const Tensor* out, const DimVec& shape, DType dt, Device dev,
                     const Tensor& in1, const Tensor& in2) {
  if (out) {
    check_same_device(op, *out, in1);
    TOCHA_CHECK(can_cast(dt, out->dtype()), op, "result of type ", dtype_tensor_name(dt), " cannot be written into a ",
                dtype_tensor_name(out->dtype()));
    if (out->dtype() == dt && !out->shares_storage(in1) && !out->shares_storage(in2)) {
      resize_(*out, shape);
      if (out->is_contiguous()) return *out;
    }
  }
  return empty(shape, dt, dev);
}

void finish_out(const Tensor* out, const Tensor& target) {
  if (target.is_same(*out)) {
    out->bump_version();
  } else {
    resize_(*out, target.sizes());
    copy_(*out, target);
  }
}

Tensor masked_select_compute(const Tensor* out, const Tensor& self, const Tensor& mask_) {
  const char* op = "maskedSelect";
  check_mask(op, mask_, self);
  DimVec shape;
  Tensor mask = mask_, src = self;
  if (broadcast_shapes(self.sizes(), mask.sizes(), &shape)) {
    mask = expand(mask, shape);
    src = expand(self, shape);
  } else {
    mask = mask_like(op, mask, self);
    shape = self.sizes();
  }
  Tensor target;
  if (shape_numel(shape) == 0) {
    target = result_target(op, out, DimVec{0}, self.dtype(), self.device(), self, mask_);
  } else {
    PointwiseIter it;
    it.set_output(mask);
    it.add_input(src);
    it.finish();
    MaskScan scan;
    std::vector<int64_t> counts;
    int64_t total = count_pass(it, mask.dtype(), self.device(), &scan, &counts);
    target = result_target(op, out, DimVec{total}, self.dtype(), self.device(), self, mask_);
    scan.flat = static_cast<char*>(target.raw_data());
    kernel_for<MaskKernel>(OpId::maskedSelect, self.device().type, self.dtype())(it, scan);
  }
  if (!out) return target;
  finish_out(out, target);
  return *out;
}

Tensor nonzero_impl(const Tensor* out, const Tensor& x, int64_t base) {
  const char* op = "nonzero";
  if (out)
    TOCHA_CHECK(out->dtype() == DType::i64, op, "result must be a torch.LongTensor, got a ",
                dtype_tensor_name(out->dtype()));
  const int64_t nd = x.dim();
  Tensor target;
  if (x.numel() == 0) {
    target = result_target(op, out, DimVec{0, nd}, DType::i64, x.device(), x, x);
  } else {
    PointwiseIter it;
    it.set_output(x);
    it.finish();
    MaskScan scan;
    std::vector<int64_t> counts;
    int64_t total = count_pass(it, x.dtype(), x.device(), &scan, &counts);
    target = result_target(op, out, DimVec{total, nd}, DType::i64, x.device(), x, x);
    scan.flat = static_cast<char*>(target.raw_data());
    scan.index_base = base;
    scan.ndim = int(nd);
    for (int d = 0; d < nd; ++d) scan.shape[d] = x.size(d);
    kernel_for<MaskKernel>(OpId::nonzero, x.device().type, x.dtype())(it, scan);
  }
  if (!out) return target;
  finish_out(out, target);
  return *out;
}

}  // namespace

static void masked_fill_compute(const Tensor& self, const Tensor& mask_, double value) {
  const char* op = "maskedFill";
  check_writable(op, self);
  Tensor mask = mask_like(op, mask_, self);
  if (self.numel() == 0) return;
  if (needs_temporary(self, mask)) mask = clone(mask);
  PointwiseIter it;
  it.set_output(self);
  it.add_input(mask);
  it.add_scalar(value, self.dtype());
  it.finish();
  kernel_for<PointwiseKernel>(OpId::maskedFill, self.device().type, self.dtype())(it);
  self.bump_version();
}
// Records mask ops (Note [Recording an op]); the mask is saved for the formula.
static void save_mask(const std::shared_ptr<Node>& n, const Tensor& mask) {
  if (n) n->save(mask);
}

void masked_fill_(const Tensor& self, const Tensor& mask, double value) {
  autograd::Recording rec(OpId::maskedFill, &self, {&self});
  masked_fill_compute(self, mask, value);
  save_mask(rec.finish({&self}, {&self}), mask);
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, double value) {
  Tensor r = clone(self);
  masked_fill_(r, mask, value);
  return r;
}

static void masked_copy_compute(const Tensor& self, const Tensor& mask_, const Tensor& src) {
  const char* op = "maskedCopy";
  check_writable(op, self);
  check_same_device(op, self, src);
  Tensor mask = mask_like(op, mask_, self);
  TOCHA_CHECK(can_cast(src.dtype(), self.dtype()), op, "cannot write a ", tensor_type_name(src), " into a ",
              tensor_type_name(self));
  if (self.numel() == 0) return;
  if (mask.shares_storage(self)) mask = clone(mask);
  PointwiseIter it;
  it.set_output(mask);
  it.add_input(self);
  it.finish();
  MaskScan scan;
  std::vector<int64_t> counts;
  int64_t total = count_pass(it, mask.dtype(), self.device(), &scan, &counts);
  TOCHA_CHECK(src.numel() >= total, op, "mask has ", total, " true elements but src has only ", src.numel(),
              " (size ", shape_str(src.sizes()), ")");
  Tensor s = contiguous(to_dtype(src, self.dtype()));
  if (s.shares_storage(self)) s = clone(s);
  scan.flat = static_cast<char*>(s.raw_data());
  kernel_for<MaskKernel>(OpId::maskedCopy, self.device().type, self.dtype())(it, scan);
  self.bump_version();
}
void masked_copy_(const Tensor& self, const Tensor& mask, const Tensor& src) {
  autograd::Recording rec(OpId::maskedCopy, &self, {&self, &src});
  masked_copy_compute(self, mask, src);
  save_mask(rec.finish({&self, &src}, {&self}), mask);
}

Tensor masked_copy(const Tensor& self, const Tensor& mask, const Tensor& src) {
  Tensor r = clone(self);
  masked_copy_(r, mask, src);
  return r;
}

static Tensor masked_select_impl(const Tensor* out, const Tensor& self, const Tensor& mask) {
  autograd::Recording rec(OpId::maskedSelect, out, {&self});
  Tensor r = masked_select_compute(out, self, mask);
  save_mask(rec.finish({&self}, {&r}), mask);
  return r;
}

Tensor masked_select(const Tensor& self, const Tensor& mask) { return masked_select_impl(nullptr, self, mask); }
void masked_select_out(const Tensor& out, const Tensor& self, const Tensor& mask) {
  masked_select_impl(&out, self, mask);
}

Tensor nonzero(const Tensor& x, int64_t base) { return nonzero_impl(nullptr, x, base); }
void nonzero_out(const Tensor& out, const Tensor& x, int64_t base) { nonzero_impl(&out, x, base); }

}  // namespace tocha
