// out += bias over the channel dim of a contiguous (outer x channels x inner) tensor, on the
// stream of out's device: the bias of convolutions (kernels/cuda/cudnn_conv.cpp).
#pragma once
#include <cstdint>
#include "core/dtype.h"

namespace tocha {
namespace cuda {

// f32, f64, f16, bf16 (f16/bf16 add in float and round once). Call inside a LaunchScope of out's device.
void add_channel_bias(const char* op, DType dt, void* out, const void* bias, int64_t outer, int64_t channels,
                      int64_t inner);

}  // namespace cuda
}  // namespace tocha
