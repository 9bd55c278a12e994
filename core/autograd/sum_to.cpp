// sum_to: reduces a broadcast gradient back to an input's shape (Note [Gradient layout]).
#include "core/autograd/engine.h"
#include "core/ops/reduce.h"
#include "core/ops/views.h"

namespace tocha {
namespace autograd {

Tensor sum_to(const Tensor& g, const DimVec& shape) {
  if (g.sizes() == shape) return g;
  int lead = g.dim() - shape.size();
  TOCHA_CHECK(lead >= 0, "backward", "a gradient of size ", shape_str(g.sizes()), " cannot be reduced to ",
              shape_str(shape));
  uint32_t mask = 0;
  for (int d = 0; d < lead; ++d) mask |= 1u << d;
  for (int d = 0; d < shape.size(); ++d) {
    if (shape[d] == g.size(lead + d)) continue;
    TOCHA_CHECK(shape[d] == 1, "backward", "a gradient of size ", shape_str(g.sizes()), " cannot be reduced to ",
                shape_str(shape));
    mask |= 1u << (lead + d);
  }
  Tensor r = sum_dims(g, mask, true);
  return reshape(r, shape);
}

}  // namespace autograd
}  // namespace tocha
