// Private helpers of the BLAS and LAPACK front-ends (core/ops/linalg.cpp, core/ops/lapack*.cpp):
// argument checks with Torch7-style messages, BLAS-readable operands, and the `res` handling of
// products (write into out directly when possible, else through a temporary).
#pragma once
#include <initializer_list>
#include "core/ops/linalg_kernels.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/tensor.h"

namespace tocha {
namespace linalg {

// Fails unless t has ndim dims: "[mm] a must be 2D, got size 2x3x4".
void check_dim(const char* op, const char* name, const Tensor& t, int ndim);
// Fails unless b has a's dtype and device: "[mm] a is a torch.FloatTensor but b is a torch.DoubleTensor".
void check_same_type(const char* op, const char* na, const Tensor& a, const char* nb, const Tensor& b);
// Integer products take integer multipliers only.
void check_multipliers(const char* op, DType dt, double beta, double alpha);
// Sizes given to BLAS must fit its 32-bit integers.
void check_blas_size(const char* op, int64_t v);
// Checks a result tensor given by the caller: dtype, device, and no overlapping elements.
void check_out(const char* op, const Tensor& out, DType dt, Device dev);

// Whether the last two dims of t can go to BLAS as they are (see blas_layout).
bool blas_matrix_ok(const Tensor& t);
// t when BLAS can read its matrices, else a contiguous copy.
Tensor blas_matrix(const Tensor& t);
// t (1D) when its stride suits BLAS, else a contiguous copy.
Tensor blas_vector(const Tensor& t);
// Whether writing into out while reading operands needs a temporary.
bool aliases_any(const Tensor& out, std::initializer_list<const Tensor*> operands);

// Runs launch(target, beta) so that the result is beta * init + product, following Torch7's `res`
// convention: the result goes into *out (resized to shape) when out is given, else into a new
// tensor, which is returned. target is out itself when the kernel can write it directly (BLAS
// layout, no aliasing with the operands), else a contiguous temporary copied into out afterwards.
// init (the addend, broadcast to shape) may be null; out may be init itself (in-place M:addmm).
template <class Launch>
Tensor run_product(const char* op, const Tensor* out, const DimVec& shape, DType dt, Device dev,
                   const Tensor* init, double beta, std::initializer_list<const Tensor*> operands,
                   Launch&& launch) {
  if (!init) beta = 0;
  bool in_place = false;
  Tensor target;
  if (out) {
    check_out(op, *out, dt, dev);
    in_place = init && out->is_same(*init);
    if (in_place)
      TOCHA_CHECK(out->sizes() == shape, op, "in-place result has size ", shape_str(out->sizes()),
                  " but the product has size ", shape_str(shape));
    if (!aliases_any(*out, operands)) {
      resize_(*out, shape);
      bool ok = shape.size() >= 2 ? blas_matrix_ok(*out) : blas_inc(out->size(0), out->stride(0)) != 0;
      if (ok) target = *out;
    }
  }
  bool has_init = in_place && target.defined();  // the addend is already in target
  if (!target.defined()) target = empty(shape, dt, dev);
  if (!has_init && beta != 0) {
    if (in_place) copy_(target, *out);
    else copy_(target, *init);
  }
  launch(target, beta);
  if (!out) return target;
  if (target.is_same(*out)) {
    out->bump_version();
  } else {
    resize_(*out, shape);
    copy_(*out, target);
  }
  return *out;
}

}  // namespace linalg
}  // namespace tocha
