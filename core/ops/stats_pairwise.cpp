// Front-ends of stats_pairwise.h: checks that name the op, then recorded primitives only.
#include "core/ops/stats_pairwise.h"
#include "core/type_name.h"
#include <cmath>
#include "core/autograd/record.h"
#include "core/error.h"
#include "core/ops/arrange.h"
#include "core/ops/linalg.h"
#include "core/ops/matmul.h"
#include "core/ops/matrix.h"
#include "core/ops/pointwise.h"
#include "core/ops/predicates.h"
#include "core/ops/reduce.h"
#include "core/ops/scan.h"
#include "core/ops/index.h"
#include "core/ops/reduce_iter.h"
#include "core/ops/stats.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

using stats::as_float;

// PyTorch's torch.cov: w = fweights * aweights; avg = sum(x w) / sum(w); the normalization is
// sum(w) - correction * sum(w aweights) / sum(w) (n - correction without weights), at least 0.
Tensor cov(const Tensor& x_in, double correction, const Tensor& fweights, const Tensor& aweights) {
  const char* op = "cov";
  TOCHA_CHECK(x_in.dim() <= 2, op, "expected a 1-D or 2-D tensor, got a tensor of size ", shape_str(x_in.sizes()));
  TOCHA_CHECK(std::isfinite(correction), op, "correction must be a finite number, got ", correction);
  Tensor x = as_float(x_in.dim() < 2 ? reshape(x_in, DimVec{1, x_in.numel()}) : x_in);
  const int64_t n = x.size(1);
  Tensor w;
  if (fweights.defined()) {
    TOCHA_CHECK(fweights.dim() <= 1 && fweights.numel() == n, op, "fweights must be 1-D with ", n,
                " elements (one per observation), got size ", shape_str(fweights.sizes()));
    TOCHA_CHECK(!is_floating(fweights.dtype()) && fweights.dtype() != DType::b8, op,
                "fweights must be an integer tensor, got a ", tensor_type_name(fweights));
    check_same_device(op, x, fweights);
    TOCHA_CHECK(n == 0 || item_at(min(fweights), 0) >= 0, op, "fweights cannot be negative");
    w = to_dtype(reshape(fweights, DimVec{n}), x.dtype());
  }
  if (aweights.defined()) {
    TOCHA_CHECK(aweights.dim() <= 1 && aweights.numel() == n, op, "aweights must be 1-D with ", n,
                " elements (one per observation), got size ", shape_str(aweights.sizes()));
    TOCHA_CHECK(is_floating(aweights.dtype()), op, "aweights must be a floating-point tensor, got a ",
                tensor_type_name(aweights));
    check_same_device(op, x, aweights);
    TOCHA_CHECK(n == 0 || item_at(min(aweights), 0) >= 0, op, "aweights cannot be negative");
    Tensor a = to_dtype(reshape(aweights, DimVec{n}), x.dtype());
    w = w.defined() ? binary(OpId::mul, w, a) : a;
  }
  Tensor avg, norm_factor;
  if (w.defined()) {
    Tensor wsum = sum(w);
    avg = binary(OpId::div, sum(binary(OpId::mul, x, w), 1, true), wsum);
    if (correction == 0) norm_factor = wsum;
    else if (!aweights.defined()) norm_factor = binary(OpId::csub, wsum, Scalar(correction));
    else {
      Tensor a = to_dtype(reshape(aweights, DimVec{n}), x.dtype());
      norm_factor = binary(OpId::csub, wsum,
                           binary(OpId::div, binary(OpId::mul, sum(binary(OpId::mul, w, a)), Scalar(correction)), wsum));
    }
  } else {
    avg = mean(x, 1, true);
    norm_factor = full({}, double(n) - correction, x.dtype(), x.device());
  }
  norm_factor = clamp(norm_factor, 0.0, std::nullopt);
  Tensor xm = binary(OpId::csub, x, avg);
  Tensor xw = w.defined() ? binary(OpId::mul, xm, w) : xm;
  Tensor c = binary(OpId::div, mm(xw, transpose(xm, 0, 1)), norm_factor);
  return x_in.dim() < 2 ? reshape(c, DimVec{}) : c;
}

Tensor corrcoef(const Tensor& x) {
  TOCHA_CHECK(x.dim() <= 2, "corrcoef", "expected a 1-D or 2-D tensor, got a tensor of size ", shape_str(x.sizes()));
  Tensor c = cov(x, 1, Tensor(), Tensor());
  if (c.dim() == 0) return binary(OpId::div, c, c);
  Tensor sd = unary(OpId::sqrt, diag(c, 0));
  c = binary(OpId::div, c, unsqueeze(sd, 1));
  c = binary(OpId::div, c, unsqueeze(sd, 0));
  return clamp(c, -1.0, 1.0);
}

// Note [Trapezoid]: the sum (or running sum) of (y[i] + y[i+1]) / 2 * dx_i along dim; dx_i is a
// constant or diff(x) (x 1-D along dim, or x of y's shape). A dim of size 0 or 1 integrates to 0
// (PyTorch: zeros of the reduced shape; cumulative: an empty dim).
Tensor trapezoid(const Tensor& y, const Tensor& x, double dx, int64_t dim, bool cumulative) {
  const char* op = cumulative ? "cumulativeTrapezoid" : "trapezoid";
  TOCHA_CHECK(y.dim() > 0, op, "expected y with at least one dimension, got a 0-dim tensor");
  const int d = wrap_dim(dim, y.dim(), op);
  const int64_t n = y.size(d);
  Tensor yf = as_float(y);
  Tensor spacing;  // undefined: the constant dx
  if (x.defined()) {
    check_same_device(op, y, x);
    if (x.dim() == 1) {
      TOCHA_CHECK(x.size(0) == n, op, "x has ", x.size(0), " samples but y has ", n, " along dim ", d + 1);
      DimVec s = DimVec::filled(y.dim(), 1);
      s[d] = n > 0 ? n - 1 : 0;
      spacing = n > 1 ? reshape(diff(as_float(x), 1, 0, Tensor(), Tensor()), s) : Tensor();
    } else {
      TOCHA_CHECK(x.sizes() == y.sizes(), op, "x of size ", shape_str(x.sizes()),
                  " must be 1-D or have y's size ", shape_str(y.sizes()));
      spacing = n > 1 ? diff(as_float(x), 1, d, Tensor(), Tensor()) : Tensor();
    }
  }
  if (n <= 1) {
    if (cumulative) return narrow(zeros(y.sizes(), yf.dtype(), y.device()), d, 0, 0);
    return zeros(reduced_shape(y.sizes(), 1u << d, false), yf.dtype(), y.device());
  }
  Tensor avg = binary(OpId::mul, binary(OpId::add, narrow(yf, d, 1, n - 1), narrow(yf, d, 0, n - 1)), Scalar(0.5));
  Tensor terms = spacing.defined() ? binary(OpId::mul, avg, spacing) : binary(OpId::mul, avg, Scalar(dx));
  return cumulative ? cumsum(terms, d) : sum(terms, d, false);
}

// Note [Euclidean cdist through a matrix product]
// For p = 2 with more than 25 rows on a side, PyTorch's default compute mode: |a - b|^2 =
// |a|^2 + |b|^2 - 2 a.b, the cross terms one (batched) matrix product, clamped at 1e-30 before
// the square root (so equal points get 0 and a zero gradient). O(P R) memory instead of the
// (P, R, M) differences: 256x64 against 256x64 was 35x PyTorch's time. The cancellation costs
// accuracy where distances are much smaller than the norms, as in PyTorch.
Tensor euclidean_by_mm(const Tensor& x1, const Tensor& x2) {
  Tensor n1 = sum(binary(OpId::mul, x1, x1), -1, true);                    // (..., P, 1)
  Tensor n2 = transpose(sum(binary(OpId::mul, x2, x2), -1, true), -1, -2);  // (..., 1, R)
  Tensor cross = matmul(x1, transpose(x2, -1, -2));                         // (..., P, R)
  Tensor d2 = binary(OpId::csub, binary(OpId::add, n1, n2), cross, 2.0);
  return unary(OpId::sqrt, clamp(d2, 1e-30, std::nullopt));
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p) {
  const char* op = "cdist";
  TOCHA_CHECK(x1.dim() >= 2 && x2.dim() >= 2, op, "expected x1 and x2 with at least 2 dims, got sizes ",
              shape_str(x1.sizes()), " and ", shape_str(x2.sizes()));
  TOCHA_CHECK(is_floating(x1.dtype()) && x1.dtype() == x2.dtype(), op,
              "expected two floating-point tensors of one type, got a ", tensor_type_name(x1), " and a ",
              tensor_type_name(x2));
  TOCHA_CHECK(p >= 0 && !std::isnan(p), op, "p must be >= 0, got ", p);
  check_same_device(op, x1, x2);
  const int64_t m = x1.size(x1.dim() - 1);
  TOCHA_CHECK(x2.size(x2.dim() - 1) == m, op, "x1 and x2 must have as many columns, got sizes ",
              shape_str(x1.sizes()), " and ", shape_str(x2.sizes()));
  // (..., P, 1, M) - (..., 1, R, M), broadcasting the batch dims, then the norm over M
  Tensor a = unsqueeze(x1, x1.dim() - 1), b = unsqueeze(x2, x2.dim() - 2);
  DimVec shape;
  TOCHA_CHECK(broadcast_shapes(a.sizes(), b.sizes(), &shape), op, "batch dims of x1 (size ", shape_str(x1.sizes()),
              ") and x2 (size ", shape_str(x2.sizes()), ") do not broadcast");
  if (p == 2 && m > 0 && (x1.size(x1.dim() - 2) > 25 || x2.size(x2.dim() - 2) > 25)) {
    Tensor r = euclidean_by_mm(x1, x2);
    DimVec out = shape;  // (..., P, R): the broadcast batch dims, without M
    out.resize(out.size() - 1);
    return r.sizes() == out ? r : contiguous(expand(r, out));
  }
  Tensor diff_t = binary(OpId::csub, a, b);
  if (m == 0) return sum(diff_t, -1, false);  // no columns: every distance is 0
  if (p > 0 && p < 1) {
    // norm's gradient p |d|^(p-1) is 0 * inf at a coordinate difference of 0; PyTorch's cdist
    // gives it 0 there, so |d|^p is taken of 1 where d = 0 and that branch is masked away.
    Tensor at0 = binary(OpId::eq, diff_t, Scalar(0.0));
    Tensor safe = where(at0, full({}, 1.0, diff_t.dtype(), diff_t.device()), diff_t);
    Tensor terms = where(at0, zeros({}, diff_t.dtype(), diff_t.device()),
                         binary(OpId::pow, unary(OpId::abs, safe), Scalar(p)));
    return binary(OpId::pow, sum(terms, -1, false), Scalar(1.0 / p));
  }
  return norm(diff_t, p, -1, false);
}

Tensor pdist(const Tensor& x, double p) {
  const char* op = "pdist";
  TOCHA_CHECK(x.dim() == 2, op, "expected a 2-D tensor (N, M), got size ", shape_str(x.sizes()));
  const int64_t n = x.size(0);
  Tensor full_d = cdist(x, x, p);
  if (n < 2) return empty(DimVec{0}, x.dtype(), x.device());
  // the pairs i < j in row-major order: positions i * n + j of the flattened matrix
  Tensor idx = empty(DimVec{n * (n - 1) / 2}, DType::i64, Device{});
  int64_t* pos = static_cast<int64_t*>(idx.raw_data());  // a fresh contiguous CPU tensor
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) *pos++ = i * n + j;
  return index_select(reshape(full_d, DimVec{n * n}), 0, to_device(idx, x.device()), 0);
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  const char* op = "cosineSimilarity";
  check_same_device(op, x1, x2);
  TOCHA_CHECK(is_floating(x1.dtype()) && is_floating(x2.dtype()), op,
              "expected floating-point tensors (as PyTorch), got a ", tensor_type_name(x1), " and a ",
              tensor_type_name(x2));
  DimVec shape;
  TOCHA_CHECK(broadcast_shapes(x1.sizes(), x2.sizes(), &shape), op, "x1 of size ", shape_str(x1.sizes()),
              " and x2 of size ", shape_str(x2.sizes()), " do not broadcast");
  TOCHA_CHECK(!shape.empty(), op, "expected tensors with at least one dimension");
  const int d = wrap_dim(dim, int(shape.size()), op);
  Tensor a = expand(x1, shape), b = expand(x2, shape);
  // PyTorch 1.13: sum(x1 x2) / sqrt(max(|x1|^2, eps^2) max(|x2|^2, eps^2)), the clamps made in
  // place under no_grad, so the gradient flows as if they were not there (nn.functional's too).
  auto sq_norm = [&](const Tensor& t) {
    Tensor s = sum(binary(OpId::mul, t, t), d, true);
    Tensor sd = autograd::detach(s);
    return binary(OpId::add, s, binary(OpId::csub, clamp(sd, eps * eps, std::nullopt), sd));
  };
  Tensor dot = sum(binary(OpId::mul, a, b), d, true);
  Tensor r = binary(OpId::div, dot, unary(OpId::sqrt, binary(OpId::mul, sq_norm(a), sq_norm(b))));
  return squeeze(r, d);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  const char* op = "pairwiseDistance";
  check_same_device(op, x1, x2);
  DimVec shape;
  TOCHA_CHECK(broadcast_shapes(x1.sizes(), x2.sizes(), &shape), op, "x1 of size ", shape_str(x1.sizes()),
              " and x2 of size ", shape_str(x2.sizes()), " do not broadcast");
  TOCHA_CHECK(!shape.empty(), op, "expected tensors with at least one dimension");
  TOCHA_CHECK(p >= 0 && !std::isnan(p), op, "p must be >= 0, got ", p);
  Tensor d = binary(OpId::add, binary(OpId::csub, as_float(x1), as_float(x2)), Scalar(eps));
  return norm(d, p, -1, keepdim);
}

}  // namespace tocha
