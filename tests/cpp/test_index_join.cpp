// cat / stack / diag / tril / triu / flip against naive references: every dtype, strided inputs,
// dtype promotion, Torch7's empty tensors and trailing dims, results written into `out` (aliasing too).
#include "core/ops/flip.h"
#include "core/ops/join.h"
#include "core/ops/matrix.h"
#include "test_index_util.h"

using namespace tocha;
using namespace index_test;

namespace {

// Naive cat of same-rank tensors along d.
Tensor ref_cat(const std::vector<Tensor>& ts, int d, DType dt) {
  DimVec shape = ts[0].sizes();
  shape[d] = 0;
  for (const Tensor& t : ts) shape[d] += t.size(d);
  Tensor r = empty(shape, dt);
  int64_t at_d = 0;
  for (const Tensor& t : ts) {
    for_each_index(t.sizes(), [&](const DimVec& p) {
      DimVec q = p;
      q[d] += at_d;
      set_item_at(r, linear_of(shape, q), at(t, p));
    });
    at_d += t.size(d);
  }
  return r;
}

}  // namespace

TEST_CASE("cat matches a naive copy on every dim, dtype and layout", "[index][join]") {
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    for (int d = 0; d < 3; ++d) {
      INFO("dim " << d);
      DimVec s1{2, 3, 4}, s2{2, 3, 4}, s3{2, 3, 4};
      s1[d] = 1;
      s2[d] = 3;
      s3[d] = 2;
      std::vector<Tensor> ts = {filled(s1, dt, 1), strided(s2, dt, 2), filled(s3, dt, 3)};
      check_same(cat(ts, d), ref_cat(ts, d, dt));
      check_same(cat(ts, d - 3), ref_cat(ts, d, dt));  // negative dims count from the end
    }
  }
}

TEST_CASE("cat promotes dtypes, skips empty tensors and adds trailing dims like Torch7", "[index][join]") {
  Tensor a = filled({2, 2}, DType::i32), b = filled({2, 1}, DType::f32), c = filled({2, 3}, DType::u8);
  Tensor r = cat({a, b, c}, -1);
  CHECK(r.dtype() == DType::f32);
  check_same(r, ref_cat({to_dtype(a, DType::f32), b, to_dtype(c, DType::f32)}, 1, DType::f32));
  CHECK(cat({a, empty({0}, DType::f64)}, 0).dtype() == DType::f64);  // promotion counts every input
  // Torch7's empty tensor (1D of size 0) is skipped whatever the others' shapes.
  check_same(cat({empty({0}, DType::i32), a, empty({0}, DType::i32)}, 0), a);
  CHECK(cat({empty({0}, DType::f32), empty({0}, DType::f32)}, -1).sizes() == DimVec({0}));
  // Empty tensors of matching rank take part (size 0 along the cat dim).
  check_same(cat({zeros({0, 2}, DType::i32), a}, 0), a);
  // A dim one past the last makes a new one; smaller inputs get trailing dims of size 1.
  Tensor v = filled({3}, DType::f64, 4), w = filled({3}, DType::f64, 5);
  Tensor cols = cat({v, w}, 1);
  REQUIRE(cols.sizes() == DimVec({3, 2}));
  for (int64_t i = 0; i < 3; ++i) {
    CHECK(at(cols, {i, 0}) == item_at(v, i));
    CHECK(at(cols, {i, 1}) == item_at(w, i));
  }
  CHECK(cat({filled({3, 2}, DType::f64), v}, 1).sizes() == DimVec({3, 3}));
}

TEST_CASE("cat_out resizes out, keeps its dtype and handles aliasing", "[index][join]") {
  Tensor a = filled({2, 3}, DType::f32, 1), b = filled({1, 3}, DType::f32, 2);
  Tensor out = empty({7}, DType::f64);
  cat_out(out, {a, b}, 0);
  check_same(out, ref_cat({a, b}, 0, DType::f64));
  Tensor self = clone(a);  // out is one of the inputs (Torch7's x:cat(x, y))
  cat_out(self, {self, b}, 0);
  check_same(self, ref_cat({a, b}, 0, DType::f32));
  CHECK_THROWS_WITH(cat_out(empty({1}, DType::i64), {a, b}, 0),
                    "[cat] result of type torch.FloatTensor cannot be written into a torch.LongTensor");
  // Many small inputs along dim 0 and along the last dim (the kernel's two paths).
  std::vector<Tensor> many;
  for (int i = 0; i < 50; ++i) many.push_back(filled({4, 3}, DType::i64, uint32_t(i)));
  check_same(cat(many, 0), ref_cat(many, 0, DType::i64));
  check_same(cat(many, 1), ref_cat(many, 1, DType::i64));
}

TEST_CASE("stack inserts a new dim", "[index][join]") {
  Tensor a = filled({2, 3}, DType::f64, 1), b = strided({2, 3}, DType::f64, 2);
  for (int d = 0; d <= 2; ++d) {
    Tensor s = stack({a, b}, d);
    DimVec shape{2, 3};
    shape.insert(d, 2);
    REQUIRE(s.sizes() == shape);
    for_each_index(shape, [&](const DimVec& p) {
      DimVec q = p;
      int64_t k = q[d];
      q.erase(d);
      CHECK(at(s, p) == at(k == 0 ? a : b, q));
    });
  }
  CHECK(stack({a, b}, -1).sizes() == DimVec({2, 3, 2}));
  CHECK(stack({full({}, 1, DType::f32), full({}, 2, DType::f32)}, 0).sizes() == DimVec({2}));
  Tensor out = empty({1}, DType::f64);
  stack_out(out, {a, a, a}, 0);
  CHECK(out.sizes() == DimVec({3, 2, 3}));
  CHECK_THROWS_WITH(stack({a, filled({3, 2}, DType::f64)}, 0),
                    "[stack] tensor 2 has size 3x2 but tensor 1 has size 2x3; stacked tensors must have the same size");
  CHECK_THROWS_WITH(stack({a}, 3), Catch::Contains("[stack] dimension 4 out of range"));
}

TEST_CASE("cat rejects mismatched shapes with clear messages", "[index][join]") {
  Tensor a = filled({2, 3}, DType::f32);
  CHECK_THROWS_WITH(cat({a, filled({3, 3}, DType::f32)}, 1),
                    "[cat] tensor 2 has size 3x3 but tensor 1 has size 2x3; they must match except in dimension 2");
  CHECK_THROWS_WITH(cat({}, 0), "[cat] expected at least one tensor");
  CHECK_THROWS_WITH(cat({a, a}, 3), Catch::Contains("[cat] dimension 4 out of range"));
  CHECK_THROWS_WITH(cat({full({}, 1, DType::f32)}, 0), "[cat] cannot concatenate 0-dim tensors (tensor 1)");
}

TEST_CASE("diag builds and extracts diagonals", "[index][matrix]") {
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    Tensor v = filled({3}, dt, 2);
    for (int64_t k : {-2, 0, 1}) {
      Tensor m = diag(v, k);
      int64_t n = 3 + (k < 0 ? -k : k);
      REQUIRE(m.sizes() == DimVec({n, n}));
      for_each_index({n, n}, [&](const DimVec& p) {
        double want = p[1] - p[0] == k ? item_at(v, k >= 0 ? p[0] : p[1]) : 0;
        REQUIRE(at(m, p) == want);
      });
      check_same(diag(m, k), v);  // and back
    }
    Tensor x = strided({3, 4}, dt);
    for (int64_t k = -4; k <= 5; ++k) {
      Tensor d = diag(x, k);
      std::vector<double> want;
      for_each_index({3, 4}, [&](const DimVec& p) { if (p[1] - p[0] == k) want.push_back(at(x, p)); });
      REQUIRE(d.numel() == int64_t(want.size()));
      for (size_t i = 0; i < want.size(); ++i) REQUIRE(item_at(d, int64_t(i)) == want[i]);
    }
  }
  Tensor out = empty({1}, DType::f32);
  diag_out(out, filled({2}, DType::f32), 0);
  CHECK(out.sizes() == DimVec({2, 2}));
  CHECK_THROWS_WITH(diag(filled({2, 2, 2}, DType::f32), 0),
                    "[diag] expected a vector or a matrix, got a tensor of size 2x2x2");
}

TEST_CASE("tril and triu keep one side of the k-th diagonal", "[index][matrix]") {
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    Tensor x = strided({4, 5}, dt, 6);
    for (int64_t k = -5; k <= 6; ++k) {
      INFO("k " << k);
      Tensor lo = tril(x, k), up = triu(x, k);
      for_each_index({4, 5}, [&](const DimVec& p) {
        REQUIRE(at(lo, p) == (p[1] - p[0] <= k ? at(x, p) : 0));
        REQUIRE(at(up, p) == (p[1] - p[0] >= k ? at(x, p) : 0));
      });
    }
  }
  // Batches of matrices: the last two dims; in place and into a strided out.
  Tensor b = filled({3, 4, 4}, DType::f64, 3);
  Tensor t = clone(b);
  tril_out(t, t, -1);
  for_each_index({3, 4, 4}, [&](const DimVec& p) { CHECK(at(t, p) == (p[2] - p[1] <= -1 ? at(b, p) : 0)); });
  Tensor o = transpose(empty({4, 4}, DType::f64), 0, 1);
  triu_out(o, select(b, 0, 1), 0);
  for_each_index({4, 4}, [&](const DimVec& p) { CHECK(at(o, p) == (p[1] >= p[0] ? at(b, {1, p[0], p[1]}) : 0)); });
  CHECK_THROWS_WITH(tril(filled({3}, DType::f32), 0),
                    "[tril] expected a matrix (or a batch of matrices), got a tensor of size 3");
}

TEST_CASE("flip reverses the given dims into a new tensor", "[index][flip]") {
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    Tensor x = strided({3, 4, 2}, dt, 8);
    for (DimVec dims : {DimVec{0}, DimVec{1}, DimVec{-1}, DimVec{2, 0}, DimVec{0, 1, 2}, DimVec{}}) {
      INFO("dims of size " << dims.size());
      bool rev[3] = {};
      for (int64_t d : dims) rev[d < 0 ? d + 3 : d] = true;
      Tensor r = flip(x, dims);
      REQUIRE(r.sizes() == x.sizes());
      REQUIRE(r.dtype() == dt);
      REQUIRE_FALSE(r.shares_storage(x));
      for_each_index({3, 4, 2}, [&](const DimVec& p) {
        DimVec q = p;
        for (int d = 0; d < 3; ++d) if (rev[d]) q[d] = x.size(d) - 1 - p[d];
        REQUIRE(at(r, p) == at(x, q));
      });
    }
  }
  Tensor scalar = reshape(filled({1}, DType::f32), DimVec{});
  CHECK(flip(scalar, {0}).dim() == 0);
  CHECK(flip(empty({0, 3}, DType::f32), {0, 1}).sizes() == DimVec({0, 3}));
  Tensor m = filled({2, 3}, DType::f32);
  CHECK_THROWS_WITH(flip(m, {1, -1}), "[flip] dimension 2 appears more than once in dims {2, -1} (tensor of size 2x3)");
  CHECK_THROWS_WITH(flip(m, {2}), "[flip] dimension 3 out of range for a 2D tensor");
}
