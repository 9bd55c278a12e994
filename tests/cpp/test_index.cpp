// index / indexCopy / indexAdd / indexFill and gather / scatter / scatterAdd against naive
// element-by-element references, on contiguous and strided inputs of every dtype, plus the
// argument checks (bad index values, dtypes and shapes).
#include <limits>
#include "core/ops/index.h"
#include "core/ops/index_scatter.h"
#include "kernels/cpu/parallel.h"
#include "test_index_util.h"

using namespace tocha;
using namespace index_test;

namespace {

// out[.., i, ..] = src[.., index[i], ..]
Tensor ref_index_select(const Tensor& src, int d, const Tensor& index) {
  DimVec shape = src.sizes();
  shape[d] = index.numel();
  Tensor out = empty(shape, src.dtype());
  for_each_index(shape, [&](const DimVec& p) {
    DimVec q = p;
    q[d] = int64_t(item_at(index, p[d]));
    set_item_at(out, linear_of(shape, p), at(src, q));
  });
  return out;
}

// self[.., index[i], ..] (op)= src[.., i, ..]; op 0 copy, 1 add, 2 fill with v.
Tensor ref_index_update(const Tensor& self, int d, const Tensor& index, const Tensor* src, int op, double v = 0) {
  Tensor r = clone(self);
  DimVec shape = self.sizes();
  shape[d] = index.numel();
  for_each_index(shape, [&](const DimVec& p) {
    DimVec q = p;
    q[d] = int64_t(item_at(index, p[d]));
    int64_t l = linear_of(r.sizes(), q);
    double x = op == 2 ? v : at(*src, p);
    set_item_at(r, l, op == 1 ? item_at(r, l) + x : x);
  });
  return r;
}

}  // namespace

TEST_CASE("index_select matches a naive loop on every dim, dtype and layout", "[index]") {
  Tensor idx = longs({2, 0, 2, 1});
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    for (bool contiguous : {true, false}) {
      Tensor src = contiguous ? filled({3, 4, 5}, dt) : strided({3, 4, 5}, dt);
      for (int d = 0; d < 3; ++d) {
        INFO("dim " << d);
        Tensor i = narrow(idx, 0, 0, 3);  // values < 3, valid for every dim
        check_same(index_select(src, d, i, 0), ref_index_select(src, d, i));
      }
    }
  }
  // 1-based indices (Lua) and a negative dim.
  Tensor src = filled({4, 3}, DType::f32);
  check_same(index_select(src, -2, longs({4, 1}), 1), ref_index_select(src, 0, longs({3, 0})));
  // IntTensor indices are accepted; 0-dim sources act as vectors.
  Tensor i32 = to_dtype(longs({1, 0}), DType::i32);
  check_same(index_select(src, 1, i32, 0), ref_index_select(src, 1, longs({1, 0})));
  CHECK(index_select(full({}, 7, DType::f64), 0, longs({0, 0}), 0).sizes() == DimVec({2}));
}

TEST_CASE("index_select_out resizes the result and copes with aliasing", "[index]") {
  Tensor src = filled({5, 3}, DType::f64);
  Tensor out = empty({1}, DType::f64);
  index_select_out(out, src, 0, longs({4, 4, 0}), 0);
  check_same(out, ref_index_select(src, 0, longs({4, 4, 0})));
  Tensor f = empty({1}, DType::f32);  // another dtype: converted
  index_select_out(f, src, 1, longs({2}), 0);
  check_same(f, to_dtype(ref_index_select(src, 1, longs({2})), DType::f32));
  Tensor self = clone(src);  // out is the source itself
  index_select_out(self, self, 0, longs({1, 0}), 0);
  check_same(self, ref_index_select(src, 0, longs({1, 0})));
  CHECK_THROWS_WITH(index_select_out(empty({1}, DType::i64), src, 0, longs({0}), 0),
                    Catch::Contains("[index] result of type torch.DoubleTensor cannot be written into a torch.LongTensor"));
}

TEST_CASE("indexCopy, indexAdd and indexFill match naive loops", "[index]") {
  Tensor idx = longs({1, 3, 1, 0});  // repeats: copy keeps the last, add accumulates
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    for (bool contiguous : {true, false}) {
      INFO("contiguous " << contiguous);
      for (int d = 0; d < 2; ++d) {
        DimVec ssize{4, 4, 3};
        ssize[d] = 4;
        Tensor self = contiguous ? filled({4, 4, 3}, dt, 3) : strided({4, 4, 3}, dt, 3);
        Tensor src = contiguous ? filled(ssize, dt, 4) : strided(ssize, dt, 4);
        // Copies of self with its layout, so the in-place ops write through strides too.
        auto copy_of = [&] { return contiguous ? clone(self) : transpose(clone(transpose(self, 0, 1)), 0, 1); };
        Tensor a = copy_of(), b = copy_of(), c = copy_of();
        index_copy_(a, d, idx, src, 0);
        check_same(a, ref_index_update(self, d, idx, &src, 0));
        index_add_(b, d, idx, src, 0);
        check_same(b, ref_index_update(self, d, idx, &src, 1));
        index_fill_(c, d, idx, 1, 0);
        check_same(c, ref_index_update(self, d, idx, nullptr, 2, 1));
      }
    }
  }
  // In place on a strided view writes through to the base.
  Tensor base = zeros({3, 4}, DType::f32);
  Tensor view = transpose(base, 0, 1);  // 4x3
  index_fill_(view, 1, longs({2}), 5, 0);
  CHECK(item_at(base, 8) == 5);
  CHECK(item_at(base, 11) == 5);
  // The out-of-place forms leave self alone.
  Tensor self = filled({3, 2}, DType::f64);
  Tensor r = index_add(self, 0, longs({0}), full({1, 2}, 10, DType::f64), 0);
  CHECK(item_at(r, 0) == item_at(self, 0) + 10);
  CHECK(item_at(self, 0) != item_at(r, 0));
}

TEST_CASE("indexAdd accumulates repeated indices under parallel execution", "[index]") {
  // Many slices to the same few rows: positions run in parallel, the index loop stays serial.
  const int64_t n = 4000, cols = 300;
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = i % 3;
  Tensor x = zeros({3, cols}, DType::f32);
  index_add_(x, 0, longs(v), ones({n, cols}, DType::f32), 0);
  for (int64_t c = 0; c < cols; c += 37) {
    CHECK(item_at(x, c) == 1334);
    CHECK(item_at(x, 2 * cols + c) == 1333);
  }
  Tensor col = zeros({cols, 2}, DType::f64);  // along the last dim
  std::vector<int64_t> w(n, 1);
  index_add_(col, 1, longs(w), ones({cols, n}, DType::f64), 0);
  CHECK(item_at(col, 1) == double(n));
  CHECK(item_at(col, 0) == 0);
}

TEST_CASE("gather, scatter and scatterAdd match naive loops", "[index]") {
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    for (bool contiguous : {true, false}) {
      Tensor input = contiguous ? filled({4, 5, 3}, dt) : strided({4, 5, 3}, dt);
      for (int d = 0; d < 3; ++d) {
        INFO("dim " << d);
        DimVec isz{3, 4, 2};  // no larger than input except along d
        isz[d] = 6;
        Tensor idx = empty(isz, DType::i64);
        uint32_t s = 7;
        for (int64_t i = 0; i < idx.numel(); ++i) {
          s = s * 1664525u + 1013904223u;
          idx.data<int64_t>()[i] = int64_t((s >> 16) % uint32_t(input.size(d)));
        }
        Tensor g = gather(input, d, idx, 0);
        Tensor src = filled(isz, dt, 9);
        Tensor sc = clone(input), sa = clone(input), sv = clone(input);
        scatter_(sc, d, idx, src, 0);
        scatter_add_(sa, d, idx, src, 0);
        scatter_(sv, d, idx, 1.0, 0);
        Tensor rg = empty(isz, dt), rc = clone(input), ra = clone(input), rv = clone(input);
        for_each_index(isz, [&](const DimVec& p) {
          DimVec q = p;
          q[d] = idx.data<int64_t>()[linear_of(isz, p)];
          int64_t lq = linear_of(input.sizes(), q);
          set_item_at(rg, linear_of(isz, p), at(input, q));
          set_item_at(rc, lq, at(src, p));
          set_item_at(ra, lq, item_at(ra, lq) + at(src, p));
          set_item_at(rv, lq, 1);
        });
        check_same(g, rg);
        check_same(sc, rc);
        check_same(sa, ra);
        check_same(sv, rv);
      }
    }
  }
}

TEST_CASE("gather, scatter and scatterAdd along the last dim of a matrix, split between threads", "[index]") {
  // The kernels' matrix-row path (run_matrix_rows): contiguous rows gathered without strides,
  // strided operands, 1-based values, repeated targets in a row (the last write wins, sums add
  // up), with the 20000 rows in several chunks at 2 threads.
  const int before = cpu::get_num_threads();
  for (int threads : {1, 2})
  for (int64_t base : {0, 1})
  for (bool contiguous : {true, false}) {
    cpu::set_num_threads(threads);
    INFO("threads " << threads << " base " << base << " contiguous " << contiguous);
    const int64_t rows = 20000, cols = 7, k = 4;
    Tensor input = contiguous ? filled({rows, cols}, DType::f32) : transpose(filled({cols, rows}, DType::f32), 0, 1);
    Tensor idx = empty({rows, k}, DType::i64);
    uint32_t s = 11;
    for (int64_t i = 0; i < idx.numel(); ++i) {
      s = s * 1664525u + 1013904223u;
      idx.data<int64_t>()[i] = int64_t((s >> 16) % 3) + base;  // 3 of 7 columns: repeats in most rows
    }
    Tensor src = filled({rows, k}, DType::f32, 3);
    Tensor g = gather(input, 1, idx, base);
    Tensor sc = clone(input), sa = clone(input);
    scatter_(sc, 1, idx, src, base);
    scatter_add_(sa, 1, idx, src, base);
    Tensor rc = clone(input), ra = clone(input);
    bool gathered = true;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < k; ++j) {
        const int64_t c = idx.data<int64_t>()[r * k + j] - base;
        gathered = gathered && at(g, {r, j}) == at(input, {r, c});
        set_item_at(rc, r * cols + c, at(src, {r, j}));
        set_item_at(ra, r * cols + c, item_at(ra, r * cols + c) + at(src, {r, j}));
      }
    CHECK(gathered);
    check_same(sc, rc);
    check_same(sa, ra);
  }
  cpu::set_num_threads(before);
}

TEST_CASE("gather and scatter accept strided indices and 1-based values", "[index]") {
  Tensor input = filled({3, 4}, DType::f64);
  Tensor idx = transpose(longs({1, 2, 3, 3, 2, 1}, {2, 3}), 0, 1);  // 3x2, strided, 1-based
  Tensor g = gather(input, 1, idx, 1);
  REQUIRE(g.sizes() == DimVec({3, 2}));
  for_each_index({3, 2}, [&](const DimVec& p) {
    CHECK(at(g, p) == at(input, {p[0], int64_t(at(idx, p)) - 1}));
  });
  Tensor out = empty({1}, DType::f64);
  gather_out(out, input, 1, idx, 1);
  check_same(out, g);
  // Long rows: gathers split the row itself between threads.
  Tensor wide = filled({3, 2500}, DType::f32, 5);
  Tensor rows = longs({2, 0, 2, 1});
  check_same(index_select(wide, 0, rows, 0), ref_index_select(wide, 0, rows));
  Tensor gi = empty({2, 2500}, DType::i64);
  for (int64_t i = 0; i < gi.numel(); ++i) gi.data<int64_t>()[i] = (i * 7) % 3;
  Tensor gw = gather(wide, 0, gi, 0);
  for (int64_t j = 0; j < 2500; j += 13)
    CHECK(at(gw, {1, j}) == at(wide, {(2500 + j) * 7 % 3, j}));
  // scatterAdd with every target equal sums everything (many parallel positions, serial along dim).
  Tensor acc = zeros({1, 500}, DType::f32);
  scatter_add_(acc, 0, zeros({700, 500}, DType::i64), ones({700, 500}, DType::f32), 0);
  CHECK(item_at(acc, 0) == 700);
  CHECK(item_at(acc, 499) == 700);
}

TEST_CASE("index ops reject bad indices, dtypes and shapes with clear messages", "[index]") {
  Tensor x = filled({2, 3}, DType::f32);
  CHECK_THROWS_WITH(index_select(x, 0, longs({0, 2}), 0),
                    "[index] index 2 at position 1 is out of range for dimension 1 of size 2");
  CHECK_THROWS_WITH(index_select(x, 1, longs({1, 0}), 1),
                    "[index] index 0 at position 2 is out of range for dimension 2 of size 3 (indices are 1-based)");
  CHECK_THROWS_WITH(index_select(x, 0, full({2}, 0, DType::f32), 0),
                    "[index] indices must be a torch.LongTensor, got a torch.FloatTensor");
  CHECK_THROWS_WITH(index_select(x, 0, zeros({1, 1}, DType::i64), 0), Catch::Contains("indices must be a vector"));
  CHECK_THROWS_WITH(index_select(x, 2, longs({0}), 0), Catch::Contains("dimension 3 out of range"));
  CHECK_THROWS_WITH(index_copy_(clone(x), 0, longs({0}), filled({1, 2}, DType::f32), 0),
                    Catch::Contains("[indexCopy] source has size 1x2 but the tensor has size 2x3"));
  CHECK_THROWS_WITH(index_add_(clone(x), 0, longs({0, 1}), filled({1, 3}, DType::f32), 0),
                    "[indexAdd] source has 1 slices along dimension 1 but 2 indices were given");
  CHECK_THROWS_WITH(index_add_(filled({2}, DType::i64), 0, longs({0}), full({1}, 0.5, DType::f32), 0),
                    Catch::Contains("cannot write a torch.FloatTensor into a torch.LongTensor"));
  CHECK_THROWS_WITH(index_fill_(expand(full({1}, 0, DType::f32), {3}), 0, longs({0}), 1, 0),
                    Catch::Contains("[indexFill] cannot write into a tensor whose elements overlap"));
  CHECK_THROWS_WITH(gather(x, 1, longs({0, 1}), 0),
                    Catch::Contains("[gather] index has 1 dimensions (size 2) but input has 2"));
  CHECK_THROWS_WITH(gather(x, 1, longs({0, 0, 0, 0}, {4, 1}), 0),
                    Catch::Contains("[gather] index has size 4x1 but input has size 2x3"));
  CHECK_THROWS_WITH(gather(x, 1, longs({0, 5}, {2, 1}), 0),
                    "[gather] index 5 at position (1, 0) is out of range for dimension 2 of size 3");
  CHECK_THROWS_WITH(scatter_(clone(x), 0, longs({0, 0, 0}, {1, 3}), filled({1, 2}, DType::f32), 0),
                    Catch::Contains("[scatter] index has size 1x3 but src has size 1x2"));
  CHECK_THROWS_WITH(scatter_add_(clone(x), 0, longs({-1}, {1, 1}), filled({1, 1}, DType::f32), 0),
                    "[scatterAdd] index -1 at position (0, 0) is out of range for dimension 1 of size 2");
  // The unsigned range check (check_index_values) at the ends of int64 and of the range, 0- and
  // 1-based, and on an empty dim where nothing is valid.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  for (int64_t base : {0, 1}) {
    for (int64_t bad : {lo, lo + 1, base - 1, base + 2, hi - 1, hi}) {
      std::vector<int64_t> v(37, base);  // past the vector loop's width, the bad value last
      v.back() = bad;
      CHECK_THROWS_WITH(index_select(x, 0, longs(v), base),
                        Catch::StartsWith("[index] index " + std::to_string(bad) + " at position " +
                                          std::to_string(36 + base) + " is out of range"));
    }
    CHECK(index_select(x, 0, longs({base + 1, base, base + 1}), base).size(0) == 3);
    CHECK_THROWS_WITH(index_select(zeros({0, 3}, DType::f32), 0, longs({base}), base),
                      Catch::Contains("is out of range for dimension 1 of size 0"));
  }
}
