// torch.linalg's composite functions (see linalg_extra.h): each one is a few recorded ops over
// the batched decompositions of linalg_decomp.cpp, so autograd and devices come with them.
#include "core/ops/linalg_extra.h"
#include "core/type_name.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>
#include "core/autograd/grad_mode.h"
#include "core/error.h"
#include "core/ops/factory.h"
#include "core/ops/join.h"
#include "core/ops/lapack.h"
#include "core/ops/linalg_decomp.h"
#include "core/ops/matmul.h"
#include "core/ops/pointwise.h"
#include "core/ops/reduce.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

using linalg::check_batch;

namespace {

Tensor mT(const Tensor& x) { return transpose(x, -2, -1); }
Tensor mulk(const Tensor& a, double s) { return binary(OpId::mul, a, Scalar(s)); }
Tensor eye_like(int64_t n, const Tensor& x) { return to_device(eye(n, n, x.dtype()), x.device()); }
double eps_of(DType dt) {
  return dt == DType::f64 ? std::numeric_limits<double>::epsilon() : double(std::numeric_limits<float>::epsilon());
}
int wrap(const char* op, int64_t d, int ndim) {
  TOCHA_CHECK(d >= -ndim && d < ndim, op, "dim ", d, " out of range for a ", ndim, "-D tensor");
  return int(d < 0 ? d + ndim : d);
}
void check_float(const char* op, const Tensor& x) {
  TOCHA_CHECK(x.dtype() == DType::f32 || x.dtype() == DType::f64, op,
              "expected a torch.FloatTensor or torch.DoubleTensor, got a ", tensor_type_name(x));
}
// max (or min) over several dims, one at a time (kept), then squeezed unless keepdim.
Tensor extreme(const Tensor& x, const std::vector<int>& dims, bool is_max, bool keepdim) {
  Tensor r = x;
  for (int d : dims) r = is_max ? max(r, d, true, 0).values : min(r, d, true, 0).values;
  if (!keepdim) {
    std::vector<int> s = dims;
    std::sort(s.rbegin(), s.rend());
    for (int d : s) r = squeeze(r, d);
  }
  return r;
}
// s (..., k) -> (...): the largest and smallest singular value of each matrix.
Tensor first(const Tensor& s) { return select(s, -1, 0); }
Tensor last(const Tensor& s) { return select(s, -1, s.size(s.dim() - 1) - 1); }

// The p-norm (p > 1) over dims through torch.norm's op, whose gradient is 0 where the norm is
// (sqrt and pow of a sum would give NaN there, PyTorch gives 0): the dims are moved last and
// flattened into one.
Tensor pnorm(const Tensor& x, double p, const std::vector<int>& dims, bool keepdim) {
  if (dims.size() == 1) return norm(x, p, dims[0], keepdim);
  DimVec perm, rest, kept_shape = x.sizes();
  int64_t inner = 1;
  for (int d = 0; d < x.dim(); ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) perm.push_back(d), rest.push_back(x.size(d));
  for (int d : dims) perm.push_back(d), inner *= x.size(d), kept_shape[d] = 1;
  Tensor r;
  if (rest.size() == 0) {
    r = norm(x, p);
  } else {
    DimVec flat = rest;
    flat.push_back(inner);
    r = norm(reshape(permute(x, perm), flat), p, -1, false);
  }
  return keepdim ? reshape(r, kept_shape) : r;
}

}  // namespace

Tensor linalg_vector_norm(const Tensor& x, double ord, const DimVec& dims_, bool keepdim) {
  const char* op = "linalg.vectorNorm";
  check_float(op, x);
  std::vector<int> dims;
  uint32_t mask = 0;
  for (int64_t d : dims_) {
    int w = wrap(op, d, std::max(1, x.dim()));
    TOCHA_CHECK(!(mask & (1u << w)), op, "dim ", d, " appears twice");
    mask |= 1u << w;
    dims.push_back(w);
  }
  if (dims.empty()) {
    for (int d = 0; d < x.dim(); ++d) dims.push_back(d), mask |= 1u << d;
  }
  if (x.dim() == 0) return ord == 0 ? to_dtype(binary(OpId::ne, x, Scalar(0.0)), x.dtype()) : unary(OpId::abs, x);
  Tensor a = unary(OpId::abs, x);
  if (std::isinf(ord)) {
    for (int d : dims)
      TOCHA_CHECK(x.size(d) > 0, op, "the ", ord > 0 ? "inf" : "-inf", " norm of an empty dim is not defined");
    return extreme(a, dims, ord > 0, keepdim);
  }
  if (ord == 0) return sum_dims(to_dtype(binary(OpId::ne, x, Scalar(0.0)), x.dtype()), mask, keepdim);
  if (ord == 1) return sum_dims(a, mask, keepdim);
  if (ord > 1) return pnorm(x, ord, dims, keepdim);
  return binary(OpId::pow, sum_dims(binary(OpId::pow, a, Scalar(ord)), mask, keepdim), Scalar(1.0 / ord));
}

Tensor linalg_matrix_norm(const Tensor& A, char kind, double ord, int64_t d0_, int64_t d1_, bool keepdim) {
  const char* op = "linalg.matrixNorm";
  check_float(op, A);
  TOCHA_CHECK(A.dim() >= 2, op, "expected a matrix or a batch of them, got a ", A.dim(), "-D tensor");
  const int d0 = wrap(op, d0_, A.dim()), d1 = wrap(op, d1_, A.dim());
  TOCHA_CHECK(d0 != d1, op, "the two dims must differ, got ", d0_, " and ", d1_);
  if (kind == 'f') return linalg_vector_norm(A, 2, DimVec{d0, d1}, keepdim);
  const bool svd_based = kind == 'n' || ord == 2 || ord == -2;
  TOCHA_CHECK(kind == 'n' || ord == 1 || ord == -1 || ord == 2 || ord == -2 || std::isinf(ord), op,
              "ord must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, got ", ord);
  const int ext = std::abs(ord) == 1 ? d1 : d0;  // the dim the max or min runs over
  TOCHA_CHECK(kind == 'n' || (svd_based ? std::min(A.size(d0), A.size(d1)) > 0 : A.size(ext) > 0), op, "the ", ord,
              "-norm of a matrix with an empty dim is not defined, got size ", shape_str(A.sizes()));
  Tensor r;
  if (svd_based) {
    // move the two dims last, as linalg.svd wants them
    DimVec perm;
    for (int d = 0; d < A.dim(); ++d)
      if (d != d0 && d != d1) perm.push_back(d);
    perm.push_back(d0);
    perm.push_back(d1);
    Tensor s = linalg_svd(permute(A, perm), false).s;
    if (kind == 'n')
      r = sum(s, -1, false);
    else
      r = ord > 0 ? first(s) : last(s);
    if (keepdim) {
      r = unsqueeze(r, std::min(d0, d1));
      r = unsqueeze(r, std::max(d0, d1));
    }
    return r;
  }
  // 1-norms: max column sum (sum over rows d0, extreme over d1); inf-norms: the transpose
  const int sum_dim = std::abs(ord) == 1 ? d0 : d1, ext_dim = std::abs(ord) == 1 ? d1 : d0;
  Tensor sums = sum(unary(OpId::abs, A), sum_dim, true);
  r = extreme(sums, {ext_dim}, ord > 0, true);
  if (!keepdim) r = squeeze(squeeze(r, std::max(d0, d1)), std::min(d0, d1));
  return r;
}

Tensor linalg_matrix_rank(const Tensor& A, double atol, double rtol, bool hermitian) {
  const char* op = "linalg.matrixRank";
  check_batch(op, A, hermitian);
  const int64_t m = A.size(A.dim() - 2), n = A.size(A.dim() - 1);
  Tensor s = hermitian ? unary(OpId::abs, linalg_eigh(A, false).values) : linalg_svd(A, false).s;
  if (std::min(m, n) == 0) {
    DimVec batch;
    for (int d = 0; d + 2 < A.dim(); ++d) batch.push_back(A.size(d));
    return zeros(batch, DType::i64, A.device());
  }
  Tensor smax = hermitian ? unsqueeze(max(s, -1, false, 0).values, -1) : unsqueeze(first(s), -1);
  if (rtol < 0) rtol = atol < 0 ? double(std::max(m, n)) * eps_of(A.dtype()) : 0;
  Tensor thr = mulk(smax, rtol);
  if (atol > 0) thr = binary(OpId::cmax, thr, Scalar(atol));
  return sum(to_dtype(binary(OpId::gt, s, thr), DType::i64), -1, false);
}

Tensor linalg_pinv(const Tensor& A, double rtol, bool hermitian) {
  const char* op = "linalg.pinv";
  check_batch(op, A, hermitian);
  const int64_t m = A.size(A.dim() - 2), n = A.size(A.dim() - 1);
  if (std::min(m, n) == 0) return clone(mT(A));
  if (rtol < 0) rtol = double(std::max(m, n)) * eps_of(A.dtype());
  Tensor U, S, Vh;
  if (hermitian) {
    EighResult e = linalg_eigh(A, false);
    U = e.vectors, S = e.values, Vh = mT(e.vectors);
  } else {
    LinalgSvdResult r = linalg_svd(A, false);
    U = r.u, S = r.s, Vh = r.vh;
  }
  Tensor absS = unary(OpId::abs, S);
  Tensor smax = unsqueeze(max(absS, -1, false, 0).values, -1);
  Tensor keep = binary(OpId::gt, absS, mulk(smax, rtol));
  // 1/s where kept, 0 elsewhere; the divisor is 1 where dropped so no inf enters the graph
  Tensor one = full_like_scalar(1, A.dtype(), A.device());
  Tensor sinv = binary(OpId::mul, binary(OpId::div, one, where(keep, S, one)), to_dtype(keep, A.dtype()));
  return matmul(binary(OpId::mul, mT(Vh), unsqueeze(sinv, -2)), mT(U));
}

Tensor linalg_matrix_power(const Tensor& A, int64_t n) {
  const char* op = "linalg.matrixPower";
  check_batch(op, A, true);
  const int64_t k = A.size(A.dim() - 1);
  if (n == 0) return clone(expand(eye_like(k, A), A.sizes()));
  Tensor base = n < 0 ? linalg_inv(A) : A;
  uint64_t e = n < 0 ? uint64_t(-(n + 1)) + 1 : uint64_t(n);
  Tensor result;
  while (e) {
    if (e & 1) result = result.defined() ? matmul(result, base) : base;
    e >>= 1;
    if (e) base = matmul(base, base);
  }
  return n == 1 ? clone(A) : result;
}

Tensor linalg_matrix_exp(const Tensor& A) {
  const char* op = "linalg.matrixExp";
  check_batch(op, A, true);
  const int64_t n = A.size(A.dim() - 1);
  if (A.numel() == 0) return clone(A);
  // Note [matrix_exp]: exp(A) = exp(A / 2^s)^(2^s) with ||A / 2^s||_1 <= 1/2, where the Taylor
  // series to degree 18 is exact to below f64's epsilon (0.5^19 / 19! ~ 1e-23). Each matrix of a
  // batch gets its own s (from its own 1-norm) and is squared s times: one s for the whole batch
  // would over-scale its small matrices, and each extra squaring of I + tiny loses accuracy (an
  // f32 matrix of norm 1 batched with one of norm 200 lost 3 digits). The steps are matmuls and
  // wheres, so autograd differentiates them.
  Tensor norms;
  {
    autograd::GradModeGuard ng(false);
    norms = to_device(reshape(max(sum(unary(OpId::abs, A), -2, false), -1, false, 0).values, DimVec{-1}), Device{});
  }
  const int64_t count = norms.numel();
  std::vector<int> s(static_cast<size_t>(count), 0);
  int smax = 0;
  bool same = true;
  for (int64_t i = 0; i < count; ++i) {
    const double v = item_at(norms, i);
    if (std::isfinite(v) && v > 0.5) s[size_t(i)] = int(std::ceil(std::log2(v / 0.5)));
    smax = std::max(smax, s[size_t(i)]);
    same = same && s[size_t(i)] == s[0];
  }
  Tensor X = A, steps;
  if (same) {
    if (smax) X = mulk(A, std::ldexp(1.0, -smax));
  } else {
    Tensor sh = empty(DimVec{count}, DType::f64), scale = empty(DimVec{count}, DType::f64);
    for (int64_t i = 0; i < count; ++i) {
      set_item_at(sh, i, s[size_t(i)]);
      set_item_at(scale, i, std::ldexp(1.0, -s[size_t(i)]));
    }
    DimVec bshape = A.sizes();
    bshape[bshape.size() - 1] = bshape[bshape.size() - 2] = 1;
    auto on = [&](const Tensor& t) { return to_device(reshape(to_dtype(t, A.dtype()), bshape), A.device()); };
    steps = on(sh);
    X = binary(OpId::mul, A, on(scale));
  }
  Tensor I = expand(eye_like(n, A), A.sizes());
  Tensor P = I;
  for (int k = 18; k >= 1; --k) P = binary(OpId::add, I, mulk(matmul(X, P), 1.0 / k));
  for (int i = 0; i < smax; ++i) {
    Tensor P2 = matmul(P, P);
    P = same ? P2 : where(binary(OpId::gt, steps, Scalar(double(i))), P2, P);
  }
  return P;
}

LstsqResult linalg_lstsq(const Tensor& A, const Tensor& B, double rcond) {
  const char* op = "linalg.lstsq";
  check_batch(op, A, false);
  TOCHA_CHECK(B.dtype() == A.dtype() && B.device() == A.device(), op, "A is a ", tensor_type_name(A),
              " but B is a ", tensor_type_name(B));
  const int64_t m = A.size(A.dim() - 2), n = A.size(A.dim() - 1);
  const bool vec = linalg::is_vector_rhs(A, B);
  Tensor Bm = vec ? unsqueeze(B, -1) : B;
  TOCHA_CHECK(Bm.dim() >= 2 && Bm.size(Bm.dim() - 2) == m, op, "A is ", shape_str(A.sizes()), " but B is ",
              shape_str(B.sizes()), " (B needs ", m, " rows)");
  LstsqResult r;
  if (rcond < 0) rcond = double(std::max(m, n)) * eps_of(A.dtype());
  r.singular_values = linalg_svd(A, false).s;
  Tensor X = matmul(linalg_pinv(A, rcond, false), Bm);
  {
    autograd::GradModeGuard ng(false);
    r.rank = linalg_matrix_rank(A, -1, rcond, false);
  }
  bool full = m > n;
  if (full) {
    Tensor rk = to_device(r.rank, Device{});
    for (int64_t i = 0; i < rk.numel(); ++i) full = full && item_at(rk, i) == double(n);
  }
  r.residuals = full ? sum(unary(OpId::square, binary(OpId::csub, matmul(A, X), Bm)), -2, false)
                     : empty(DimVec{0}, A.dtype(), A.device());
  if (full && vec) r.residuals = squeeze(r.residuals, -1);
  r.solution = vec ? squeeze(X, -1) : X;
  return r;
}

Tensor linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  const char* op = "linalg.solveTriangular";
  check_batch(op, A, true);
  TOCHA_CHECK(B.dim() >= 2, op, "B must be a matrix or a batch of them, got size ", shape_str(B.sizes()));
  TOCHA_CHECK(B.dtype() == A.dtype() && B.device() == A.device(), op, "A is a ", tensor_type_name(A),
              " on ", A.device().str(), " but B is a ", tensor_type_name(B), " on ", B.device().str());
  const int64_t n = A.size(A.dim() - 1), rows = B.size(B.dim() - 2), cols = B.size(B.dim() - 1);
  TOCHA_CHECK((left ? rows : cols) == n, op, "A is ", shape_str(A.sizes()), " but B is ", shape_str(B.sizes()),
              left ? " (B needs " : " (X A = B: B needs ", n, left ? " rows)" : " columns)");
  DimVec batch;
  TOCHA_CHECK(broadcast_shapes(linalg::batch_of(A), linalg::batch_of(B), &batch), op, "the batch dims of A (",
              shape_str(A.sizes()), ") and B (", shape_str(B.sizes()), ") do not broadcast");
  auto with = [&](int64_t r, int64_t c) {
    DimVec s = batch;
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  Tensor Ae = expand(A, with(n, n)), Be = expand(B, with(rows, cols));
  // One trtrs call (trsm, O(n^2 k) per matrix); X A = B is A^T X^T = B^T, the same triangle read transposed.
  return linalg::renamed(op, [&] {
    return left ? trtrs(Be, Ae, upper, false, unitriangular) : mT(trtrs(mT(Be), Ae, upper, true, unitriangular));
  });
}

Tensor linalg_cond(const Tensor& A, char kind, double ord) {
  const char* op = "linalg.cond";
  check_batch(op, A, !(kind == 'o' && (ord == 2 || ord == -2)));
  if (std::min(A.size(A.dim() - 2), A.size(A.dim() - 1)) == 0) {  // PyTorch: 0 for empty matrices
    DimVec batch = A.sizes();
    batch.resize(A.dim() - 2);
    return zeros(batch, A.dtype(), A.device());
  }
  if (kind == 'o' && (ord == 2 || ord == -2)) {
    Tensor s = linalg_svd(A, false).s;
    return ord > 0 ? binary(OpId::div, first(s), last(s)) : binary(OpId::div, last(s), first(s));
  }
  TOCHA_CHECK(kind == 'f' || kind == 'n' || ord == 1 || ord == -1 || std::isinf(ord), op,
              "p must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, got ", ord);
  auto by_inverse = [&](const Tensor& a) {
    return binary(OpId::mul, linalg_matrix_norm(a, kind, ord, -2, -1, false),
                  linalg_matrix_norm(linalg_inv(a), kind, ord, -2, -1, false));
  };
  try {
    return by_inverse(A);
  } catch (const OutOfMemory&) {
    throw;
  } catch (const Error&) {
  }
  // A singular matrix has condition number inf (PyTorch's), the others their value.
  return linalg::map_matrices(A, 1, [&](const Tensor& a) {
    try {
      return std::vector<Tensor>{by_inverse(a)};
    } catch (const OutOfMemory&) {
      throw;
    } catch (const Error&) {
      return std::vector<Tensor>{full(DimVec{}, std::numeric_limits<double>::infinity(), a.dtype(), a.device())};
    }
  })[0];
}

Tensor linalg_vander(const Tensor& x, int64_t N) {
  const char* op = "linalg.vander";
  TOCHA_CHECK(x.dim() >= 1, op, "x must have at least one dim, got a 0-dim tensor");
  const int64_t n = x.size(x.dim() - 1);
  if (N <= 0) N = n;
  TOCHA_CHECK(N >= 1, op, "N must be at least 1, got ", N);
  std::vector<Tensor> cols{ones(x.sizes(), x.dtype(), x.device())};
  for (int64_t k = 1; k < N; ++k) cols.push_back(binary(OpId::mul, cols.back(), x));
  return stack(cols, x.dim());
}

}  // namespace tocha
