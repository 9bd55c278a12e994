// CPU kernels of the LDL^T pair (core/ops/linalg_ldl.h): sytrf and sytrs over OpenBLAS's Fortran
// LAPACK, lower triangle, f32 and f64. Column-major in place; they return LAPACK's info
// (core/ops/lapack_kernels.h). They also serve CUDA tensors, on host copies (Note [Host LAPACK
// for CUDA tensors], core/ops/lapack_t7.cpp).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/lapack_kernels.h"
#include "kernels/cpu/lapack_fortran.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> int sytrf_kernel(int64_t n, void* ap, int64_t lda, int32_t* ipiv) {
  static_assert(sizeof(int) == sizeof(int32_t), "LAPACK's integers are 32-bit");
  T* a = static_cast<T*>(ap);
  int* piv = reinterpret_cast<int*>(ipiv);
  T query = 0;
  int info = lapack::sytrf('L', int(n), a, int(lda), piv, &query, -1);
  if (info != 0) return info;
  std::vector<T> work(size_t(std::max(1, int(std::ceil(double(query))))));
  return lapack::sytrf('L', int(n), a, int(lda), piv, work.data(), int(work.size()));
}

template <class T>
int sytrs_kernel(int64_t n, int64_t nrhs, const void* a, int64_t lda, const int32_t* ipiv, void* b, int64_t ldb) {
  return lapack::sytrs('L', int(n), int(nrhs), static_cast<const T*>(a), int(lda), reinterpret_cast<const int*>(ipiv),
                       static_cast<T*>(b), int(ldb));
}

static_assert(std::is_same<decltype(&sytrf_kernel<float>), SytrfKernel>::value, "sytrf signature");
static_assert(std::is_same<decltype(&sytrs_kernel<float>), SytrsKernel>::value, "sytrs signature");

TOCHA_REGISTER_KERNEL(ldlFactor, cpu, DType::f32, &sytrf_kernel<float>);
TOCHA_REGISTER_KERNEL(ldlFactor, cpu, DType::f64, &sytrf_kernel<double>);
TOCHA_REGISTER_KERNEL(ldlSolve, cpu, DType::f32, &sytrs_kernel<float>);
TOCHA_REGISTER_KERNEL(ldlSolve, cpu, DType::f64, &sytrs_kernel<double>);

}  // namespace
}  // namespace cpu
}  // namespace tocha
