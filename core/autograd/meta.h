// Per-tensor autograd state, allocated only for tensors that take part in autograd.
#pragma once
#include "core/tensor.h"

namespace tocha {

struct AutogradMeta {
  Tensor grad;  // accumulated gradient (nil in Lua until a backward reaches this tensor)
};

}  // namespace tocha
