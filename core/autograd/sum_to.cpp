// sum_to: reduces a broadcast gradient back to an input's shape (Note [Gradient layout]).
#include "core/autograd/engine.h"
#include "core/autograd/formula_ops.h"

namespace tocha {
namespace autograd {

// TEMPORARY (autograd branch): sums along dim d keeping it, by adding slices; replaced by the
// reduction front-end when the reduce family lands.
static Tensor sum_keep(const Tensor& t, int d) {
  Tensor acc = narrow(t, d, 0, 1);
  for (int64_t k = 1; k < t.size(d); ++k) acc = f::add(acc, narrow(t, d, k, 1));
  return acc;
}

Tensor sum_to(const Tensor& g, const DimVec& shape) {
  if (g.sizes() == shape) return g;
  Tensor r = g;
  int lead = g.dim() - shape.size();
  TOCHA_CHECK(lead >= 0, "backward", "gradient of size ", shape_str(g.sizes()), " cannot be reduced to ", shape_str(shape));
  for (int d = 0; d < lead; ++d) r = sum_keep(r, 0), r = squeeze(r, 0);
  for (int d = 0; d < shape.size(); ++d) {
    if (shape[d] == r.size(d)) continue;
    TOCHA_CHECK(shape[d] == 1, "backward", "gradient of size ", shape_str(g.sizes()), " cannot be reduced to ",
                shape_str(shape));
    r = sum_keep(r, d);
  }
  return r;
}

}  // namespace autograd
}  // namespace tocha
