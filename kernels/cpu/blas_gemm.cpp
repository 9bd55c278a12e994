// CPU kernels of the matrix-matrix products (mm, addmm, bmm, baddbmm, addbmm): BLAS GEMM (blas_gemm_call.h) for
// f32/f64 on strided views, float GEMM on converted copies for f16/bf16, plain loops for integers.
#include <algorithm>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/linalg_kernels.h"
#include "kernels/cpu/blas_gemm_call.h"
#include "kernels/cpu/blas_gemm_onednn.h"
#include "kernels/cpu/blas_util.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

// Multiply-adds below which a product is too small for OpenBLAS's own threads to pay off, so a
// batch of them is split over the pool instead (OpenBLAS runs single-threaded inside a region).
constexpr int64_t kSmallGemm = 64 * 64 * 64;
// A batch of at least as many mid-size products as threads is split over the pool too, each
// product on one thread: the libraries' own threads split a 124x320x64 product poorly (a
// TemporalConvolution's 32 of them, forward: 1317 us at one thread, 1165 at two). Products past
// this size keep the libraries' threads.
constexpr int64_t kBatchSplitMax = 256 * 256 * 256;



// Number of distinct result matrices: one when every product accumulates into C (addbmm).
int64_t num_results(const GemmArgs& g) { return g.c_bs == 0 ? 1 : g.batch; }

// C = beta * C for every result matrix (an empty product); beta == 0 writes zeros.
template <class T> void scale_results(const GemmArgs& g) {
  for (int64_t r = 0; r < num_results(g); ++r)
    scale_matrix(static_cast<T*>(g.c) + r * g.c_bs, g.m, g.n, g.c_rs, g.c_cs, g.beta);
}

template <class T> void gemm_blas(const GemmArgs& in) {
  if (in.m == 0 || in.n == 0) return;
  bool tc = false, ta = false, tb = false;
  int64_t ldc = 1, lda = 1, ldb = 1;
  blas_layout(in.m, in.n, in.c_rs, in.c_cs, &tc, &ldc);
  const GemmArgs g = tc ? transposed(in) : in;
  if (g.k == 0 || g.batch == 0) return scale_results<T>(g);
  blas_layout(g.m, g.n, g.c_rs, g.c_cs, &tc, &ldc);
  blas_layout(g.m, g.k, g.a_rs, g.a_cs, &ta, &lda);
  blas_layout(g.k, g.n, g.b_rs, g.b_cs, &tb, &ldb);
  const T* a = static_cast<const T*>(g.a);
  const T* b = static_cast<const T*>(g.b);
  T* c = static_cast<T*>(g.c);
  auto product = [&](int64_t i, double beta) {
    gemm_row_major(ta, tb, g.m, g.n, g.k, g.alpha, a + i * g.a_bs, lda, b + i * g.b_bs, ldb, beta, c + i * g.c_bs, ldc);
  };
  if (g.c_bs == 0) {  // one result: products accumulate (addbmm), beta applies once
    for (int64_t i = 0; i < g.batch; ++i) product(i, i == 0 ? g.beta : 1.0);
    return;
  }
  const int64_t work = g.m * g.n * g.k;
  if (g.batch > 1 && (work < kSmallGemm || (g.batch >= get_num_threads() && work <= kBatchSplitMax))) {
    parallel_for(g.batch, std::max<int64_t>(1, kSmallGemm / work), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) product(i, g.beta);
    });
    return;
  }
  for (int64_t i = 0; i < g.batch; ++i) product(i, g.beta);
}

// Note [Reduced-precision GEMM]: f16/bf16 operands are widened into float buffers, multiplied by
// sgemm (accumulating the batch of addbmm in float), and rounded once when stored.
template <class T> void gemm_reduced(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0 || g.batch == 0) return scale_results<T>(g);
  if (onednn_gemm_reduced(g, DTypeOf<T>::value)) return;  // Note [oneDNN reduced-precision GEMM]
  std::vector<float> af(size_t(g.m * g.k)), bf(size_t(g.k * g.n)), cf(size_t(g.m * g.n));
  const bool sum = g.c_bs == 0;
  for (int64_t r = 0; r < num_results(g); ++r) {
    int64_t first = sum ? 0 : r, last = sum ? g.batch : r + 1;
    for (int64_t i = first; i < last; ++i) {
      const T* a = static_cast<const T*>(g.a) + i * g.a_bs;
      const T* b = static_cast<const T*>(g.b) + i * g.b_bs;
      for (int64_t p = 0; p < g.m; ++p)
        for (int64_t q = 0; q < g.k; ++q) af[size_t(p * g.k + q)] = float(a[p * g.a_rs + q * g.a_cs]);
      for (int64_t p = 0; p < g.k; ++p)
        for (int64_t q = 0; q < g.n; ++q) bf[size_t(p * g.n + q)] = float(b[p * g.b_rs + q * g.b_cs]);
      gemm_row_major(false, false, g.m, g.n, g.k, 1.0, af.data(), g.k, bf.data(), g.n, i == first ? 0.0 : 1.0,
                cf.data(), g.n);
    }
    T* c = static_cast<T*>(g.c) + r * g.c_bs;
    const float alpha = float(g.alpha), beta = float(g.beta);
    for (int64_t p = 0; p < g.m; ++p)
      for (int64_t q = 0; q < g.n; ++q) {
        T& v = c[p * g.c_rs + q * g.c_cs];
        float prod = alpha * cf[size_t(p * g.n + q)];
        v = T(beta == 0 ? prod : beta * float(v) + prod);
      }
  }
}

// Integer products accumulate in the element type (wrapping like PyTorch's CPU kernels). Rows of
// all results are split over the pool; each row accumulates into a private buffer.
template <class T> void gemm_loops(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0 || g.batch == 0) return scale_results<T>(g);
  const bool sum = g.c_bs == 0;
  const int64_t rows = num_results(g) * g.m;
  const int64_t row_work = std::max<int64_t>(1, g.n * g.k * (sum ? g.batch : 1));
  using A = acc_t<T>;  // wraps without undefined behaviour (Note [Integer wraparound])
  const A alpha = multiplier<T>(g.alpha), beta = multiplier<T>(g.beta);
  parallel_for(rows, std::max<int64_t>(1, kGrainSize / row_work), [&](int64_t lo, int64_t hi) {
    std::vector<A> acc(size_t(g.n));
    for (int64_t row = lo; row < hi; ++row) {
      int64_t r = row / g.m, i = row % g.m;
      std::fill(acc.begin(), acc.end(), A(0));
      int64_t first = sum ? 0 : r, last = sum ? g.batch : r + 1;
      for (int64_t bi = first; bi < last; ++bi) {
        const T* a = static_cast<const T*>(g.a) + bi * g.a_bs + i * g.a_rs;
        const T* b = static_cast<const T*>(g.b) + bi * g.b_bs;
        for (int64_t p = 0; p < g.k; ++p) {
          const A av = A(a[p * g.a_cs]);
          const T* bp = b + p * g.b_rs;
          if (g.b_cs == 1) {
            for (int64_t j = 0; j < g.n; ++j) acc[size_t(j)] = A(acc[size_t(j)] + av * A(bp[j]));
          } else {
            for (int64_t j = 0; j < g.n; ++j) acc[size_t(j)] = A(acc[size_t(j)] + av * A(bp[j * g.b_cs]));
          }
        }
      }
      T* c = static_cast<T*>(g.c) + r * g.c_bs + i * g.c_rs;
      for (int64_t j = 0; j < g.n; ++j) {
        T& v = c[j * g.c_cs];
        v = g.beta == 0 ? T(alpha * acc[size_t(j)]) : T(beta * A(v) + alpha * acc[size_t(j)]);
      }
    }
  });
}

#define REG_GEMM(op)                                                        \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::f32, &gemm_blas<float>);            \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::f64, &gemm_blas<double>);           \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::f16, &gemm_reduced<Half>);          \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::bf16, &gemm_reduced<BFloat16>);     \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::i64, &gemm_loops<int64_t>);         \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::i32, &gemm_loops<int32_t>);         \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::i16, &gemm_loops<int16_t>);         \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::i8, &gemm_loops<int8_t>);           \
  TOCHA_REGISTER_KERNEL(op, cpu, DType::u8, &gemm_loops<uint8_t>);

REG_GEMM(mm)
REG_GEMM(addmm)
REG_GEMM(bmm)
REG_GEMM(baddbmm)
REG_GEMM(addbmm)

}  // namespace
}  // namespace cpu
}  // namespace tocha
