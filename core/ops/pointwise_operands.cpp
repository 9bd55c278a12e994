// The operand rules every pointwise front-end applies (pointwise.h): one device, Torch7's
// same-count rule beside broadcasting, writable results, aliasing, and the result dtype of
// several tensors (Note [Type promotion] in core/dtype.h).
#include "core/ops/pointwise.h"
#include "core/error.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

void check_same_device(const char* op, const Tensor& a, const Tensor& b) {
  TOCHA_CHECK(a.device() == b.device(), op, "expected all tensors on the same device, got ",
              a.device().str(), " and ", b.device().str());
}

Tensor binary_operand(const char* op, const Tensor& a, const Tensor& b, DimVec* shape) {
  check_same_device(op, a, b);
  if (broadcast_shapes(a.sizes(), b.sizes(), shape)) return b;
  TOCHA_CHECK(a.numel() == b.numel(), op, "sizes ", shape_str(a.sizes()), " and ", shape_str(b.sizes()),
              " do not broadcast and have different numbers of elements (", a.numel(), " vs ", b.numel(), ")");
  *shape = a.sizes();
  return reshape(b, a.sizes());
}

void check_writable(const char* op, const Tensor& out) {
  for (int d = 0; d < out.dim(); ++d)
    TOCHA_CHECK(out.stride(d) != 0 || out.size(d) <= 1, op, "cannot write into a tensor whose elements "
                "overlap (an expanded tensor of size ", shape_str(out.sizes()), "); clone() it first");
}

bool needs_temporary(const Tensor& out, const Tensor& in) {
  if (!out.shares_storage(in)) return false;
  return !(out.raw_data() == in.raw_data() && out.sizes() == in.sizes() && out.strides() == in.strides());
}

DType result_dtype(std::initializer_list<const Tensor*> operands) {
  bool have_dims = false, have_zero = false;
  DType dims = DType::b8, zero = DType::b8;
  for (const Tensor* t : operands) {
    if (t->dim() == 0) {
      zero = have_zero ? promote_types(zero, t->dtype()) : t->dtype();
      have_zero = true;
    } else {
      dims = have_dims ? promote_types(dims, t->dtype()) : t->dtype();
      have_dims = true;
    }
  }
  if (!have_dims) return zero;
  if (!have_zero || dtype_category(zero) <= dtype_category(dims)) return dims;
  return promote_types(dims, zero);
}

}  // namespace tocha
