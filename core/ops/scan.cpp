// Front-ends of cumsum, cumprod and cross: dim checks, result dtype, kernel dispatch. See scan.h.
#include "core/ops/scan.h"
#include "core/kernel_registry.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce_iter.h"

namespace tocha {

namespace {

Tensor scan_impl(OpId op, const Tensor* out, const Tensor& a, int64_t dim) {
  const char* name = op_name(op);
  uint32_t mask = dim_mask(a, dim, name);
  auto kernel = kernel_for<ReduceKernel>(op, a.device().type, a.dtype());
  DType rt = is_floating(a.dtype()) ? a.dtype() : DType::i64;
  Tensor target = prepare_out(name, out, a.sizes(), rt, a);
  ReduceIter it = make_reduce_iter(a, {&target}, mask);
  kernel(it);
  finish_out(out, target);
  return out ? *out : target;
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
  auto kernel = kernel_for<ReduceKernel>(OpId::cross, a.device().type, dt);
  Tensor x = to_dtype(a, dt), y = to_dtype(b, dt);
  Tensor target = prepare_out("cross", out, a.sizes(), dt, a, &b);
  ReduceIter it = make_reduce_iter(x, {&target, &y}, 1u << d);
  kernel(it);
  finish_out(out, target);
  return out ? *out : target;
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
