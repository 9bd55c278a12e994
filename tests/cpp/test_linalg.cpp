// BLAS and LAPACK front-ends against naive f64 references: every dtype, transposed, strided,
// expanded and aliased operands and results, Torch7 res semantics, error messages, and LAPACK
// results checked by reconstruction (A X = B, Q R = A, U S V^T = A...).
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include "core/memory.h"
#include "core/ops/lapack.h"
#include "core/ops/linalg.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

using namespace tocha;

namespace {

const DType kAllTypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i64, DType::i32, DType::u8};

// Small integer values (exact in every dtype, so products compare exactly); u8 stays non-negative.
Tensor ints(const DimVec& sizes, DType dt, int seed) {
  Tensor t = empty(sizes, dt);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int v = int((i * 7 + seed * 13) % 7) - 3;
    set_item_at(t, i, dt == DType::u8 ? double(v + 3) : double(v));
  }
  return t;
}

// Values in (-1, 1) from a fixed linear congruential sequence.
Tensor reals(const DimVec& sizes, DType dt, uint32_t seed) {
  Tensor t = empty(sizes, dt);
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    set_item_at(t, i, double(seed >> 8) / double(1 << 23) - 1.0);
  }
  return t;
}

double at(const Tensor& t, int64_t i, int64_t j) { return item_at(t, i * t.size(1) + j); }

// The same values in three layouts: a transposed copy, every other column of a wider tensor
// (strides BLAS cannot take) and a narrowed block (a leading dimension larger than the width).
Tensor as_transposed(const Tensor& t) { return transpose(clone(transpose(t, 0, 1)), 0, 1); }
Tensor as_strided_cols(const Tensor& t) {
  Tensor wide = zeros({t.size(0), 2 * t.size(1)}, t.dtype());
  Tensor v = as_strided(wide, t.sizes(), {2 * t.size(1), 2}, 0);
  copy_(v, t);
  return v;
}
Tensor as_narrowed(const Tensor& t) {
  Tensor wide = zeros({t.size(0) + 1, t.size(1) + 3}, t.dtype());
  Tensor v = narrow(narrow(wide, 0, 1, t.size(0)), 1, 2, t.size(1));
  copy_(v, t);
  return v;
}

std::vector<double> ref_mm(const Tensor& a, const Tensor& b) {
  std::vector<double> r(size_t(a.size(0) * b.size(1)), 0.0);
  for (int64_t i = 0; i < a.size(0); ++i)
    for (int64_t j = 0; j < b.size(1); ++j)
      for (int64_t p = 0; p < a.size(1); ++p) r[size_t(i * b.size(1) + j)] += at(a, i, p) * at(b, p, j);
  return r;
}

double max_diff(const Tensor& t, const std::vector<double>& ref) {
  REQUIRE(size_t(t.numel()) == ref.size());
  double d = 0;
  for (int64_t i = 0; i < t.numel(); ++i) d = std::max(d, std::fabs(item_at(t, i) - ref[size_t(i)]));
  return d;
}

// max |A @ B - C| for float matrices of any layout.
double product_error(const Tensor& a, const Tensor& b, const Tensor& c) { return max_diff(c, ref_mm(a, b)); }

Tensor eye(int64_t n, DType dt) {
  Tensor e = zeros({n, n}, dt);
  for (int64_t i = 0; i < n; ++i) set_item_at(e, i * n + i, 1);
  return e;
}

}  // namespace

TEST_CASE("mm matches the f64 reference for every dtype and layout", "[linalg]") {
  for (DType dt : kAllTypes) {
    INFO("dtype " << dtype_name(dt));
    Tensor a = ints({5, 4}, dt, 1), b = ints({4, 6}, dt, 2);
    std::vector<double> ref = ref_mm(a, b);
    CHECK(max_diff(mm(a, b), ref) == 0);
    for (int la = 0; la < 4; ++la)
      for (int lb = 0; lb < 4; ++lb) {
        auto layout = [](const Tensor& t, int l) {
          return l == 0 ? t : l == 1 ? as_transposed(t) : l == 2 ? as_strided_cols(t) : as_narrowed(t);
        };
        INFO("layouts " << la << " " << lb);
        CHECK(max_diff(mm(layout(a, la), layout(b, lb)), ref) == 0);
      }
  }
}

TEST_CASE("mm writes into res of any layout and survives aliasing", "[linalg]") {
  Tensor a = reals({7, 5}, DType::f64, 3), b = reals({5, 4}, DType::f64, 4);
  std::vector<double> ref = ref_mm(a, b);
  Tensor t = transpose(full({4, 7}, NAN, DType::f64), 0, 1);  // column-major res: C^T = B^T A^T
  mm_out(t, a, b);
  CHECK(t.stride(0) == 1);  // written in place, not reallocated
  CHECK(max_diff(t, ref) < 1e-12);
  Tensor strided = as_strided_cols(zeros({7, 4}, DType::f64));
  mm_out(strided, a, b);
  CHECK(max_diff(strided, ref) < 1e-12);
  // Transposed operands and results go to BLAS as they are: no copies, no temporaries.
  Tensor at_ = as_transposed(a), bt = as_transposed(b), res = empty({7, 4}, DType::f64);
  int64_t before = memory_stats(DeviceType::cpu).allocations;
  mm_out(res, at_, bt);
  mm_out(t, at_, b);
  CHECK(memory_stats(DeviceType::cpu).allocations == before);
  CHECK(max_diff(res, ref) < 1e-12);
  Tensor r = empty({1}, DType::f64);  // resized like Torch7's res
  mm_out(r, a, b);
  CHECK(r.sizes() == DimVec({7, 4}));
  Tensor sq = reals({4, 4}, DType::f32, 5), sq2 = clone(sq);
  std::vector<double> sqref = ref_mm(sq, sq);
  mm_out(sq, sq, sq);  // res is both operands
  CHECK(max_diff(sq, sqref) < 1e-5);
  Tensor ex = expand(reals({1, 5}, DType::f64, 6), {3, 5});  // expanded rows: copied for BLAS
  CHECK(product_error(ex, b, mm(ex, b)) < 1e-12);
  CHECK(mm(zeros({3, 0}, DType::f32), zeros({0, 2}, DType::f32)).sizes() == DimVec({3, 2}));
  CHECK(max_diff(mm(zeros({3, 0}, DType::f32), zeros({0, 2}, DType::f32)), std::vector<double>(6, 0.0)) == 0);
}

TEST_CASE("addmm applies Torch7's multipliers, in place and with broadcasting", "[linalg]") {
  for (DType dt : kAllTypes) {
    INFO("dtype " << dtype_name(dt));
    Tensor M = ints({3, 2}, dt, 5), a = ints({3, 4}, dt, 6), b = ints({4, 2}, dt, 7);
    std::vector<double> ref = ref_mm(a, b);
    for (size_t i = 0; i < ref.size(); ++i) ref[i] = 2 * item_at(M, int64_t(i)) + 3 * ref[i];
    if (dt == DType::u8) for (double& v : ref) v = std::fmod(v, 256.0);
    CHECK(max_diff(addmm(2, M, 3, a, b), ref) == 0);
    Tensor Mt = as_transposed(M);
    addmm_out(Mt, 2, Mt, 3, a, b);  // M:addmm(2, 3, a, b) on a column-major M
    CHECK(max_diff(Mt, ref) == 0);
  }
  Tensor a = reals({3, 4}, DType::f32, 8), b = reals({4, 2}, DType::f32, 9);
  Tensor row = reals({2}, DType::f32, 10);
  Tensor r = addmm(1, row, 1, a, b);  // M broadcasts over the rows
  std::vector<double> ref = ref_mm(a, b);
  for (size_t i = 0; i < ref.size(); ++i) ref[i] += item_at(row, int64_t(i % 2));
  CHECK(max_diff(r, ref) < 1e-5);
  Tensor nan_m = full({3, 2}, NAN, DType::f32);
  CHECK(product_error(a, b, addmm(0, nan_m, 1, a, b)) < 1e-5);  // beta = 0 ignores M
  addmm_out(nan_m, 0, nan_m, 1, a, b);
  CHECK(product_error(a, b, nan_m) < 1e-5);
  Tensor ai = ints({3, 4}, DType::i64, 1);
  CHECK_THROWS_WITH(addmm(0.5, zeros({3, 3}, DType::i64), 1, ai, ints({4, 3}, DType::i64, 2)),
                    Catch::Contains("[addmm] multipliers 0.5 and 1 must be integers for a torch.LongTensor"));
}

TEST_CASE("bmm, baddbmm and addbmm loop over batches", "[linalg]") {
  for (DType dt : {DType::f32, DType::f64, DType::f16, DType::i32}) {
    for (int64_t n : {3, 70}) {  // small products run batches in parallel, large ones sequentially
      INFO("dtype " << dtype_name(dt) << " n " << n);
      Tensor b1 = ints({4, n, 5}, dt, 1), b2 = transpose(ints({4, 6, 5}, dt, 2), 1, 2);
      Tensor M = ints({4, n, 6}, dt, 3), M2 = ints({n, 6}, dt, 4);
      Tensor out = bmm(b1, b2), bad = baddbmm(2, M, -1, b1, b2), add = addbmm(1, M2, 2, b1, b2);
      std::vector<double> sum(size_t(n * 6), 0.0);
      for (int64_t i = 0; i < 4; ++i) {
        std::vector<double> ref = ref_mm(select(b1, 0, i), select(b2, 0, i));
        CHECK(max_diff(select(out, 0, i), ref) == 0);
        for (size_t j = 0; j < ref.size(); ++j) {
          sum[j] += 2 * ref[j];
          ref[j] = 2 * item_at(select(M, 0, i), int64_t(j)) - ref[j];
        }
        CHECK(max_diff(select(bad, 0, i), ref) == 0);
      }
      for (size_t j = 0; j < sum.size(); ++j) sum[j] += item_at(M2, int64_t(j));
      CHECK(max_diff(add, sum) == 0);
    }
  }
  Tensor e = addbmm(2, full({2, 2}, 1, DType::f32), 1, zeros({0, 2, 3}, DType::f32), zeros({0, 3, 2}, DType::f32));
  CHECK(max_diff(e, std::vector<double>(4, 2.0)) == 0);  // empty sum: beta * M
  CHECK_THROWS_WITH(bmm(zeros({2, 3, 4}, DType::f32), zeros({3, 4, 5}, DType::f32)),
                    "[bmm] batch1 is 2x3x4 but batch2 is 3x4x5");
}

TEST_CASE("large and many-batch products split over threads and match", "[linalg]") {
  // Integer and f16 products against the f64 BLAS result of the same (exactly representable) values.
  for (DType dt : {DType::i32, DType::i64, DType::f16, DType::bf16}) {
    INFO("dtype " << dtype_name(dt));
    Tensor a = ints({200, 48}, dt, 1), b = as_transposed(ints({48, 64}, dt, 2));
    Tensor want = mm(to_dtype(a, DType::f64), to_dtype(b, DType::f64));
    CHECK(equal(to_dtype(mm(a, b), DType::f64), want));
  }
  // 256 products of 16 x 16: run as parallel batches of single-threaded sgemm calls.
  Tensor b1 = reals({256, 16, 16}, DType::f32, 11), b2 = reals({256, 16, 16}, DType::f32, 12);
  Tensor out = bmm(b1, transpose(b2, 1, 2));
  double worst = 0;
  for (int64_t i = 0; i < 256; i += 17) {
    Tensor want = mm(select(b1, 0, i), transpose(select(b2, 0, i), 0, 1));
    Tensor diff = binary(OpId::csub, select(out, 0, i), want);
    for (int64_t j = 0; j < diff.numel(); ++j) worst = std::max(worst, std::fabs(item_at(diff, j)));
  }
  CHECK(worst < 1e-5);
}

TEST_CASE("mv, addmv, ger, addr and dot match references", "[linalg]") {
  for (DType dt : kAllTypes) {
    INFO("dtype " << dtype_name(dt));
    Tensor A = ints({4, 3}, dt, 1), x = ints({3}, dt, 2), y = ints({4}, dt, 3);
    Tensor xs = select(as_strided_cols(unsqueeze(x, 0)), 0, 0);  // stride-2 vector
    std::vector<double> mvref(4, 0.0), addref(4), gref(12);
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 3; ++j) mvref[size_t(i)] += at(A, i, j) * item_at(x, j);
    for (int64_t i = 0; i < 4; ++i) addref[size_t(i)] = 2 * item_at(y, i) + mvref[size_t(i)];
    if (dt == DType::u8) for (double& v : addref) v = std::fmod(v, 256.0);
    CHECK(max_diff(mv(A, x), mvref) == 0);
    CHECK(max_diff(mv(as_transposed(A), xs), mvref) == 0);
    CHECK(max_diff(mv(as_strided_cols(A), x), mvref) == 0);
    CHECK(max_diff(addmv(2, y, 1, as_transposed(A), x), addref) == 0);
    Tensor ys = clone(y);
    addmv_out(ys, 2, ys, 1, A, x);
    CHECK(max_diff(ys, addref) == 0);
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 3; ++j) gref[size_t(i * 3 + j)] = item_at(y, i) * item_at(x, j);
    CHECK(max_diff(ger(y, xs), gref) == 0);
    Tensor Mt = as_transposed(zeros({4, 3}, dt));
    addr_out(Mt, 1, Mt, 1, y, x);  // column-major M: BLAS updates M^T
    CHECK(max_diff(Mt, gref) == 0);
    double d = 0;
    for (int64_t i = 0; i < 12; ++i) d += item_at(A, i) * item_at(A, i);
    if (dt == DType::u8) d = std::fmod(d, 256.0);
    CHECK(item_at(dot(A, as_transposed(A)), 0) == Approx(d));  // Torch7: any shapes, same numel
    CHECK(item_at(dot(view(A, {12}), view(A, {12})), 0) == d);
  }
  Tensor y = full({3}, NAN, DType::f64);
  mv_out(y, eye(3, DType::f64), full({3}, 2, DType::f64));  // NaN in res does not leak
  CHECK(max_diff(y, {2, 2, 2}) == 0);
}

TEST_CASE("linalg front-ends reject bad input with clear messages", "[linalg]") {
  Tensor a = zeros({2, 3}, DType::f32), b = zeros({4, 5}, DType::f32);
  CHECK_THROWS_WITH(mm(a, b), "[mm] a is 2x3 but b is 4x5");
  CHECK_THROWS_WITH(mm(zeros({2, 3, 4}, DType::f32), b), "[mm] a must be 2D, got size 2x3x4");
  CHECK_THROWS_WITH(mm(a, zeros({3, 2}, DType::f64)), "[mm] a is a torch.FloatTensor but b is a torch.DoubleTensor");
  CHECK_THROWS_WITH(mv(a, zeros({2}, DType::f32)), "[mv] mat is 2x3 but vec has 2 elements");
  CHECK_THROWS_WITH(addmm(1, zeros({3, 3}, DType::f32), 1, a, zeros({3, 5}, DType::f32)),
                    "[addmm] M is 3x3 but the product is 2x5");
  CHECK_THROWS_WITH(dot(zeros({3}, DType::f32), zeros({4}, DType::f32)),
                    "[dot] x has 3 elements but y has 4 (sizes 3 and 4)");
  CHECK_THROWS_WITH(mm(zeros({2, 2}, DType::b8), zeros({2, 2}, DType::b8)), "[mm] no kernel for cpu/bool");
  Tensor wrong = zeros({2, 2}, DType::f64);
  CHECK_THROWS_WITH(mm_out(wrong, a, zeros({3, 2}, DType::f32)),
                    "[mm] result is a torch.DoubleTensor but the operands are torch.FloatTensors");
  Tensor M = zeros({3, 3}, DType::f32);
  CHECK_THROWS_WITH(addmm_out(M, 1, M, 1, a, zeros({3, 5}, DType::f32)), Catch::Contains("[addmm] M is 3x3"));
  CHECK_THROWS_WITH(mm_out(expand(zeros({1, 1}, DType::f32), {2, 2}), a, zeros({3, 2}, DType::f32)),
                    Catch::Contains("overlap"));
}

TEST_CASE("gesv, inverse and gels solve linear systems", "[lapack]") {
  for (DType dt : {DType::f32, DType::f64}) {
    INFO("dtype " << dtype_name(dt));
    const double tol = dt == DType::f32 ? 1e-4 : 1e-10;
    Tensor A = binary(OpId::add, reals({5, 5}, dt, 1), binary(OpId::mul, eye(5, dt), Scalar(4.0)));
    Tensor B = reals({5, 3}, dt, 2);
    GesvResult r = gesv(B, as_transposed(A));
    CHECK(r.solution.is_contiguous());
    CHECK(product_error(A, r.solution, B) < tol);
    CHECK(r.lu.sizes() == DimVec({5, 5}));
    Tensor x1 = gesv(select(B, 1, 0), A).solution;  // a vector B is one column (Torch7)
    CHECK(x1.sizes() == DimVec({5, 1}));
    Tensor inv = inverse(A);
    CHECK(product_error(A, inv, eye(5, dt)) < tol);
    Tensor out = empty({0}, dt);
    inverse_out(out, A);
    CHECK(product_error(A, out, eye(5, dt)) < tol);
    // Over-determined: the solution satisfies the normal equations A^T A x = A^T b.
    Tensor T = reals({7, 3}, dt, 3), y = reals({7, 2}, dt, 4);
    GelsResult g = gels(y, T);
    CHECK(g.solution.sizes() == DimVec({7, 2}));
    Tensor x = narrow(g.solution, 0, 0, 3);
    Tensor resid = binary(OpId::csub, mm(T, x), y);
    CHECK(max_diff(mm(transpose(T, 0, 1), resid), std::vector<double>(6, 0.0)) < tol);
    // Under-determined: an exact solution.
    Tensor W = reals({2, 4}, dt, 5), z = reals({2, 1}, dt, 6);
    CHECK(product_error(W, gels(z, W).solution, z) < tol);
    CHECK_THROWS_WITH(gesv(B, zeros({5, 5}, dt)), Catch::Contains("[gesv] A is singular: U(1,1)"));
    CHECK_THROWS_WITH(inverse(zeros({2, 2}, dt)), Catch::Contains("[inverse] A is singular"));
    Tensor deficient = zeros({3, 2}, dt);  // exactly rank 1: R(2,2) comes out exactly zero
    set_item_at(deficient, 0, 1);
    CHECK_THROWS_WITH(gels(zeros({3, 1}, dt), deficient), Catch::Contains("[gels] A does not have full rank"));
  }
  CHECK_THROWS_WITH(inverse(zeros({2, 3}, DType::f64)), "[inverse] A must be square, got 2x3");
  CHECK_THROWS_WITH(gesv(zeros({3}, DType::f64), zeros({2, 2}, DType::f64)),
                    "[gesv] A is 2x2 but B is 3 (they need the same number of rows)");
  CHECK_THROWS_WITH(inverse(zeros({2, 2}, DType::i64)),
                    "[inverse] A must be a torch.FloatTensor or torch.DoubleTensor, got a torch.LongTensor");
}

TEST_CASE("potrf, potrs and symeig on symmetric matrices", "[lapack]") {
  for (DType dt : {DType::f32, DType::f64}) {
    INFO("dtype " << dtype_name(dt));
    const double tol = dt == DType::f32 ? 1e-4 : 1e-10;
    Tensor R = reals({4, 4}, dt, 7);
    Tensor A = binary(OpId::add, mm(R, transpose(R, 0, 1)), eye(4, dt));  // symmetric positive definite
    Tensor U = potrf(A), L = potrf(A, false);
    CHECK(product_error(transpose(U, 0, 1), U, A) < tol);
    CHECK(product_error(L, transpose(L, 0, 1), A) < tol);
    CHECK(at(U, 1, 0) == 0);
    CHECK(at(L, 0, 1) == 0);
    Tensor B = reals({4, 2}, dt, 8);
    CHECK(product_error(A, potrs(B, U), B) < tol);
    CHECK(product_error(A, potrs(B, L, false), B) < tol);
    SymeigResult e = symeig(A, true);
    for (int64_t i = 0; i + 1 < 4; ++i) CHECK(item_at(e.values, i) <= item_at(e.values, i + 1));
    Tensor AV = mm(A, e.vectors), VE = binary(OpId::mul, e.vectors, e.values);
    CHECK(max_diff(AV, std::vector<double>(16, 0.0)) > 0);
    CHECK(product_error(A, e.vectors, VE) < tol * 10);
    Tensor lower_only = clone(A);
    set_item_at(lower_only, 1, 99);  // symeig(..., 'L') never reads the upper triangle
    CHECK(max_diff(symeig(lower_only, false, false).values, {item_at(e.values, 0), item_at(e.values, 1),
                                                              item_at(e.values, 2), item_at(e.values, 3)}) < tol * 10);
    CHECK(symeig(A).vectors.numel() == 0);
    Tensor ind = eye(3, dt);
    set_item_at(ind, 8, -1);
    CHECK_THROWS_WITH(potrf(ind), "[potrf] A is not positive definite: its leading minor of order 3 is not positive");
  }
}

TEST_CASE("svd and qr reconstruct their input", "[lapack]") {
  for (DType dt : {DType::f32, DType::f64}) {
    for (DimVec shape : {DimVec{5, 3}, DimVec{3, 5}}) {
      INFO("dtype " << dtype_name(dt) << " shape " << shape_str(shape));
      const double tol = dt == DType::f32 ? 1e-4 : 1e-10;
      Tensor A = reals(shape, dt, 9);
      const int64_t m = shape[0], n = shape[1], k = std::min(m, n);
      for (bool some : {true, false}) {
        SvdResult s = svd(as_transposed(A), some);
        CHECK(s.u.sizes() == DimVec({m, some ? k : m}));
        CHECK(s.v.sizes() == DimVec({n, some ? k : n}));
        Tensor us = binary(OpId::mul, narrow(s.u, 1, 0, k), s.s);
        CHECK(product_error(us, transpose(narrow(s.v, 1, 0, k), 0, 1), A) < tol);
        CHECK(product_error(transpose(s.u, 0, 1), s.u, eye(s.u.size(1), dt)) < tol);
        CHECK(product_error(transpose(s.v, 0, 1), s.v, eye(s.v.size(1), dt)) < tol);
        CHECK(item_at(s.s, 0) >= item_at(s.s, k - 1));
      }
      QrResult q = qr(A);
      CHECK(q.q.sizes() == DimVec({m, k}));
      CHECK(q.r.sizes() == DimVec({k, n}));
      CHECK(product_error(q.q, q.r, A) < tol);
      CHECK(product_error(transpose(q.q, 0, 1), q.q, eye(k, dt)) < tol);
      CHECK(at(q.r, k - 1, 0) == 0);
      Tensor qo = empty({1}, dt), ro = empty({1}, dt);
      qr_out(qo, ro, A);
      CHECK(max_diff(qo, std::vector<double>(size_t(m * k), 0.0)) > 0);
      CHECK(ro.sizes() == DimVec({k, n}));
    }
  }
  SvdResult e = svd(zeros({0, 3}, DType::f64), false);
  CHECK(e.v.sizes() == DimVec({3, 3}));
  CHECK(at(e.v, 2, 2) == 1);
}
