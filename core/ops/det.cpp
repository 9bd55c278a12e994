// det, slogdet and logdet front-ends (see det.h): checks, one LU factorization per matrix through
// the det kernel, and the determinant read from U's diagonal with the pointwise and reduce ops.
#include "core/ops/det.h"
#include "core/type_name.h"
#include "core/autograd/grad_mode.h"
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/linalg_util.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

// Note [Det from LU]
// det(A) = (sign of the row permutation) * prod(diag(U)) for A = P L U, L unit lower triangular.
// A contiguous row-major copy of A is A^T in LAPACK's column-major order, and det(A^T) = det(A),
// so the kernel factors that copy in place without a transposing copy. The kernel reports each
// permutation's sign; the rest (the product, or the signs and sum of logs of the diagonal) are
// ordinary ops on a strided view of U's diagonal, so CUDA needs only the factorization. A
// singular matrix has an exact zero on U's diagonal (LAPACK's info > 0 is not an error here):
// det 0, slogdet (0, -inf), logdet -inf, as in PyTorch; a 0 x 0 matrix has det 1.

namespace {

struct LuDiagonal {
  Tensor diag;       // (..., n): U's diagonal
  Tensor perm_sign;  // (...): +1 or -1, A's dtype and device
};

void check_square_batch(const char* op, const Tensor& A) {
  TOCHA_CHECK(A.dim() >= 2, op, "expected a square matrix or a batch of them (..., n, n), got ",
              A.dim() == 0 ? std::string("a 0-dim tensor") : "size " + shape_str(A.sizes()));
  TOCHA_CHECK(A.dtype() == DType::f32 || A.dtype() == DType::f64, op,
              "A must be a torch.FloatTensor or torch.DoubleTensor, got a ", tensor_type_name(A));
  const int64_t n = A.size(A.dim() - 1);
  TOCHA_CHECK(A.size(A.dim() - 2) == n, op, "A must be square in its last two dims, got size ", shape_str(A.sizes()));
  linalg::check_blas_size(op, n);
}

LuDiagonal lu_diagonal(const char* op, const Tensor& A) {
  const int64_t n = A.size(A.dim() - 1);
  DimVec batch_shape;
  for (int d = 0; d < A.dim() - 2; ++d) batch_shape.push_back(A.size(d));
  const int64_t batch = shape_numel(batch_shape, op);
  Tensor lu = clone(A);  // Note [Det from LU]: this is A^T column-major
  Tensor signs = full(batch_shape, 1, DType::f64);
  if (batch > 0 && n > 0) {
    auto kernel = kernel_for<DetKernel>(OpId::det, A.device().type, A.dtype());
    int info = kernel(batch, n, lu.raw_data(), n, n * n, signs.data<double>());
    TOCHA_CHECK(info >= 0, op, "internal error: LAPACK rejected argument ", -info);
  }
  DimVec sizes = batch_shape, strides;
  sizes.push_back(n);
  for (int d = 0; d < int(batch_shape.size()); ++d) strides.push_back(lu.stride(d));
  strides.push_back(n + 1);
  return {as_strided(lu, sizes, strides, 0), to_device(to_dtype(signs, A.dtype()), A.device())};
}

Tensor det_compute(const Tensor& A) {
  LuDiagonal f = lu_diagonal("det", A);
  return binary(OpId::mul, f.perm_sign, prod(f.diag, -1, false));
}

SlogdetResult slogdet_compute(const Tensor& A) {
  LuDiagonal f = lu_diagonal("slogdet", A);
  Tensor sign = binary(OpId::mul, f.perm_sign, prod(unary(OpId::sign, f.diag), -1, false));
  Tensor logabsdet = sum(unary(OpId::log, unary(OpId::abs, f.diag)), -1, false);
  return {sign, logabsdet};
}

}  // namespace

// Note [Det gradients]: det saves A and its result, slogdet saves A and the sign; their formulas
// (core/autograd/formulas/det.cpp) are det(A) inv(A)^T and inv(A)^T.
Tensor det(const Tensor& A) {
  check_square_batch("det", A);
  autograd::Recording rec(OpId::det, nullptr, {&A});
  Tensor r = det_compute(A);
  if (auto node = rec.finish({&A}, {&r})) {
    node->save(A);
    node->save(r, true);
  }
  return r;
}

SlogdetResult slogdet(const Tensor& A) {
  check_square_batch("slogdet", A);
  autograd::Recording rec(OpId::slogdet, nullptr, {&A});
  SlogdetResult r = slogdet_compute(A);
  if (auto node = rec.finish({&A}, {&r.logabsdet})) {
    node->save(A);
    node->save(r.sign);
  }
  return r;
}

Tensor logdet(const Tensor& A) {
  check_square_batch("logdet", A);
  SlogdetResult r = slogdet(A);
  // log(sign) is 0 for 1, NaN for -1 and -inf for 0 (where logabsdet is -inf already); sign has
  // no history, so the gradient is slogdet's.
  return binary(OpId::add, r.logabsdet, unary(OpId::log, r.sign));
}

}  // namespace tocha
