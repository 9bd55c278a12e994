// Shared checks and operand preparation of the BLAS and LAPACK front-ends. See linalg_util.h.
#include "core/ops/linalg_util.h"
#include "core/type_name.h"
#include <cmath>

namespace tocha {
namespace linalg {

void check_dim(const char* op, const char* name, const Tensor& t, int ndim) {
  TOCHA_CHECK(t.dim() == ndim, op, name, " must be ", ndim, "D, got ",
              t.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(t.sizes()));
}

void check_same_type(const char* op, const char* na, const Tensor& a, const char* nb, const Tensor& b) {
  TOCHA_CHECK(a.dtype() == b.dtype(), op, na, " is a ", tensor_type_name(a), " but ", nb, " is a ",
              tensor_type_name(b));
  TOCHA_CHECK(a.device() == b.device(), op, na, " is on ", a.device().str(), " but ", nb, " is on ",
              b.device().str());
}

void check_multipliers(const char* op, DType dt, double beta, double alpha) {
  if (is_floating(dt)) return;
  TOCHA_CHECK(beta == std::floor(beta) && alpha == std::floor(alpha), op, "multipliers ", beta, " and ", alpha,
              " must be integers for a ", dtype_tensor_name(dt));
}

void check_blas_size(const char* op, int64_t v) {
  TOCHA_CHECK(v <= kBlasIntMax, op, "size ", v, " is larger than BLAS supports (", kBlasIntMax, ")");
}

void check_out(const char* op, const Tensor& out, DType dt, Device dev) {
  TOCHA_CHECK(out.dtype() == dt, op, "result is a ", tensor_type_name(out), " but the operands are ",
              dtype_tensor_name(dt), "s");
  TOCHA_CHECK(out.device() == dev, op, "result is on ", out.device().str(), " but the operands are on ",
              dev.str());
  check_writable(op, out);
}

bool blas_matrix_ok(const Tensor& t) {
  int d = t.dim();
  bool trans = false;
  int64_t ld = 0;
  return blas_layout(t.size(d - 2), t.size(d - 1), t.stride(d - 2), t.stride(d - 1), &trans, &ld);
}

Tensor blas_matrix(const Tensor& t) { return blas_matrix_ok(t) ? t : clone(t); }

Tensor blas_vector(const Tensor& t) { return blas_inc(t.size(0), t.stride(0)) ? t : clone(t); }

bool aliases_any(const Tensor& out, std::initializer_list<const Tensor*> operands) {
  for (const Tensor* t : operands)
    if (out.shares_storage(*t)) return true;
  return false;
}

}  // namespace linalg
}  // namespace tocha
