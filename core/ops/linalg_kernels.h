// Kernel signatures of the BLAS op family: the contract between the front-ends in core/ops/linalg*.cpp
// and the kernels in kernels/cpu/blas*.cpp. Strides are in elements; kernels never validate.
#pragma once
#include <cstdint>

namespace tocha {

// C[i] = beta*C[i] + alpha * A[i] @ B[i] for i < batch; A[i] is m x k, B[i] k x n, C[i] m x n, and
// X[i] starts i*x_bs elements after X[0]. When c_bs == 0 every product accumulates into the one C
// (addbmm): C = beta*C + alpha * sum_i A[i] @ B[i]. beta == 0 ignores C's old values (NaN included).
// f32/f64 kernels need BLAS-readable A, B and C (blas_layout below); the front-ends copy the others.
struct GemmArgs {
  int64_t batch, m, n, k;
  const void* a;
  int64_t a_bs, a_rs, a_cs;
  const void* b;
  int64_t b_bs, b_rs, b_cs;
  void* c;
  int64_t c_bs, c_rs, c_cs;
  double alpha, beta;
};
using GemmKernel = void (*)(const GemmArgs&);

// The same product with C transposed: C^T = B^T A^T (a column-major C becomes a row-major one;
// kernels use it to write C along its contiguous dim).
inline GemmArgs transposed(const GemmArgs& g) {
  GemmArgs t = g;
  t.m = g.n;
  t.n = g.m;
  t.a = g.b;
  t.a_bs = g.b_bs;
  t.a_rs = g.b_cs;
  t.a_cs = g.b_rs;
  t.b = g.a;
  t.b_bs = g.a_bs;
  t.b_rs = g.a_cs;
  t.b_cs = g.a_rs;
  t.c_rs = g.c_cs;
  t.c_cs = g.c_rs;
  return t;
}

// y = beta*y + alpha * A @ x with A m x n; incx/incy are positive.
struct GemvArgs {
  int64_t m, n;
  const void* a;
  int64_t a_rs, a_cs;
  const void* x;
  int64_t incx;
  void* y;
  int64_t incy;
  double alpha, beta;
};
using GemvKernel = void (*)(const GemvArgs&);

// A = beta*A + alpha * x y^T with A m x n.
struct GerArgs {
  int64_t m, n;
  const void* x;
  int64_t incx;
  const void* y;
  int64_t incy;
  void* a;
  int64_t a_rs, a_cs;
  double alpha;
  double beta;
};
using GerKernel = void (*)(const GerArgs&);

// *out = sum_i x[i*incx] * y[i*incy]; out is one element of the operands' dtype.
using DotKernel = void (*)(int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out);

// Largest dimension or leading dimension BLAS takes (its integers are 32-bit in this build).
constexpr int64_t kBlasIntMax = 2147483647;

// How BLAS can read a rows x cols matrix with strides (rs, cs): row-major (*trans = false) or as the
// transpose of a row-major matrix (*trans = true), with leading dimension *ld. False when neither
// works (overlapping or expanded rows, or a leading dimension past kBlasIntMax).
inline bool blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool* trans, int64_t* ld) {
  int64_t min_cols = cols > 1 ? cols : 1, min_rows = rows > 1 ? rows : 1;
  if (cs == 1 || cols <= 1) {
    int64_t l = rows <= 1 ? min_cols : rs;  // a single row may have any row stride
    if (l >= min_cols && l <= kBlasIntMax) {
      *trans = false;
      *ld = l;
      return true;
    }
  }
  if (rs == 1 || rows <= 1) {
    int64_t l = cols <= 1 ? min_rows : cs;
    if (l >= min_rows && l <= kBlasIntMax) {
      *trans = true;
      *ld = l;
      return true;
    }
  }
  return false;
}

// The increment BLAS uses for a vector of n elements with stride s (0 when BLAS cannot use it).
inline int64_t blas_inc(int64_t n, int64_t s) {
  if (n <= 1) return 1;
  return s > 0 && s <= kBlasIntMax ? s : 0;
}

}  // namespace tocha
