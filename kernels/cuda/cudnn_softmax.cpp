// CUDA kernel of the fused softmax and logSoftmax (core/ops/softmax_kernels.h) through cuDNN's
// cudnnSoftmaxForward: the outer x n x inner block as an NCHW tensor (outer, n, inner, 1) with the
// softmax over C (CUDNN_SOFTMAX_MODE_CHANNEL), max-shifted (ACCURATE) or LOG. f32, f64 and f16;
// bf16 and builds without cuDNN have no kernel here and take the composite (core/ops/softmax.cpp).
// cuDNN takes int sizes: outer is split so that each call holds at most INT_MAX elements (the
// front-end keeps one n x inner block below that).
#include "core/kernel_registry.h"
#include "core/ops/softmax_kernels.h"

#ifdef TOCHA_HAVE_CUDNN
#include <algorithm>
#include <climits>
#include <type_traits>
#include "kernels/cuda/cudnn_util.h"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

template <DType dt> void softmax_cudnn(const SoftmaxArgs& a) {
  using S = std::conditional_t<dt == DType::f64, double, float>;
  const char* op = a.log ? "logSoftmax" : "softmax";
  const int device = device_of(a.y);
  LaunchScope scope(device);
  cudnnHandle_t h = cudnn_handle(op, device);
  const int64_t block = a.n * a.inner, per_call = std::max<int64_t>(1, INT_MAX / block);
  const size_t bytes = size_t(block) * dtype_size(dt);
  const S one = 1, zero = 0;
  for (int64_t o = 0; o < a.outer; o += per_call) {
    const int64_t rows = std::min(per_call, a.outer - o);
    const int64_t sizes[4] = {rows, a.n, a.inner, 1};
    TensorDesc d(op, dt, 4, sizes);
    const char* x = static_cast<const char*>(a.x) + size_t(o) * bytes;
    char* y = static_cast<char*>(a.y) + size_t(o) * bytes;
    TOCHA_CUDNN_CHECK(op, cudnnSoftmaxForward(h, a.log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                              CUDNN_SOFTMAX_MODE_CHANNEL, &one, d.d, x, &zero, d.d, y));
  }
}

}  // namespace

#define REG_SOFTMAX(dt)                                                 \
  TOCHA_REGISTER_KERNEL(softmax, cuda, dt, &softmax_cudnn<dt>);          \
  TOCHA_REGISTER_KERNEL(logSoftmax, cuda, dt, &softmax_cudnn<dt>);
REG_SOFTMAX(DType::f32)
REG_SOFTMAX(DType::f64)
REG_SOFTMAX(DType::f16)

}  // namespace cuda
}  // namespace tocha
#endif
