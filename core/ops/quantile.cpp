// quantile and nanquantile (see quantile.h): sort along the dim (NaN last), the rank q * (k - 1)
// of each probability among the k elements used, and a gather of the neighbouring order
// statistics; lerp interpolates, so the gradient flows back through gather and sort.
#include "core/ops/quantile.h"
#include "core/type_name.h"
#include <cmath>
#include "core/error.h"
#include "core/ops/index_scatter.h"
#include "core/ops/pointwise.h"
#include "core/ops/predicates.h"
#include "core/ops/reduce.h"
#include "core/ops/sort.h"
#include "core/ops/stats.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

namespace {

enum class Interp { linear, lower, higher, midpoint, nearest };

Interp parse_interp(const char* op, const std::string& s) {
  if (s == "linear") return Interp::linear;
  if (s == "lower") return Interp::lower;
  if (s == "higher") return Interp::higher;
  if (s == "midpoint") return Interp::midpoint;
  if (s == "nearest") return Interp::nearest;
  fail(op, "interpolation must be 'linear', 'lower', 'higher', 'midpoint' or 'nearest', got '", s, "'");
}

// Round half to even (PyTorch rounds the 'nearest' rank with torch.round).
Tensor round_half_even(const Tensor& pos) {
  Tensor fl = unary(OpId::floor, pos);
  Tensor frac = binary(OpId::csub, pos, fl);
  Tensor odd = binary(OpId::eq, binary(OpId::remainder, fl, Scalar(2.0)), Scalar(1.0));
  Tensor up = logical_or(binary(OpId::gt, frac, Scalar(0.5)),
                         logical_and(binary(OpId::eq, frac, Scalar(0.5)), odd));
  return where(up, binary(OpId::add, fl, Scalar(1.0)), fl);
}

}  // namespace

// Note [Quantile ranks]: for a slice of k usable elements (all n for quantile, the non-NaN ones
// for nanquantile) sorted ascending, probability q sits at rank q * (k - 1) (0-based): linear
// interpolates between the elements at floor and ceil of it, lower/higher take one of them,
// midpoint their mean, nearest the rank rounded half to even, all as PyTorch 1.13. A slice with
// no usable element (nanquantile of all NaN) gives NaN; quantile of a slice with a NaN gives NaN.
Tensor quantile(const Tensor& x, const Tensor& q, bool has_dim, int64_t dim, bool keepdim,
                const std::string& interpolation, bool skip_nan) {
  const char* op = skip_nan ? "nanquantile" : "quantile";
  const Interp how = parse_interp(op, interpolation);
  TOCHA_CHECK(x.dtype() == DType::f32 || x.dtype() == DType::f64, op,
              "expected a torch.FloatTensor or torch.DoubleTensor, got a ", tensor_type_name(x));
  TOCHA_CHECK(q.dim() <= 1, op, "q must be a number or a 1-D tensor, got a tensor of size ", shape_str(q.sizes()));
  check_same_device(op, x, q);
  Tensor qf = to_dtype(q, x.dtype());
  if (qf.numel() > 0) {
    Tensor bad = logical_or(binary(OpId::lt, qf, Scalar(0.0)),
                            logical_or(binary(OpId::gt, qf, Scalar(1.0)), isnan(qf)));
    TOCHA_CHECK(!any_true(bad), op, "q values must be in the range [0, 1]");
  }
  // xs: the slices along the last dim; d: the dim they came from (-1: flattened)
  int d = -1;
  Tensor xs;
  if (has_dim) {
    d = wrap_dim(dim, x.dim(), op);
    xs = x.dim() == 0 ? reshape(x, DimVec{1}) : transpose(x, d, x.dim() - 1);
  } else {
    xs = reshape(x, DimVec{x.numel()});
  }
  const int64_t n = xs.size(xs.dim() - 1);
  TOCHA_CHECK(n > 0, op, "cannot take quantiles of ", has_dim ? "a dim" : "a tensor", " with no elements (size ",
              shape_str(x.sizes()), ")");
  Tensor sorted = sort(xs, -1, false, 0).values;  // NaN last
  DimVec batch = xs.sizes();
  batch[batch.size() - 1] = 1;
  // k: usable elements per slice, shape (batch..., 1)
  Tensor k = skip_nan ? to_dtype(sum_dims(logical_not(isnan(sorted)), 1u << (xs.dim() - 1), true), x.dtype())
                      : full(batch, double(n), x.dtype(), x.device());
  // pos: (Q, batch..., 1) ranks
  const int64_t nq = q.dim() == 0 ? 1 : q.size(0);
  DimVec qshape = DimVec::filled(xs.dim() + 1, 1);
  qshape[0] = nq;
  Tensor pos = binary(OpId::mul, reshape(qf, qshape), unsqueeze(clamp(binary(OpId::csub, k, Scalar(1.0)), 0.0,
                                                                          std::nullopt), 0));
  DimVec grid = unsqueeze(sorted, 0).sizes();
  grid[0] = nq;
  Tensor big = expand(unsqueeze(sorted, 0), grid);
  auto pick = [&](const Tensor& rank) { return gather(big, xs.dim(), to_dtype(rank, DType::i64), 0); };
  Tensor r;
  Tensor lo = unary(OpId::floor, pos), hi = unary(OpId::ceil, pos);
  switch (how) {
    case Interp::lower: r = pick(lo); break;
    case Interp::higher: r = pick(hi); break;
    case Interp::nearest: r = pick(round_half_even(pos)); break;
    case Interp::midpoint: r = lerp(pick(lo), pick(hi), Scalar(0.5)); break;
    case Interp::linear: r = lerp(pick(lo), pick(hi), binary(OpId::csub, pos, lo)); break;
  }
  // quantile: a slice holding NaN (sorted last) gives NaN, taken from that last element so that
  // the gradient reaches it as PyTorch's does (a NaN constant gave the slice no gradient).
  // nanquantile of no numbers picks rank 0, itself NaN (its gradient goes to the first NaN, as
  // PyTorch's).
  if (!skip_nan) {
    Tensor last = narrow(sorted, xs.dim() - 1, n - 1, 1);
    r = where(unsqueeze(isnan(last), 0), unsqueeze(last, 0), r);
  }
  // r: (Q, batch..., 1) -> the result's layout
  const int rd = r.dim();
  if (has_dim && x.dim() > 0) {
    r = transpose(r, d + 1, rd - 1);  // undo the transpose (shifted by the leading Q dim)
    if (!keepdim) r = squeeze(r, d + 1);
  } else if (has_dim) {
    r = squeeze(r, rd - 1);  // a 0-dim x: no dim to keep
  } else {
    r = squeeze(r, rd - 1);
    if (keepdim) r = reshape(r, [&] {
        DimVec s = DimVec::filled(x.dim() + 1, 1);
        s[0] = nq;
        return s;
      }());
  }
  if (q.dim() == 0) r = squeeze(r, 0);
  return contiguous(r);
}

}  // namespace tocha
