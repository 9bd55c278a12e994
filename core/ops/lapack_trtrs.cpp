// The triangular solve op (trtrs, see lapack.h): checks, one kernel call per matrix of the batch
// on working copies, the zero-diagonal error, and the autograd node (formula vjp_trtrs in
// core/autograd/formulas/linalg.cpp).
//
// Note [Triangular solves without copying A]: the kernels are column-major (lapack_kernels.h). A
// contiguous row-major A read column-major is A^T, whose triangle is the other one, so the kernel
// is asked for the other triangle and the other transpose: op(A) X = B is the same system. Only B
// is copied, into a column-major working block (its own storage, since the kernel writes X there).
#include <algorithm>
#include "core/autograd/record.h"
#include "core/type_name.h"
#include "core/kernel_registry.h"
#include "core/ops/lapack.h"
#include "core/ops/lapack_kernels.h"
#include "core/ops/linalg_util.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

namespace {

Tensor last2_transposed(const Tensor& t) { return transpose(t, t.dim() - 2, t.dim() - 1); }

void check_trtrs(const char* op, const Tensor& B, const Tensor& A) {
  TOCHA_CHECK(A.dim() >= 2, op, "A must be a matrix or a batch of them (..., n, n), got ",
              A.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(A.sizes()));
  TOCHA_CHECK(A.dtype() == DType::f32 || A.dtype() == DType::f64, op,
              "A must be a torch.FloatTensor or torch.DoubleTensor, got a ", tensor_type_name(A));
  const int64_t n = A.size(A.dim() - 1);
  TOCHA_CHECK(A.size(A.dim() - 2) == n, op, "A must be square in its last two dims, got size ", shape_str(A.sizes()));
  linalg::check_same_type(op, "A", A, "B", B);
  bool fits = B.dim() == A.dim() && B.size(B.dim() - 2) == n;
  for (int d = 0; fits && d + 2 < A.dim(); ++d) fits = B.size(d) == A.size(d);
  TOCHA_CHECK(fits, op, "A is ", shape_str(A.sizes()), " but B is ", shape_str(B.sizes()), " (B needs ", n,
              " rows and A's batch dims)");
  linalg::check_blas_size(op, n);
  linalg::check_blas_size(op, B.size(B.dim() - 1));
}

Tensor trtrs_compute(const char* op, const Tensor& B, const Tensor& A, bool upper, bool transpose, bool unit) {
  const int64_t n = A.size(A.dim() - 1), k = B.size(B.dim() - 1);
  const int64_t ld = std::max<int64_t>(1, n);
  Tensor a = contiguous(A);
  Tensor x = empty(last2_transposed(B).sizes(), B.dtype(), B.device());  // (..., k, n): column-major blocks
  copy_(x, last2_transposed(B));
  auto kernel = kernel_for<TrtrsKernel>(OpId::trtrs, A.device().type, A.dtype());
  const int64_t count = n == 0 ? 0 : a.numel() / (n * n);
  const size_t es = dtype_size(A.dtype());
  const char* ap = static_cast<const char*>(a.raw_data());
  char* xp = static_cast<char*>(x.raw_data());
  for (int64_t i = 0; i < count; ++i) {
    int info = kernel(!upper, !transpose, unit, n, k, ap + size_t(i * n * n) * es, ld, xp + size_t(i * k * n) * es, ld);
    TOCHA_CHECK(info >= 0, op, "internal error: LAPACK rejected argument ", -info);
    if (info > 0) {
      std::string which = count > 1 ? " of matrix " + std::to_string(i + 1) + " of the batch" : std::string();
      fail(op, "A is singular: its diagonal element (", info, ",", info, ")", which, " is zero");
    }
  }
  return contiguous(last2_transposed(x));
}

}  // namespace

Tensor trtrs(const Tensor& B, const Tensor& A, bool upper, bool transpose, bool unit) {
  const char* op = "trtrs";
  check_trtrs(op, B, A);
  autograd::Recording rec(OpId::trtrs, nullptr, {&B, &A});
  Tensor X = trtrs_compute(op, B, A, upper, transpose, unit);
  if (auto node = rec.finish({&B, &A}, {&X})) {
    node->attrs.i[0] = upper;
    node->attrs.i[1] = transpose;
    node->attrs.i[2] = unit;
    node->save(Tensor());
    node->save(A);
    node->save(X, true);
  }
  return X;
}

}  // namespace tocha
