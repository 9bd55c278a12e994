// CUDA kernel of det and slogdet (core/ops/det.h): cuSOLVER getrf on each matrix of a batch, then
// the pivots read back (one synchronization per 2^30 of them) for the signs of the row permutations.
#include <algorithm>
#include <type_traits>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/det.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/cusolver_api.h"
#include "kernels/cuda/runtime.h"
#include "kernels/cuda/solver.h"

namespace tocha {
namespace cuda {
namespace {

// One getrf call per matrix on the device's stream, sharing one workspace (the calls run in
// order). cuSOLVER's info > 0 (a singular U) is not an error here, so it is not read back. The
// pivots come back in chunks of at most 2^30 ints: read_ints counts in int, and batch * n can
// pass INT_MAX (2^31 matrices of 1 x 1 floats are 8 GiB, 2^30 of 2 x 2 ones 16 GiB).
template <class T> int det_cuda(int64_t batch, int64_t n, void* ap, int64_t lda, int64_t stride, double* perm_sign) {
  const char* op = "det";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  T* a = static_cast<T*>(ap);
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::getrf_buffer_size(h, int(n), int(n), a, int(lda), &lwork));
  const int64_t chunk = std::max<int64_t>(1, std::min<int64_t>(batch, (int64_t(1) << 30) / n));
  Scratch work = scratch_of<T>(lwork, device), ipiv = scratch_of<int>(chunk * n, device);
  Scratch info = scratch_of<int>(chunk, device);
  std::vector<int> pivots(size_t(chunk * n));
  for (int64_t k0 = 0; k0 < batch; k0 += chunk) {
    const int64_t m = std::min(chunk, batch - k0);
    for (int64_t k = 0; k < m; ++k)
      TOCHA_CUSOLVER_CHECK(op, solver::getrf(h, int(n), int(n), a + (k0 + k) * stride, int(lda), work.as<T>(),
                                             ipiv.as<int>() + k * n, info.as<int>() + k));
    read_ints(op, ipiv.as<int>(), pivots.data(), int(m * n), device);  // waits for the factorizations
    for (int64_t k = 0; k < m; ++k) {
      double s = 1;
      for (int64_t i = 0; i < n; ++i)
        if (pivots[size_t(k * n + i)] != i + 1) s = -s;  // each pivot that is not the row itself is one swap
      perm_sign[k0 + k] = s;
    }
  }
  return 0;
}

static_assert(std::is_same<decltype(&det_cuda<float>), DetKernel>::value, "det signature");

TOCHA_REGISTER_KERNEL(det, cuda, DType::f32, &det_cuda<float>);
TOCHA_REGISTER_KERNEL(det, cuda, DType::f64, &det_cuda<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
