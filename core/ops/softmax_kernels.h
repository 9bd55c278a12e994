// Kernel interface of the fused softmax and logSoftmax (core/ops/softmax.cpp): x and y contiguous,
// viewed as outer x n x inner with n the normalized dim, so row (o, i) is x[(o * n + k) * inner + i]
// for k in [0, n). One kernel serves both ops; `log` says which.
#pragma once
#include <cstdint>

namespace tocha {

struct SoftmaxArgs {
  int64_t outer = 0, n = 0, inner = 0;
  const void* x = nullptr;
  void* y = nullptr;
  bool log = false;
};
using SoftmaxKernel = void (*)(const SoftmaxArgs&);

}  // namespace tocha
