// Batch normalization over many blocks per channel (Note [Batch norm across blocks],
// nn_batchnorm_split.cu), for channels of many values; nn_batchnorm.cu keeps one block per
// channel for small ones. f32 and f64; call inside a LaunchScope of the tensors' device.
#pragma once
#include <cstdint>
#include <cuda_runtime_api.h>
#include "core/ops/norm_kernels.h"

namespace tocha {
namespace cuda {

// Whether a batch of c channels of m values each takes the split kernels.
bool batch_norm_wants_split(int64_t c, int64_t m);

template <class T> void batch_norm_split(const BatchNormArgs& a, int device, cudaStream_t s);
template <class T> void batch_norm_backward_split(const BatchNormBackwardArgs& a, int device, cudaStream_t s);

}  // namespace cuda
}  // namespace tocha
