// bincount and histogram front-ends (see histogram.h): checks that name the op, then index_add
// of ones or weights into zeros, so every device with index_add runs them.
#include "core/ops/histogram.h"
#include "core/type_name.h"
#include <cmath>
#include "core/error.h"
#include "core/ops/factory.h"
#include "core/ops/index.h"
#include "core/ops/pointwise.h"
#include "core/ops/predicates.h"
#include "core/ops/reduce.h"
#include "core/ops/search.h"
#include "core/ops/stats.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

Tensor bincount(const Tensor& x, const Tensor& weights, int64_t minlength) {
  const char* op = "bincount";
  TOCHA_CHECK(x.dim() == 1, op, "expected a 1-D tensor, got a tensor of size ", shape_str(x.sizes()));
  TOCHA_CHECK(!is_floating(x.dtype()) && x.dtype() != DType::b8, op,
              "expected an integer tensor (Long, Int or Byte), got a ", tensor_type_name(x));
  TOCHA_CHECK(minlength >= 0, op, "minlength must not be negative, got ", minlength);
  if (weights.defined()) {
    TOCHA_CHECK(weights.dim() == 1 && weights.size(0) == x.size(0), op, "weights of size ",
                shape_str(weights.sizes()), " do not match the input of size ", shape_str(x.sizes()));
    check_same_device(op, x, weights);
  }
  // One count per value up to the largest: a stray huge value (1e12) must be an error naming the
  // op, not an attempt to allocate terabytes. 2^32 bins is 32 GiB of counts already.
  constexpr int64_t kMaxBins = int64_t(1) << 32;
  int64_t len = minlength;
  if (x.numel() > 0) {
    const double lo = item_at(min(x), 0), hi = item_at(max(x), 0);
    TOCHA_CHECK(lo >= 0, op, "expected non-negative values, got ", int64_t(lo));
    TOCHA_CHECK(hi < double(kMaxBins), op, "largest value ", int64_t(hi), " is too large to count (at most ",
                kMaxBins - 1, ")");
    if (int64_t(hi) + 1 > len) len = int64_t(hi) + 1;
  }
  TOCHA_CHECK(len <= kMaxBins, op, "minlength ", minlength, " is too large (at most ", kMaxBins, " bins)");
  const DType dt = !weights.defined() ? DType::i64 : is_floating(weights.dtype()) ? weights.dtype() : DType::f64;
  Tensor src = weights.defined() ? to_dtype(weights, dt) : full(x.sizes(), 1, dt, x.device());
  return index_add(zeros(DimVec{len}, dt, x.device()), 0, to_dtype(x, DType::i64), src, 0);
}

// Note [Histogram bins]: an element's bin is searchsorted(edges, v, right) - 1, the last edge
// folded into the last bin, so bins are [e_i, e_{i+1}) and the last [e_{n-1}, e_n]; elements
// below the first edge, above the last or NaN get weight 0. PyTorch computes equal bins by
// arithmetic with a fix-up against the edges, which lands in the same bins.
Histogram histogram(const Tensor& x, int64_t bins, const Tensor& edges_in, std::optional<double> lo,
                    std::optional<double> hi, const Tensor& weight, bool density) {
  const char* op = "histogram";
  TOCHA_CHECK(x.dtype() == DType::f32 || x.dtype() == DType::f64, op,
              "expected a torch.FloatTensor or torch.DoubleTensor, got a ", tensor_type_name(x));
  if (weight.defined()) {
    TOCHA_CHECK(weight.sizes() == x.sizes(), op, "weight of size ", shape_str(weight.sizes()),
                " does not match the input of size ", shape_str(x.sizes()));
    check_same_device(op, x, weight);
  }
  Tensor edges;
  if (edges_in.defined()) {
    TOCHA_CHECK(edges_in.dim() == 1 && edges_in.size(0) >= 2, op,
                "bin edges must be a 1-D tensor with at least two elements (one bin), got size ",
                shape_str(edges_in.sizes()));
    TOCHA_CHECK(!lo && !hi, op, "a range cannot be given with bin edges");
    check_same_device(op, x, edges_in);
    edges = contiguous(to_dtype(edges_in, x.dtype()));
    Tensor steps = binary(OpId::csub, narrow(edges, 0, 1, edges.size(0) - 1), narrow(edges, 0, 0, edges.size(0) - 1));
    TOCHA_CHECK(!any_true(logical_not(binary(OpId::ge, steps, Scalar(0.0)))), op, "bin edges must be increasing");
  } else {
    TOCHA_CHECK(bins > 0, op, "bins must be positive, got ", bins);
    TOCHA_CHECK(bool(lo) == bool(hi), op, "range needs both a min and a max");
    double a = 0, b = 0;
    if (lo) {
      a = *lo, b = *hi;
    } else if (x.numel() > 0) {
      a = item_at(min(x), 0), b = item_at(max(x), 0);
    }
    TOCHA_CHECK(std::isfinite(a) && std::isfinite(b), op, "range [", a, ", ", b, "] is not finite");
    TOCHA_CHECK(a <= b, op, "max must be larger than min, got range [", a, ", ", b, "]");
    if (a == b) {
      // PyTorch: an empty range widens by 0.5 each way; no elements and no range: [0, 1]
      if (!lo && x.numel() == 0) b = 1;
      else a -= 0.5, b += 0.5;
    }
    edges = to_device(linspace(a, b, bins + 1, x.dtype()), x.device());
  }
  const int64_t nb = edges.size(0) - 1;
  Tensor flat = reshape(x, DimVec{x.numel()});
  Tensor hist = zeros(DimVec{nb < 0 ? 0 : nb}, x.dtype(), x.device());
  if (nb > 0 && x.numel() > 0) {
    const double first = item_at(edges, 0), last = item_at(edges, nb);
    Tensor pos = binary(OpId::csub, searchsorted(edges, flat, true, false, Tensor(), 0), Scalar(1.0));
    Tensor bin = clamp(pos, 0.0, double(nb - 1));
    Tensor inside = logical_and(binary(OpId::ge, flat, Scalar(first)), binary(OpId::le, flat, Scalar(last)));
    Tensor w = weight.defined() ? reshape(to_dtype(weight, x.dtype()), DimVec{x.numel()})
                                : full(DimVec{x.numel()}, 1, x.dtype(), x.device());
    w = where(inside, w, zeros({}, x.dtype(), x.device()));
    hist = index_add(hist, 0, to_dtype(bin, DType::i64), w, 0);
  }
  if (density && nb > 0) {
    Tensor widths = binary(OpId::csub, narrow(edges, 0, 1, nb), narrow(edges, 0, 0, nb));
    hist = binary(OpId::div, binary(OpId::div, hist, sum(hist)), widths);
  }
  return {hist, edges};
}

}  // namespace tocha
