// The LAPACK family on CUDA without a GPU: a build with the CUDA backend registers a cuSOLVER
// kernel for every LAPACK op in f32 and f64 (kernels/cuda/lapack_*.cpp), and a CUDA tensor
// reaches it through the same front-end as the CPU (the values are compared with the CPU's by
// tests/lua/test_cuda_lapack.lua, cuda.lapack, on a GPU).
#include <catch2/catch.hpp>
#include "core/device_runtime.h"
#include "core/kernel_registry.h"

using namespace tocha;

TEST_CASE("every LAPACK op has a CUDA kernel for f32 and f64 when CUDA is built", "[lapack][cuda]") {
  if (!device_runtime(DeviceType::cuda)) {
    SUCCEED("built without the CUDA backend");
    return;
  }
  for (OpId op : {OpId::gesv, OpId::gels, OpId::inverse, OpId::potrf, OpId::potrs, OpId::symeig, OpId::svd,
                  OpId::qr}) {
    for (DType dt : {DType::f32, DType::f64}) {
      INFO("op " << int(op) << " dtype " << dtype_tensor_name(dt));
      CHECK(find_kernel(op, DeviceType::cuda, dt) != nullptr);
    }
    // Half precision has no LAPACK, on either device.
    CHECK(find_kernel(op, DeviceType::cuda, DType::f16) == nullptr);
  }
}
