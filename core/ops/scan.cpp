// Front-ends of cumsum, cumprod and cross: dim checks, result dtype, kernel dispatch. See scan.h.
#include "core/ops/scan.h"
#include "core/autocast.h"
#include "core/autograd/record.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce_iter.h"

namespace tocha {

namespace {

Tensor scan_compute(OpId op, const Tensor* out, const Tensor& a, uint32_t mask) {
  const char* name = op_name(op);
  auto kernel = kernel_for<ReduceKernel>(op, a.device().type, a.dtype());
  DType rt = is_floating(a.dtype()) ? a.dtype() : DType::i64;
  Tensor target = prepare_out(name, out, a.sizes(), rt, a);
  ReduceIter it = make_reduce_iter(a, {&target}, mask);
  if (target.numel() > 0) kernel(it);  // a 0 x 2^40 cumsum along dim 1 would walk 2^40 empty slices
  finish_out(out, target);
  return out ? *out : target;
}

Tensor scan_impl(OpId op, const Tensor* out, const Tensor& a, int64_t dim) {
  if (!out && autocast::cuda_f32(op, a)) return scan_impl(op, out, autocast::to_f32(a), dim);  // Note [Autocast]
  uint32_t mask = dim_mask(a, dim, op_name(op));
  autograd::Recording rec(op, out, {&a});
  const Tensor ka = op == OpId::cumprod ? rec.keep(a) : a;  // Note [Results written into inputs]
  Tensor r = scan_compute(op, out, a, mask);
  if (auto n = rec.finish({&a}, {&r})) {
    int d = 0;
    while (d < kMaxDims && !(mask & (1u << d))) ++d;
    n->attrs.i[0] = d < kMaxDims ? d : 0;
    if (op == OpId::cumprod) {
      n->save(ka);
      n->save(r, true);
    }
  }
  return r;
}

Tensor cross_impl(const Tensor* out, const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  check_same_device("cross", a, b);
  TOCHA_CHECK(a.sizes() == b.sizes(), "cross", "inputs have sizes ", shape_str(a.sizes()), " and ",
              shape_str(b.sizes()), "; they must be equal");
  DType dt = promote_types(a.dtype(), b.dtype());
  TOCHA_CHECK(dt != DType::b8, "cross", "cannot take the cross product of torch.BoolTensors");
  int d = -1;
  if (dim) {
    d = wrap_dim(*dim, a.dim(), "cross");
    TOCHA_CHECK(a.dim() > 0 && a.size(d) == 3, "cross", "dimension ", d + 1, " has size ",
                a.dim() > 0 ? a.size(d) : 1, " but the cross product needs 3 (input size ", shape_str(a.sizes()), ")");
  } else {
    for (int i = 0; i < a.dim() && d < 0; ++i)
      if (a.size(i) == 3) d = i;
    TOCHA_CHECK(d >= 0, "cross", "no dimension of size 3 in a tensor of size ", shape_str(a.sizes()));
  }
  autograd::Recording rec(OpId::cross, out, {&a, &b});
  const Tensor ka = rec.keep(a), kb = rec.keep(b);  // Note [Results written into inputs]
  auto kernel = kernel_for<ReduceKernel>(OpId::cross, a.device().type, dt);
  Tensor x = to_dtype(a, dt), y = to_dtype(b, dt);
  Tensor target = prepare_out("cross", out, a.sizes(), dt, a, &b);
  ReduceIter it = make_reduce_iter(x, {&target, &y}, 1u << d);
  kernel(it);
  finish_out(out, target);
  Tensor r = out ? *out : target;
  if (auto n = rec.finish({&a, &b}, {&r})) {
    n->attrs.i[0] = d;
    n->save(ka);
    n->save(Tensor());
    n->save(kb);
  }
  return r;
}

}  // namespace

Tensor cumsum(const Tensor& a, int64_t dim) { return scan_impl(OpId::cumsum, nullptr, a, dim); }
void cumsum_out(const Tensor& out, const Tensor& a, int64_t dim) { scan_impl(OpId::cumsum, &out, a, dim); }
Tensor cumprod(const Tensor& a, int64_t dim) { return scan_impl(OpId::cumprod, nullptr, a, dim); }
void cumprod_out(const Tensor& out, const Tensor& a, int64_t dim) { scan_impl(OpId::cumprod, &out, a, dim); }
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) { return cross_impl(nullptr, a, b, dim); }
void cross_out(const Tensor& out, const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  cross_impl(&out, a, b, dim);
}

}  // namespace tocha
