// CPU kernels of the vector BLAS ops: dot, matrix-vector (mv, addmv) and outer products (ger, addr).
// f32/f64 call OpenBLAS on the strided operands; f16/bf16 and integers use loops accumulating in
// opmath_t (float for f16/bf16, the element type for integers).
#include <algorithm>
#include <cblas.h>
#include "core/kernel_registry.h"
#include "core/ops/linalg_kernels.h"
#include "kernels/cpu/blas_util.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

CBLAS_TRANSPOSE trans_flag(bool t) { return t ? CblasTrans : CblasNoTrans; }

void dot_blas_f32(int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out) {
  *static_cast<float*>(out) = cblas_sdot(blasint(n), static_cast<const float*>(x), blasint(incx),
                                         static_cast<const float*>(y), blasint(incy));
}
void dot_blas_f64(int64_t n, const void* x, int64_t incx, const void* y, int64_t incy, void* out) {
  *static_cast<double*>(out) = cblas_ddot(blasint(n), static_cast<const double*>(x), blasint(incx),
                                          static_cast<const double*>(y), blasint(incy));
}

template <class T> void dot_loop(int64_t n, const void* xp, int64_t incx, const void* yp, int64_t incy, void* out) {
  using M = acc_t<T>;
  const T* x = static_cast<const T*>(xp);
  const T* y = static_cast<const T*>(yp);
  M acc = M(0);
  for (int64_t i = 0; i < n; ++i) acc = M(acc + M(x[i * incx]) * M(y[i * incy]));
  *static_cast<T*>(out) = T(acc);
}

void gemv_call(bool t, int64_t m, int64_t n, double alpha, const float* a, int64_t lda, const float* x,
               int64_t incx, float* y, int64_t incy) {
  cblas_sgemv(CblasRowMajor, trans_flag(t), blasint(m), blasint(n), float(alpha), a, blasint(lda), x,
              blasint(incx), 1.0f, y, blasint(incy));
}
void gemv_call(bool t, int64_t m, int64_t n, double alpha, const double* a, int64_t lda, const double* x,
               int64_t incx, double* y, int64_t incy) {
  cblas_dgemv(CblasRowMajor, trans_flag(t), blasint(m), blasint(n), alpha, a, blasint(lda), x, blasint(incx), 1.0,
              y, blasint(incy));
}

// y is scaled by beta here (zeros for beta == 0, so NaNs in y never leak), then BLAS adds the
// product with beta = 1, which it skips scaling for.
template <class T> void gemv_blas(const GemvArgs& g) {
  T* y = static_cast<T*>(g.y);
  scale_matrix(y, g.m, 1, g.incy, 0, g.beta);
  if (g.m == 0 || g.n == 0) return;
  bool t = false;
  int64_t lda = 1;
  blas_layout(g.m, g.n, g.a_rs, g.a_cs, &t, &lda);
  const T* a = static_cast<const T*>(g.a);
  const T* x = static_cast<const T*>(g.x);
  // A column-major A is the row-major A^T (n x m): y += alpha * (A^T)^T x.
  if (t) gemv_call(true, g.n, g.m, g.alpha, a, lda, x, g.incx, y, g.incy);
  else gemv_call(false, g.m, g.n, g.alpha, a, lda, x, g.incx, y, g.incy);
}

template <class T> void gemv_loop(const GemvArgs& g) {
  using M = acc_t<T>;
  const T* a = static_cast<const T*>(g.a);
  const T* x = static_cast<const T*>(g.x);
  T* y = static_cast<T*>(g.y);
  const M alpha = multiplier<T>(g.alpha), beta = multiplier<T>(g.beta);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.n));
  parallel_for(g.m, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      M acc = M(0);
      for (int64_t j = 0; j < g.n; ++j) acc = M(acc + M(a[i * g.a_rs + j * g.a_cs]) * M(x[j * g.incx]));
      T& v = y[i * g.incy];
      v = g.beta == 0 ? T(M(alpha * acc)) : T(M(beta * M(v) + alpha * acc));
    }
  });
}

void ger_call(int64_t m, int64_t n, double alpha, const float* x, int64_t incx, const float* y, int64_t incy,
              float* a, int64_t lda) {
  cblas_sger(CblasRowMajor, blasint(m), blasint(n), float(alpha), x, blasint(incx), y, blasint(incy), a, blasint(lda));
}
void ger_call(int64_t m, int64_t n, double alpha, const double* x, int64_t incx, const double* y, int64_t incy,
              double* a, int64_t lda) {
  cblas_dger(CblasRowMajor, blasint(m), blasint(n), alpha, x, blasint(incx), y, blasint(incy), a, blasint(lda));
}

template <class T> void ger_blas(const GerArgs& g) {
  T* a = static_cast<T*>(g.a);
  scale_matrix(a, g.m, g.n, g.a_rs, g.a_cs, g.beta);
  if (g.m == 0 || g.n == 0) return;
  bool t = false;
  int64_t lda = 1;
  blas_layout(g.m, g.n, g.a_rs, g.a_cs, &t, &lda);
  const T* x = static_cast<const T*>(g.x);
  const T* y = static_cast<const T*>(g.y);
  // Note [addr with alpha 0]: BLAS's ger returns at once when alpha is 0, which dropped the NaN and
  // inf of x and y; PyTorch computes beta * A + alpha * x y^T and gives NaN there. A rare case: a
  // loop adds 0 * x[i] * y[j] (0 where both are finite).
  if (g.alpha == 0) {
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) a[i * g.a_rs + j * g.a_cs] += T(0) * x[i * g.incx] * y[j * g.incy];
    return;
  }
  // A column-major A is the row-major A^T: A^T += alpha * y x^T.
  if (t) ger_call(g.n, g.m, g.alpha, y, g.incy, x, g.incx, a, lda);
  else ger_call(g.m, g.n, g.alpha, x, g.incx, y, g.incy, a, lda);
}

template <class T> void ger_loop(const GerArgs& g) {
  using M = acc_t<T>;
  const T* x = static_cast<const T*>(g.x);
  const T* y = static_cast<const T*>(g.y);
  T* a = static_cast<T*>(g.a);
  const M alpha = multiplier<T>(g.alpha), beta = multiplier<T>(g.beta);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, g.n));
  parallel_for(g.m, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const M xi = M(alpha * M(x[i * g.incx]));
      for (int64_t j = 0; j < g.n; ++j) {
        T& v = a[i * g.a_rs + j * g.a_cs];
        M prod = M(xi * M(y[j * g.incy]));
        v = g.beta == 0 ? T(prod) : T(M(beta * M(v) + prod));
      }
    }
  });
}

#define REG_LOOPS(op, fn)                                             \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::f16, &fn<Half>);              \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::bf16, &fn<BFloat16>);         \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::i64, &fn<int64_t>);           \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::i32, &fn<int32_t>);           \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::i16, &fn<int16_t>);           \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::i8, &fn<int8_t>);             \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::u8, &fn<uint8_t>);

TOCHA_REGISTER_KERNEL(dot, cpu, DType::f32, &dot_blas_f32);
TOCHA_REGISTER_KERNEL(dot, cpu, DType::f64, &dot_blas_f64);
REG_LOOPS(dot, dot_loop)

#define REG_GEMV(op)                                                  \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::f32, &gemv_blas<float>);      \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::f64, &gemv_blas<double>);     \
  REG_LOOPS(op, gemv_loop)
REG_GEMV(mv)
REG_GEMV(addmv)

#define REG_GER(op)                                                   \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::f32, &ger_blas<float>);       \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::f64, &ger_blas<double>);      \
  REG_LOOPS(op, ger_loop)
REG_GER(ger)
REG_GER(addr)

}  // namespace
}  // namespace cpu
}  // namespace tocha
