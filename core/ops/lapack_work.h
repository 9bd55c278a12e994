// Shared by the LAPACK front-ends (core/ops/lapack.cpp, lapack_t7.cpp): the column-major working
// matrices the kernels factor in place (Note [Row-major LAPACK] in lapack.cpp) and the argument
// checks whose messages name the op.
#pragma once
#include "core/tensor.h"

namespace tocha {
namespace lapack_work {

// A column-major rows x cols working matrix with leading dimension ld >= max(1, rows).
struct ColMajor {
  Tensor buf;  // cols x ld, contiguous
  int64_t rows = 0, cols = 0, ld = 1;
  void* data() const { return buf.raw_data(); }
  // The matrix as a (non-contiguous) rows x cols tensor over buf.
  Tensor view() const;
};

// On `dev`: a CUDA op's kernel gets device memory (Note [LAPACK on CUDA]); the host for the ops
// that compute CUDA tensors there (Note [Host LAPACK for CUDA tensors]).
ColMajor col_major_empty(int64_t rows, int64_t cols, DType dt, Device dev, int64_t ld = 0);
// A column-major copy of matrix a on dev; rows past a's (ld > rows) are zero.
ColMajor col_major_copy(const Tensor& a, Device dev, int64_t ld = 0);
inline ColMajor col_major_copy(const Tensor& a, int64_t ld = 0) { return col_major_copy(a, a.device(), ld); }

void check_lapack_dtype(const char* op, const char* name, const Tensor& t);
// A (m x n) must be a float matrix (sizes BLAS's integers hold); square when asked.
void check_matrix(const char* op, const char* name, const Tensor& a, bool square);
// info < 0 means we passed LAPACK a bad argument: a bug here, not the user's.
void check_info_args(const char* op, int info);
// Note [Non-finite input to iterative LAPACK]: the SVD and the general eigensolver iterate until
// convergence, and a NaN or inf in A makes LAPACK reject an argument (geev also prints to stderr)
// or return NaN silently; PyTorch 1.13 refuses such input. One pass over A, before the call.
void check_finite_input(const char* op, const Tensor& a);

}  // namespace lapack_work
}  // namespace tocha
