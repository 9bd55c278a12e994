// Issue 9: every op of the table has a CUDA kernel for every dtype it supports on the CPU (DESIGN.md
// decision 3). Checked on the kernel registry itself, so a build with CUDA shows a missing pair
// without a GPU. The ops below reach CUDA tensors another way, each for the reason given.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include "core/device_runtime.h"
#include "core/kernel_registry.h"

using namespace tocha;

namespace {
// Ops whose CUDA tensors are served without a CUDA kernel of their own: eig and pstrf, which
// cuSOLVER lacks (no general eigensolver, no pivoted Cholesky), and the LDL^T pair (sytrs with
// LAPACK's pivots is not in every cuSOLVER), copy CUDA tensors to the host and back in their
// front-ends (Note [Host LAPACK for CUDA tensors], core/ops/lapack_t7.cpp). Earlier
// ones, multinomial and randperm, draw on the device since Note [Device randperm] and Note [Device
// multinomial] (kernels/cuda/random_perm.cu, random_multinomial.cu).
bool served_otherwise(OpId op) {
  return op == OpId::eig || op == OpId::pstrf || op == OpId::ldlFactor || op == OpId::ldlSolve;
}
}  // namespace

TEST_CASE("kernel registry: CUDA kernels for every CPU (op, dtype)", "[kernel_parity]") {
  if (!device_runtime(DeviceType::cuda)) {
    SUCCEED("built without the CUDA backend");
    return;
  }
  std::string missing;
  int pairs = 0;
  for (int op = 0; op < kNumOps; ++op) {
    const OpId id = OpId(op);
    if (served_otherwise(id)) continue;
    for (int d = 0; d < kNumDTypes; ++d) {
      const DType dt = DType(d);
      if (!find_kernel(id, DeviceType::cpu, dt)) continue;
      ++pairs;
      if (!find_kernel(id, DeviceType::cuda, dt)) missing += std::string(op_name(id)) + "/" + dtype_name(dt) + " ";
    }
  }
  INFO("CPU (op, dtype) pairs: " << pairs << "; without a CUDA kernel: " << missing);
  CHECK(pairs > 500);
  CHECK(missing.empty());
}
