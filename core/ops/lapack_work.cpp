// The LAPACK front-ends' working matrices and checks (lapack_work.h).
#include "core/ops/lapack_work.h"
#include "core/type_name.h"
#include <algorithm>
#include "core/error.h"
#include "core/ops/linalg_util.h"
#include "core/ops/predicates.h"
#include "core/ops/reduce.h"
#include "core/ops/views.h"

namespace tocha {
namespace lapack_work {

Tensor ColMajor::view() const { return narrow(transpose(buf, 0, 1), 0, 0, rows); }

ColMajor col_major_empty(int64_t rows, int64_t cols, DType dt, Device dev, int64_t ld) {
  ColMajor c;
  c.rows = rows;
  c.cols = cols;
  c.ld = std::max<int64_t>({1, rows, ld});
  c.buf = empty(DimVec{cols, c.ld}, dt, dev);
  return c;
}

ColMajor col_major_copy(const Tensor& a, Device dev, int64_t ld) {
  ColMajor c = col_major_empty(a.size(0), a.size(1), a.dtype(), dev, ld);
  if (c.ld > c.rows) fill_(c.buf, 0);
  copy_(c.view(), a);
  return c;
}

void check_lapack_dtype(const char* op, const char* name, const Tensor& t) {
  TOCHA_CHECK(t.dtype() == DType::f32 || t.dtype() == DType::f64, op, name,
              " must be a torch.FloatTensor or torch.DoubleTensor, got a ", tensor_type_name(t));
}

void check_matrix(const char* op, const char* name, const Tensor& a, bool square) {
  linalg::check_dim(op, name, a, 2);
  check_lapack_dtype(op, name, a);
  if (square)
    TOCHA_CHECK(a.size(0) == a.size(1), op, name, " must be square, got ", shape_str(a.sizes()));
  linalg::check_blas_size(op, a.size(0));
  linalg::check_blas_size(op, a.size(1));
}

void check_info_args(const char* op, int info) {
  TOCHA_CHECK(info >= 0, op, "internal error: LAPACK rejected argument ", -info);
}

void check_finite_input(const char* op, const Tensor& a) {
  if (a.numel() == 0) return;
  TOCHA_CHECK(reduce_value(OpId::all, isfinite(a)) != 0, op,
              "the algorithm failed to converge because the input matrix contains non-finite values (NaN or inf)");
}

}  // namespace lapack_work
}  // namespace tocha
