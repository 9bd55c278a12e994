// One row-major GEMM call for the CPU kernels (mm family, im2col convolutions, RNN cells):
// C (m x n, ldc) = beta * C + alpha * op(A) op(B), with OpenBLAS or, for large f32 products on
// AVX-512 machines, oneDNN's sgemm (Note [oneDNN GEMM] in blas_gemm_call.cpp). Like BLAS, beta = 0
// never reads C.
#pragma once
#include <cstdint>

namespace tocha {
namespace cpu {

void gemm_row_major(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const float* a, int64_t lda,
                    const float* b, int64_t ldb, double beta, float* c, int64_t ldc);
void gemm_row_major(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* a, int64_t lda,
                    const double* b, int64_t ldb, double beta, double* c, int64_t ldc);

// Products oneDNN has computed (sgemm, and the reduced-precision matmuls of blas_gemm_onednn.cpp)
// since start-up: tests check which library ran.
int64_t onednn_gemm_count();
void count_onednn_gemm();
// Whether oneDNN may take GEMMs here: built in, switched on (torch.backends.mkldnn), AVX-512.
bool onednn_gemm_allowed();

}  // namespace cpu
}  // namespace tocha
