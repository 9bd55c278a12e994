// Front-ends of the LDL^T pair (linalg_ldl.h). Both compute on the host (Note [Host LAPACK for
// CUDA tensors], lapack_t7.cpp: cuSOLVER has sytrf but no sytrs with LAPACK's pivots in every
// version we build against) on column-major copies: a row-major matrix's transpose, copied, is
// its column-major layout, so A's lower triangle is what sytrf reads as its own lower triangle.
#include "core/ops/linalg_ldl.h"
#include "core/type_name.h"
#include <cstring>
#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "core/ops/lapack_work.h"
#include "core/ops/linalg_util.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

namespace {

// The batch dims of a (..., rows, cols) tensor and their element count.
DimVec batch_of(const Tensor& t, int trailing, int64_t* count) {
  DimVec b;
  *count = 1;
  for (int d = 0; d < t.dim() - trailing; ++d) {
    b.push_back(t.size(d));
    *count *= t.size(d);
  }
  return b;
}

DimVec with(DimVec b, std::initializer_list<int64_t> tail) {
  for (int64_t v : tail) b.push_back(v);
  return b;
}

// The size of dim d counted from the end (1: the last).
int64_t size_from_end(const Tensor& t, int d) { return t.size(t.dim() - d); }

void check_batched_square(const char* op, const char* name, const Tensor& a) {
  TOCHA_CHECK(a.dim() >= 2, op, name, " must be a matrix or a batch of matrices, got size ", shape_str(a.sizes()));
  lapack_work::check_lapack_dtype(op, name, a);
  TOCHA_CHECK(size_from_end(a, 1) == size_from_end(a, 2), op, name, " must be batches of square matrices, got size ",
              shape_str(a.sizes()));
  linalg::check_blas_size(op, size_from_end(a, 1));
}

// t with its last two dims swapped.
Tensor swap_last(const Tensor& t) { return transpose(t, t.dim() - 2, t.dim() - 1); }

// The results carry no history: refused rather than silently cut from the graph.
void check_untracked(const char* op, const char* name, const Tensor& t) {
  TOCHA_CHECK(!(autograd::grad_enabled() && t.requires_grad()), op, "is not differentiable, but ", name,
              " requires grad (detach it, or call it under torch.noGrad)");
}

// A host copy of the column-major layout of every matrix of t (its last two dims transposed).
Tensor col_major_host(const Tensor& t) { return clone(swap_last(to_device(t, Device{}))); }

// sytrs reads rows |p| and, for a 2x2 block (two equal negative entries), the next row too: a
// pivot out of range would make it read and swap outside the matrix.
void check_pivots(const char* op, const int32_t* p, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    const int32_t v = p[k];
    TOCHA_CHECK(v != 0 && v >= -n && v <= n, op, "pivot ", k + 1, " is ", v, ", outside 1..", n,
                " (pass the pivots ldlFactor returned)");
    if (v < 0) {
      TOCHA_CHECK(k + 1 < n && p[k + 1] == v, op, "pivot ", k + 1, " (", v, ") starts a 2x2 block, so pivot ",
                  k + 2, " must equal it (pass the pivots ldlFactor returned)");
      ++k;
    }
  }
}

}  // namespace

LdlFactorResult linalg_ldl_factor(const Tensor& A) {
  const char* op = "linalg.ldlFactor";
  check_batched_square(op, "A", A);
  check_untracked(op, "A", A);
  const int64_t n = size_from_end(A, 1);
  int64_t count = 0;
  const DimVec batch = batch_of(A, 2, &count);
  Tensor work = col_major_host(A);
  Tensor piv = empty(with(batch, {n}), DType::i32, Device{});
  Tensor info = empty(batch, DType::i32, Device{});
  auto* info_data = static_cast<int32_t*>(info.raw_data());
  if (n == 0) {
    for (int64_t b = 0; b < count; ++b) info_data[b] = 0;
  } else {
    auto kernel = kernel_for<SytrfKernel>(OpId::ldlFactor, DeviceType::cpu, A.dtype());
    char* base = static_cast<char*>(work.raw_data());
    auto* pivots = static_cast<int32_t*>(piv.raw_data());
    const size_t bytes = size_t(n * n) * work.elsize();
    for (int64_t b = 0; b < count; ++b) {
      char* a = base + size_t(b) * bytes;
      int r = kernel(n, a, n, pivots + b * n);
      lapack_work::check_info_args(op, r);
      info_data[b] = r;
      // sytrf leaves the other triangle as it was; PyTorch's LD has zeros there (column-major
      // upper = row-major strict upper).
      const size_t es = work.elsize();
      for (int64_t j = 1; j < n; ++j) std::memset(a + size_t(j * n) * es, 0, size_t(j) * es);
    }
  }
  Device dev = A.device();
  return {to_device(contiguous(swap_last(work)), dev), to_device(piv, dev), to_device(info, dev)};
}

Tensor linalg_ldl_solve(const Tensor& ld, const Tensor& pivots, const Tensor& B) {
  const char* op = "linalg.ldlSolve";
  check_batched_square(op, "LD", ld);
  TOCHA_CHECK(pivots.dtype() == DType::i32, op, "pivots must be a torch.IntTensor, got a ",
              tensor_type_name(pivots));
  TOCHA_CHECK(B.dim() >= 2, op, "B must be a matrix or a batch of matrices, got size ", shape_str(B.sizes()));
  TOCHA_CHECK(B.dtype() == ld.dtype(), op, "LD is a ", tensor_type_name(ld), " but B is a ",
              tensor_type_name(B));
  TOCHA_CHECK(ld.device() == B.device() && ld.device() == pivots.device(), op,
              "expected LD, pivots and B on the same device, got ", ld.device().str(), ", ",
              pivots.device().str(), " and ", B.device().str());
  check_untracked(op, "LD", ld);
  check_untracked(op, "B", B);
  const int64_t n = size_from_end(ld, 1), k = size_from_end(B, 1);
  TOCHA_CHECK(size_from_end(B, 2) == n, op, "each LD matrix is ", n, " by ", n, " but each B matrix is ",
              size_from_end(B, 2), " by ", k);
  int64_t count_ld = 0, count_b = 0;
  const DimVec batch_ld = batch_of(ld, 2, &count_ld), batch_b = batch_of(B, 2, &count_b);
  TOCHA_CHECK(pivots.sizes() == with(batch_ld, {n}), op, "pivots must have size ", shape_str(with(batch_ld, {n})),
              " for LD of size ", shape_str(ld.sizes()), ", got ", shape_str(pivots.sizes()));
  DimVec batch;
  TOCHA_CHECK(broadcast_shapes(batch_ld, batch_b, &batch), op, "the batch dims of LD (", shape_str(batch_ld),
              ") and B (", shape_str(batch_b), ") do not broadcast");
  int64_t count = 1;
  for (int64_t v : batch) count *= v;
  Tensor a = col_major_host(expand(ld, with(batch, {n, n})));
  Tensor piv = clone(to_device(expand(pivots, with(batch, {n})), Device{}));
  Tensor x = col_major_host(expand(B, with(batch, {n, k})));
  if (n > 0 && k > 0) {
    auto kernel = kernel_for<SytrsKernel>(OpId::ldlSolve, DeviceType::cpu, ld.dtype());
    const auto* p = static_cast<const int32_t*>(piv.raw_data());
    for (int64_t b = 0; b < count; ++b) check_pivots(op, p + b * n, n);
    const size_t es = a.elsize();
    for (int64_t b = 0; b < count; ++b) {
      const char* ab = static_cast<const char*>(a.raw_data()) + size_t(b * n * n) * es;
      char* xb = static_cast<char*>(x.raw_data()) + size_t(b * n * k) * es;
      lapack_work::check_info_args(op, kernel(n, k, ab, n, p + b * n, xb, n));
    }
  }
  return to_device(contiguous(swap_last(x)), ld.device());
}

}  // namespace tocha
