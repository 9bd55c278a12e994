// Copy, fill and dtype conversion front-ends (copy_, fill_, to_dtype, contiguous, clone): the
// pointwise copy/fill kernels through a PointwiseIter, Torch7's same-element-count copy rule, and
// how each is recorded for autograd. Split from pointwise.cpp, which owns the math families.
#include "core/autograd/grad_mode.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/pointwise_iter.h"

namespace tocha {

using autograd::GradModeGuard;

static void copy_raw(const Tensor& dst, const Tensor& src) {
  DimVec shape;
  Tensor s = src;
  if (!broadcast_shapes(dst.sizes(), src.sizes(), &shape) || shape != dst.sizes()) {
    TOCHA_CHECK(dst.numel() == src.numel(), "copy", "cannot copy a tensor of size ", shape_str(src.sizes()),
                " into one of size ", shape_str(dst.sizes()));
    s = view_as_shape(contiguous(src), dst.sizes());  // Torch7: same number of elements suffices
  }
  check_writable("copy", dst);
  if (dst.device() != src.device()) {
    copy_across_devices(dst, s);
    return;
  }
  if (needs_temporary(dst, s)) s = clone(s);
  auto kernel = kernel_for<PointwiseKernel>(OpId::copy, dst.device().type, dst.dtype());
  PointwiseIter it;
  it.set_output(dst);
  it.add_input(s);
  it.src_dtype = s.dtype();
  it.finish();
  kernel(it);
  dst.bump_version();
}

void copy_(const Tensor& dst, const Tensor& src) {
  bool rec = autograd::prepare_in_place("copy", dst, {&src});
  {
    GradModeGuard off(false);
    copy_raw(dst, src);
  }
  if (!rec) return;
  // The old values of dst get no gradient; src gets dst's (summed back if it was broadcast).
  Tensor src_view = src;
  if (src.numel() == dst.numel() && src.sizes() != dst.sizes()) {
    DimVec shape;
    if (!broadcast_shapes(dst.sizes(), src.sizes(), &shape) || shape != dst.sizes()) src_view = reshape(src, dst.sizes());
  }
  autograd::record(OpId::copy, {&dst, &src_view}, {&dst});
}

void fill_(const Tensor& dst, double v) {
  // The new values do not depend on anything: the history goes (Note [Fills drop history]).
  autograd::FillGuard history("fill", dst);
  check_writable("fill", dst);
  auto kernel = kernel_for<PointwiseKernel>(OpId::fill, dst.device().type, dst.dtype());
  PointwiseIter it;
  it.set_output(dst);
  it.add_scalar(v, dst.dtype());
  it.finish();
  kernel(it);
  dst.bump_version();
}

Tensor to_dtype(const Tensor& a, DType dt) {
  if (a.dtype() == dt) return a;
  Tensor r = empty(a.sizes(), dt, a.device());
  {
    GradModeGuard off(false);
    copy_raw(r, a);
  }
  if (autograd::needs_record(a) && is_floating(dt)) autograd::record(OpId::copy, {&a}, {&r});
  return r;
}

Tensor contiguous(const Tensor& a) { return a.is_contiguous() ? a : clone(a); }

Tensor clone(const Tensor& a) {
  Tensor r = empty(a.sizes(), a.dtype(), a.device());
  {
    GradModeGuard off(false);
    copy_raw(r, a);
  }
  if (autograd::needs_record(a)) autograd::record(OpId::copy, {&a}, {&r});
  return r;
}

}  // namespace tocha
