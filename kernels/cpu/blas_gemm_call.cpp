// The CPU's row-major GEMM call: OpenBLAS, or oneDNN's sgemm for large f32 products on AVX-512.
//
// Note [oneDNN GEMM]: on an AVX-512 Xeon, Debian's oneDNN 2.6 sgemm (dnnl_sgemm, JIT kernels) ran
// the products of the nn benchmarks 5-35% faster than Debian's OpenBLAS 0.3.21 at one thread and
// 15-45% at two (a standalone C++ loop, best of 7 x 20 calls; e.g. Linear 3136 -> 128 at batch 64:
// 0.475 -> 0.371 ms, 784 -> 512 at batch 128: 0.764 -> 0.630 ms), and square products 3-20%
// faster from n = 128 up. It has ~0.3 us more fixed cost, so products below kMinProduct
// multiply-adds stay on OpenBLAS (n = 64 squares ran at 0.52-0.87x). Only machines with AVX-512
// use it: nothing was measured on AVX2 machines, where OpenBLAS stays. torch.backends.mkldnn.enabled
// (and TOCHA_MKLDNN=0) switch it off with the convolutions. Inside a parallel region both libraries
// run on the calling thread alone. f64 always goes to OpenBLAS.
#include "kernels/cpu/blas_gemm_call.h"
#include <atomic>
#include <cblas.h>
#include "kernels/cpu/conv_onednn.h"

#ifdef TOCHA_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.h>
#endif

namespace tocha {
namespace cpu {
namespace {
std::atomic<int64_t> g_onednn_gemms{0};

#ifdef TOCHA_HAVE_ONEDNN
constexpr int64_t kMinProduct = int64_t(1) << 21;  // 128^3 multiply-adds

bool has_avx512() {
  static const bool yes = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return yes;
}

bool onednn_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (m * n * k < kMinProduct || !onednn_gemm_allowed()) return false;
  if (dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) != dnnl_success)
    return false;
  count_onednn_gemm();
  return true;
}
#endif
}  // namespace

int64_t onednn_gemm_count() { return g_onednn_gemms.load(std::memory_order_relaxed); }
void count_onednn_gemm() { g_onednn_gemms.fetch_add(1, std::memory_order_relaxed); }
bool onednn_gemm_allowed() {
#ifdef TOCHA_HAVE_ONEDNN
  return has_avx512() && onednn_enabled();
#else
  return false;
#endif
}

void gemm_row_major(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const float* a, int64_t lda,
                    const float* b, int64_t ldb, double beta, float* c, int64_t ldc) {
#ifdef TOCHA_HAVE_ONEDNN
  if (onednn_sgemm(ta, tb, m, n, k, float(alpha), a, lda, b, ldb, float(beta), c, ldc)) return;
#endif
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, blasint(m),
              blasint(n), blasint(k), float(alpha), a, blasint(lda), b, blasint(ldb), float(beta), c, blasint(ldc));
}

void gemm_row_major(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                    const double* b, int64_t ldb, double beta, double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, blasint(m),
              blasint(n), blasint(k), alpha, a, blasint(lda), b, blasint(ldb), beta, c, blasint(ldc));
}

}  // namespace cpu
}  // namespace tocha
