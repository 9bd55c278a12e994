// The Lua class name of a tensor, device included, for error messages: "torch.DoubleTensor" on the
// CPU, "torch.CudaDoubleTensor" (f32: "torch.CudaTensor", cutorch's name) on a GPU. A message that
// said "mat1 is a torch.DoubleTensor" of a CUDA tensor sent users looking on the wrong device.
#pragma once
#include <string>
#include "core/tensor.h"

namespace tocha {

std::string tensor_type_name(const Tensor& t);

}  // namespace tocha
