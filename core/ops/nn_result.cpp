// Result tensors and shared checks of the nn op front-ends; see nn_result.h.
#include "core/ops/nn_result.h"
#include "core/type_name.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

namespace tocha {

Tensor result_target(const char* op, const Tensor* out, const DimVec& shape, DType dt, const Tensor& in,
                     const Tensor* in2) {
  if (!out) return empty(shape, dt, in.device());
  check_same_device(op, *out, in);
  TOCHA_CHECK(out->dtype() == dt, op, "the result tensor is a ", dtype_tensor_name(out->dtype()), " but should be a ",
              dtype_tensor_name(dt));
  // Resizing a result that shares storage with an input could move the input: use a temporary.
  if (out->shares_storage(in) || (in2 && out->shares_storage(*in2))) return empty(shape, dt, in.device());
  resize_(*out, shape);
  if (!out->is_contiguous()) return empty(shape, dt, in.device());
  return *out;
}

Tensor result_finish(const Tensor* out, const Tensor& target) {
  if (!out) return target;
  if (!target.is_same(*out)) {
    resize_(*out, target.sizes());
    check_writable("copy", *out);
    copy_(*out, target);
  }
  out->bump_version();
  return *out;
}

void check_floating(const char* op, const Tensor& x) {
  TOCHA_CHECK(is_floating(x.dtype()), op, "expected a floating-point tensor, got a ", tensor_type_name(x));
}

void check_positive(const char* op, const char* what, int64_t v) {
  TOCHA_CHECK(v > 0, op, what, " must be positive, got ", v);
}

void check_rank(const char* op, const Tensor& x, int lo, const char* layout) {
  TOCHA_CHECK(x.dim() == lo || x.dim() == lo + 1, op, "expected a ", lo, "D or ", lo + 1, "D (", layout,
              ") tensor, got ", x.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(x.sizes()));
}

}  // namespace tocha
