// cuSOLVER plumbing shared by the CUDA LAPACK kernels (kernels/cuda/lapack_*.cpp): the cusolverDn
// handle of each device bound to Tocha's stream, status checks that name the op, device scratch
// from the caching allocator, LAPACK's info read back from the device, transposes through cuBLAS,
// and the small matrix kernels of lapack_util.cu. Matrices are column-major, as in the CPU kernels.
#pragma once
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <cstddef>
#include <cstdint>
#include "core/ref.h"
#include "core/storage.h"

namespace tocha {
namespace cuda {

// The cusolverDn handle of a device (created on first use, kept for the process), its stream set
// to stream(device) so that cuSOLVER runs in order with every other op (Note [One stream per device]).
cusolverDnHandle_t cusolver_handle(int device);

// Throws "[op] cuSOLVER error: ..."; CUSOLVER_STATUS_ALLOC_FAILED becomes OutOfMemory.
[[noreturn]] void fail_cusolver(const char* op, const char* what, int status);

// Device memory for one call (workspaces, pivots, devInfo), from the caching allocator: released
// when the object goes, in stream order, so the queued calls that use it are safe.
class Scratch {
 public:
  Scratch(size_t nbytes, int device);
  template <class T> T* as() const { return static_cast<T*>(storage_->data()); }

 private:
  Ref<Storage> storage_;
};
// Scratch for n elements of T (at least one).
template <class T> Scratch scratch_of(int64_t n, int device) {
  return Scratch(sizeof(T) * size_t(n > 0 ? n : 1), device);
}

// Copies n ints (cuSOLVER's devInfo values) from the device after the work queued before them:
// synchronizes the device's stream.
void read_ints(const char* op, const int* dev_src, int* host_dst, int n, int device);
// Copies the k diagonal entries of the column-major a (leading dimension lda) to the host
// (synchronizes the stream); returns the 1-based index of the first exact zero, or 0 (LAPACK's
// trtrs test for a singular triangular factor).
int first_zero_diagonal(const char* op, const float* a, int64_t lda, int64_t k, int device);
int first_zero_diagonal(const char* op, const double* a, int64_t lda, int64_t k, int device);

// b (n x m, leading dimension ldb) = a^T for the m x n a (lda), through cuBLAS geam.
void transpose(const char* op, int device, int64_t m, int64_t n, const float* a, int64_t lda, float* b, int64_t ldb);
void transpose(const char* op, int device, int64_t m, int64_t n, const double* a, int64_t lda, double* b,
               int64_t ldb);

// lapack_util.cu, queued on stream s:
// Zeros the strictly lower (keep_upper) or strictly upper triangle of the n x n a.
void zero_triangle(bool keep_upper, int64_t n, float* a, int64_t lda, cudaStream_t s);
void zero_triangle(bool keep_upper, int64_t n, double* a, int64_t lda, cudaStream_t s);
// r (k x n) = the upper triangle of a's first k rows, zeros below its diagonal.
void copy_upper(int64_t k, int64_t n, const float* a, int64_t lda, float* r, int64_t ldr, cudaStream_t s);
void copy_upper(int64_t k, int64_t n, const double* a, int64_t lda, double* r, int64_t ldr, cudaStream_t s);
// a (n x n) = the identity.
void set_identity(int64_t n, float* a, int64_t lda, cudaStream_t s);
void set_identity(int64_t n, double* a, int64_t lda, cudaStream_t s);

}  // namespace cuda
}  // namespace tocha

#define TOCHA_CUSOLVER_CHECK(op, call)                                                        \
  do {                                                                                        \
    int tocha_cusolver_st_ = int(call);                                                       \
    if (tocha_cusolver_st_ != 0) ::tocha::cuda::fail_cusolver(op, #call, tocha_cusolver_st_); \
  } while (0)
