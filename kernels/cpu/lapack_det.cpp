// CPU kernel of det and slogdet (core/ops/det.h): LAPACK getrf on each matrix of a batch, and the
// sign of each row permutation read from the pivots.
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/det.h"
#include "kernels/cpu/lapack_fortran.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> int det_kernel(int64_t batch, int64_t n, void* a, int64_t lda, int64_t stride, double* perm_sign) {
  std::vector<int> ipiv(static_cast<size_t>(n));
  for (int64_t k = 0; k < batch; ++k) {
    // info > 0 (an exact zero on U's diagonal) is a singular matrix: det 0, not an error
    int info = lapack::getrf(int(n), static_cast<T*>(a) + k * stride, int(lda), ipiv.data());
    if (info < 0) return info;
    double s = 1;
    for (int64_t i = 0; i < n; ++i)
      if (ipiv[size_t(i)] != i + 1) s = -s;  // each pivot that is not the row itself is one swap
    perm_sign[k] = s;
  }
  return 0;
}

TOCHA_REGISTER_KERNEL(det, cpu, DType::f32, static_cast<DetKernel>(&det_kernel<float>));
TOCHA_REGISTER_KERNEL(det, cpu, DType::f64, static_cast<DetKernel>(&det_kernel<double>));

}  // namespace
}  // namespace cpu
}  // namespace tocha
