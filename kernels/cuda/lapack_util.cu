// Small column-major matrix kernels of the cuSOLVER LAPACK kernels (declared in solver.h): the
// triangle LAPACK leaves alone zeroed (potrf), R copied out of geqrf's result (qr), and an
// identity right-hand side (inverse). One thread per element, grid-stride loops.
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/solver.h"

namespace tocha {
namespace cuda {
namespace {

template <class T>
__global__ void __launch_bounds__(kThreads) zero_triangle_kernel(bool keep_upper, int64_t n, T* a, int64_t lda) {
  const int64_t total = n * n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % n, j = e / n;
    if (keep_upper ? i > j : i < j) a[i + j * lda] = T(0);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    copy_upper_kernel(int64_t k, int64_t n, const T* a, int64_t lda, T* r, int64_t ldr) {
  const int64_t total = k * n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % k, j = e / k;
    r[i + j * ldr] = i <= j ? a[i + j * lda] : T(0);
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) identity_kernel(int64_t n, T* a, int64_t lda) {
  const int64_t total = n * n;
  for (int64_t e = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t i = e % n, j = e / n;
    a[i + j * lda] = i == j ? T(1) : T(0);
  }
}

template <class T> void zero_triangle_t(bool keep_upper, int64_t n, T* a, int64_t lda, cudaStream_t s) {
  if (n <= 1) return;
  zero_triangle_kernel<T><<<grid_for(n * n), kThreads, 0, s>>>(keep_upper, n, a, lda);
  check_launch("potrf");
}
template <class T> void copy_upper_t(int64_t k, int64_t n, const T* a, int64_t lda, T* r, int64_t ldr, cudaStream_t s) {
  if (k == 0 || n == 0) return;
  copy_upper_kernel<T><<<grid_for(k * n), kThreads, 0, s>>>(k, n, a, lda, r, ldr);
  check_launch("qr");
}
template <class T> void set_identity_t(int64_t n, T* a, int64_t lda, cudaStream_t s) {
  if (n == 0) return;
  identity_kernel<T><<<grid_for(n * n), kThreads, 0, s>>>(n, a, lda);
  check_launch("inverse");
}

}  // namespace

void zero_triangle(bool keep_upper, int64_t n, float* a, int64_t lda, cudaStream_t s) {
  zero_triangle_t(keep_upper, n, a, lda, s);
}
void zero_triangle(bool keep_upper, int64_t n, double* a, int64_t lda, cudaStream_t s) {
  zero_triangle_t(keep_upper, n, a, lda, s);
}
void copy_upper(int64_t k, int64_t n, const float* a, int64_t lda, float* r, int64_t ldr, cudaStream_t s) {
  copy_upper_t(k, n, a, lda, r, ldr, s);
}
void copy_upper(int64_t k, int64_t n, const double* a, int64_t lda, double* r, int64_t ldr, cudaStream_t s) {
  copy_upper_t(k, n, a, lda, r, ldr, s);
}
void set_identity(int64_t n, float* a, int64_t lda, cudaStream_t s) { set_identity_t(n, a, lda, s); }
void set_identity(int64_t n, double* a, int64_t lda, cudaStream_t s) { set_identity_t(n, a, lda, s); }

}  // namespace cuda
}  // namespace tocha
