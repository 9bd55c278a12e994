// CUDA kernel of det and slogdet (core/ops/det.h): cuSOLVER getrf on each matrix of a batch, then
// the pivots read back once (one synchronization) for the signs of the row permutations.
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
// order). cuSOLVER's info > 0 (a singular U) is not an error here, so it is not read back.
template <class T> int det_cuda(int64_t batch, int64_t n, void* ap, int64_t lda, int64_t stride, double* perm_sign) {
  const char* op = "det";
  const int device = device_of(ap);
  LaunchScope scope(device);
  cusolverDnHandle_t h = cusolver_handle(device);
  T* a = static_cast<T*>(ap);
  int lwork = 0;
  TOCHA_CUSOLVER_CHECK(op, solver::getrf_buffer_size(h, int(n), int(n), a, int(lda), &lwork));
  Scratch work = scratch_of<T>(lwork, device), ipiv = scratch_of<int>(batch * n, device);
  Scratch info = scratch_of<int>(batch, device);
  for (int64_t k = 0; k < batch; ++k)
    TOCHA_CUSOLVER_CHECK(op, solver::getrf(h, int(n), int(n), a + k * stride, int(lda), work.as<T>(),
                                           ipiv.as<int>() + k * n, info.as<int>() + k));
  std::vector<int> pivots(size_t(batch * n));
  read_ints(op, ipiv.as<int>(), pivots.data(), int(batch * n), device);
  for (int64_t k = 0; k < batch; ++k) {
    double s = 1;
    for (int64_t i = 0; i < n; ++i)
      if (pivots[size_t(k * n + i)] != i + 1) s = -s;
    perm_sign[k] = s;
  }
  return 0;
}

static_assert(std::is_same<decltype(&det_cuda<float>), DetKernel>::value, "det signature");

TOCHA_REGISTER_KERNEL(det, cuda, DType::f32, &det_cuda<float>);
TOCHA_REGISTER_KERNEL(det, cuda, DType::f64, &det_cuda<double>);

}  // namespace
}  // namespace cuda
}  // namespace tocha
