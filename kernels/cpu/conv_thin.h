// Thin-filter CPU convolutions (kernels/cpu/conv_thin.cpp, Note [Thin convolutions on the CPU]):
// the forward pass and the weight gradient when in_channels x kernel taps <= 32 and groups = 1.
#pragma once
#include "core/ops/conv_kernels.h"

namespace tocha {
namespace cpu {

// Each returns false, having done nothing, when the geometry is not thin; T is float or double.
template <class T> bool thin_conv(const ConvArgs& a);
template <class T> bool thin_conv_weight(const ConvArgs& a);

}  // namespace cpu
}  // namespace tocha
