// tensor_type_name: see type_name.h.
#include "core/type_name.h"
#include <cstring>

namespace tocha {

std::string tensor_type_name(const Tensor& t) {
  const char* cpu = dtype_tensor_name(t.dtype());  // "torch.<Suffix>Tensor"
  if (t.device().is_cpu()) return cpu;
  if (t.dtype() == DType::f32) return "torch.CudaTensor";
  const char* suffix = std::strncmp(cpu, "torch.", 6) == 0 ? cpu + 6 : cpu;
  return std::string("torch.Cuda") + suffix;
}

}  // namespace tocha
