// Reductions against naive f64 references: every dtype, contiguous/narrowed/transposed inputs,
// every dim with and without keepdim, full reductions, large inputs split across threads, NaN
// and infinities, empty inputs, `_out` variants and error messages; argmax/argmin.
#include <algorithm>
#include <limits>
#include "core/ops/reduce.h"
#include "tocha.h"
#include "test_reduce_util.h"

using namespace tocha;
using namespace reduce_test;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Case {
  OpId op;
  double param;  // norm's p, var/std's unbiased flag
};
const Case kCases[] = {{OpId::sum, 0},  {OpId::prod, 0}, {OpId::mean, 0},      {OpId::var, 1},  {OpId::var, 0},
                       {OpId::std, 1},  {OpId::norm, 2}, {OpId::norm, 1},      {OpId::norm, 0}, {OpId::norm, 3},
                       {OpId::norm, kInf}, {OpId::logsumexp, 0}, {OpId::all, 0}, {OpId::any, 0}, {OpId::max, 0},
                       {OpId::min, 0}};

double ref_reduce(Case c, const std::vector<double>& v) {
  double n = double(v.size()), s = 0, m = -kInf;
  for (double x : v) s += x;
  switch (c.op) {
    case OpId::sum: return s;
    case OpId::prod: { double p = 1; for (double x : v) p *= x; return p; }
    case OpId::mean: return s / n;
    case OpId::var: case OpId::std: {
      double ss = 0;
      for (double x : v) ss += (x - s / n) * (x - s / n);
      double var = ss / (n - c.param);
      return c.op == OpId::var ? var : std::sqrt(var);
    }
    case OpId::norm: {
      double r = 0;
      for (double x : v) {
        if (c.param == 0) r += x != 0;
        else if (c.param == kInf) r = std::max(r, std::fabs(x));
        else r += std::pow(std::fabs(x), c.param);
      }
      return c.param == 0 || c.param == kInf ? r : std::pow(r, 1 / c.param);
    }
    case OpId::logsumexp: {
      for (double x : v) m = std::max(m, x);
      double e = 0;
      for (double x : v) e += std::exp(x - m);
      return m + std::log(e);
    }
    case OpId::all: return std::all_of(v.begin(), v.end(), [](double x) { return x != 0; });
    case OpId::any: return std::any_of(v.begin(), v.end(), [](double x) { return x != 0; });
    case OpId::max: return *std::max_element(v.begin(), v.end());
    case OpId::min: return *std::min_element(v.begin(), v.end());
    default: FAIL("no reference"); return 0;
  }
}

DType expected_dtype(OpId op, DType in) {
  if (op == OpId::sum || op == OpId::prod) return is_floating(in) ? in : DType::i64;
  if (op == OpId::all || op == OpId::any) return in == DType::u8 ? DType::u8 : DType::b8;
  if (op == OpId::max || op == OpId::min) return in;
  return is_floating(in) ? in : default_float_dtype();
}

Tensor run_dim(Case c, const Tensor& a, int dim, bool keepdim) {
  switch (c.op) {
    case OpId::sum: return sum(a, dim, keepdim);
    case OpId::prod: return prod(a, dim, keepdim);
    case OpId::mean: return mean(a, dim, keepdim);
    case OpId::var: return var(a, dim, c.param != 0, keepdim);
    case OpId::std: return tocha::std(a, dim, c.param != 0, keepdim);
    case OpId::norm: return norm(a, c.param, dim, keepdim);
    case OpId::logsumexp: return logsumexp(a, dim, keepdim);
    case OpId::all: return all(a, dim, keepdim);
    case OpId::any: return any(a, dim, keepdim);
    case OpId::max: return max(a, dim, keepdim, 0).values;
    case OpId::min: return min(a, dim, keepdim, 0).values;
    default: FAIL("no front-end"); return a;
  }
}

}  // namespace

TEST_CASE("reductions along every dim match f64 references for every dtype and layout", "[reduce]") {
  for (DType dt : kAllTypes) {
    for (const Tensor& a : layouts(make_input({3, 4, 5}, dt))) {
      for (int dim = 0; dim < 3; ++dim) {
        auto refs = slices(a, dim);
        for (bool keepdim : {true, false}) {
          for (Case c : kCases) {
            INFO(op_name(c.op) << "(" << c.param << ") of " << dtype_name(dt) << " " << shape_str(a.sizes())
                               << (a.is_contiguous() ? "" : " strided") << " dim " << dim << " keepdim " << keepdim);
            Tensor r = run_dim(c, a, dim, keepdim);
            CHECK(r.dtype() == expected_dtype(c.op, dt));
            DimVec shape = a.sizes();
            if (keepdim) shape[dim] = 1;
            else shape.erase(dim);
            REQUIRE(r.sizes() == shape);
            double tol = tolerance(r.dtype());
            for (size_t i = 0; i < refs.size(); ++i) {
              double want = ref_reduce(c, refs[i]), got = item_at(r, int64_t(i));
              if (!close(got, want, tol)) FAIL_CHECK("output " << i << ": got " << got << ", want " << want);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("max and min along a dim return the index of the first extreme", "[reduce]") {
  for (DType dt : kAllTypes) {
    for (const Tensor& a : layouts(make_input({4, 3, 6}, dt, 7))) {
      for (int dim = 0; dim < 3; ++dim) {
        INFO(dtype_name(dt) << " dim " << dim << (a.is_contiguous() ? "" : " strided"));
        ValuesIndices mx = max(a, dim, false, 0), mn = min(a, dim, true, 1);
        CHECK(mx.indices.dtype() == DType::i64);
        auto refs = slices(a, dim);
        for (size_t i = 0; i < refs.size(); ++i) {
          const auto& s = refs[i];
          auto imax = std::max_element(s.begin(), s.end()) - s.begin();
          auto imin = std::min_element(s.begin(), s.end()) - s.begin();
          CHECK(item_at(mx.values, int64_t(i)) == s[size_t(imax)]);
          CHECK(item_at(mx.indices, int64_t(i)) == double(imax));
          CHECK(item_at(mn.values, int64_t(i)) == s[size_t(imin)]);
          CHECK(item_at(mn.indices, int64_t(i)) == double(imin + 1));  // index_base 1
        }
      }
    }
  }
}

TEST_CASE("full reductions give 0-dim tensors and accumulator-precision values", "[reduce]") {
  for (DType dt : kAllTypes) {
    for (const Tensor& a : layouts(make_input({5, 7, 3}, dt, 3))) {
      std::vector<double> v = values(a);
      for (Case c : kCases) {
        INFO(op_name(c.op) << "(" << c.param << ") of " << dtype_name(dt));
        double want = ref_reduce(c, v);
        // f16/bf16 accumulate in float; logsumexp takes exp in the input's precision
        bool single = is_reduced_float(dt) || (c.op == OpId::logsumexp && dt == DType::f32);
        CHECK(close(reduce_value(c.op, a, c.param), want, single ? 1e-6 : 1e-9));
        if (c.op == OpId::sum) {
          Tensor r = sum(a);
          CHECK(r.dim() == 0);
          CHECK(close(item_at(r, 0), want, tolerance(r.dtype())));
        }
      }
    }
  }
  Tensor m = make_input({4, 4}, DType::f32);
  CHECK(item_at(max(m), 0) == reduce_value(OpId::max, m));
  CHECK(item_at(var(m, false), 0) == Approx(reduce_value(OpId::var, m, 0)).epsilon(1e-6));
  CHECK(item_at(norm(m, 2), 0) == Approx(reduce_value(OpId::norm, m, 2)).epsilon(1e-6));
  Tensor z = full_like_scalar(2.5, DType::f32, Device{});  // a 0-dim input reduces along dim 0 / -1
  CHECK(item_at(sum(z, -1, false), 0) == 2.5);
  ValuesIndices zi = max(z, 0, true, 1);
  CHECK(zi.values.dim() == 0);
  CHECK(item_at(zi.indices, 0) == 1);
}

TEST_CASE("large reductions split across threads stay accurate and deterministic", "[reduce]") {
  const int64_t n = 1 << 22;
  Tensor tenth = full({n}, 0.1, DType::f32);
  double want = double(n) * double(0.1f);
  CHECK(std::fabs(reduce_value(OpId::sum, tenth) - want) <= want * 1e-12);
  CHECK(item_at(sum(tenth), 0) == Approx(want).epsilon(1e-7));
  CHECK(reduce_value(OpId::mean, tenth) == Approx(double(0.1f)).epsilon(1e-12));
  CHECK(reduce_value(OpId::var, tenth, 1) == Approx(0).margin(1e-12));
  Tensor h = full({1 << 16}, 1, DType::f16);  // f16 sums accumulate in float: 65536 is exact
  CHECK(reduce_value(OpId::sum, h) == 65536);

  // rows, columns and blocks of columns, against references
  for (DimVec shape : {DimVec{3, 200000}, DimVec{200000, 3}, DimVec{1000, 130}, DimVec{130, 1000}}) {
    Tensor a = make_input(shape, DType::f32, 11);
    for (int dim = 0; dim < 2; ++dim) {
      INFO(shape_str(shape) << " dim " << dim);
      Tensor s = sum(a, dim, true);
      ValuesIndices mx = max(a, dim, true, 0);
      auto refs = slices(a, dim);
      for (size_t i = 0; i < refs.size(); i += 1 + refs.size() / 50) {
        CHECK(close(item_at(s, int64_t(i)), ref_reduce({OpId::sum, 0}, refs[i]), 1e-6));
        auto& r = refs[i];
        CHECK(item_at(mx.indices, int64_t(i)) == double(std::max_element(r.begin(), r.end()) - r.begin()));
      }
    }
  }
  // Column blocks are halved while few (a 256x256 reduction along dim 1 runs as two 128-wide
  // blocks, a 130x1000 one as 500-wide ones): every output against its reference, at 1 and 2 threads.
  for (DimVec shape : {DimVec{256, 256}, DimVec{130, 1000}, DimVec{64, 3, 700}}) {
    Tensor a = make_input(shape, DType::f32, 13);
    auto refs = slices(a, 0);
    const int saved = tocha_get_num_threads();
    for (int t : {1, 2}) {
      tocha_set_num_threads(t);
      Tensor s = sum(a, 0, true);
      ValuesIndices mn = min(a, 0, true, 0);
      for (size_t i = 0; i < refs.size(); ++i) {
        auto& r = refs[i];
        if (!close(item_at(s, int64_t(i)), ref_reduce({OpId::sum, 0}, r), 1e-6)) FAIL_CHECK(shape_str(shape) << " sum " << i);
        if (item_at(mn.indices, int64_t(i)) != double(std::min_element(r.begin(), r.end()) - r.begin()))
          FAIL_CHECK(shape_str(shape) << " min " << i);
      }
    }
    tocha_set_num_threads(saved);
  }
  Tensor big = make_input({1 << 20}, DType::f32, 5);
  int threads = tocha_get_num_threads();
  tocha_set_num_threads(1);
  double one = reduce_value(OpId::sum, big), one_std = reduce_value(OpId::std, big, 1);
  tocha_set_num_threads(std::max(2, threads));
  CHECK(reduce_value(OpId::sum, big) == one);
  CHECK(reduce_value(OpId::std, big, 1) == one_std);
  tocha_set_num_threads(threads);
}

TEST_CASE("NaN propagates and infinities are handled", "[reduce]") {
  Tensor a = empty({5}, DType::f32);
  double vals[5] = {1, kNaN, 3, kNaN, -kInf};
  for (int i = 0; i < 5; ++i) set_item_at(a, i, vals[i]);
  CHECK(std::isnan(reduce_value(OpId::max, a)));
  CHECK(std::isnan(reduce_value(OpId::min, a)));
  CHECK(std::isnan(reduce_value(OpId::sum, a)));
  CHECK(std::isnan(reduce_value(OpId::norm, a, kInf)));
  CHECK(std::isnan(reduce_value(OpId::logsumexp, a)));
  ValuesIndices m = max(a, 0, false, 0);
  CHECK(std::isnan(item_at(m.values, 0)));
  CHECK(item_at(m.indices, 0) == 1);  // the first NaN
  CHECK(item_at(min(a, 0, false, 0).indices, 0) == 1);

  Tensor ninf = full({4}, -kInf, DType::f64);
  CHECK(item_at(max(ninf, 0, false, 0).indices, 0) == 0);
  CHECK(reduce_value(OpId::max, ninf) == -kInf);
  CHECK(reduce_value(OpId::logsumexp, ninf) == -kInf);
  Tensor big = full({2}, 1000, DType::f32);
  CHECK(reduce_value(OpId::logsumexp, big) == Approx(1000 + std::log(2.0)));
  set_item_at(big, 1, kInf);
  CHECK(reduce_value(OpId::logsumexp, big) == kInf);
  Tensor ties = empty({4}, DType::i32);
  for (int i = 0; i < 4; ++i) set_item_at(ties, i, i == 0 ? 1 : 5);
  CHECK(item_at(max(ties, 0, false, 0).indices, 0) == 1);
}

TEST_CASE("max and min along contiguous rows find the first extreme past vector blocks", "[reduce]") {
  // Note [Vector extremes] (kernels/cpu/reduce_minmax.cpp): the extreme by an OpenMP reduction,
  // then its first position block by block (64 elements); rows of 200 with the extreme in
  // different blocks, ties across blocks and NaNs.
  struct Row {
    std::vector<std::pair<int, double>> set;  // position, value over a background of 1..50
    int want_max, want_min;
  };
  const std::vector<Row> rows = {{{{0, 99}, {5, -9}}, 0, 5},     {{{63, 99}, {64, -9}}, 63, 64},
                                 {{{64, 99}, {199, -9}}, 64, 199}, {{{70, 99}, {150, 99}, {71, -9}, {199, -9}}, 70, 71},
                                 {{{199, 99}, {130, -9}}, 199, 130}};
  for (DType dt : {DType::f32, DType::f64, DType::i64, DType::i32, DType::u8}) {
    const bool fp = dt == DType::f32 || dt == DType::f64;
    const bool u8 = dt == DType::u8;
    std::vector<Row> all = rows;
    if (fp) all.push_back({{{100, kNaN}, {180, kNaN}, {10, 99}}, 100, 100});  // the first NaN, both ways
    Tensor a = empty({int64_t(all.size()), 200}, dt);
    for (size_t r = 0; r < all.size(); ++r) {
      for (int64_t i = 0; i < 200; ++i) set_item_at(a, int64_t(r) * 200 + i, double(1 + (i * 7) % 50));
      for (auto [i, v] : all[r].set) set_item_at(a, int64_t(r) * 200 + i, u8 && v < 0 ? 0 : v);
    }
    ValuesIndices mx = max(a, 1, false, 0), mn = min(a, 1, false, 0);
    for (size_t r = 0; r < all.size(); ++r) {
      INFO(dtype_name(dt) << " row " << r);
      CHECK(item_at(mx.indices, int64_t(r)) == all[r].want_max);
      CHECK(item_at(mn.indices, int64_t(r)) == all[r].want_min);
      const double vmax = item_at(mx.values, int64_t(r)), vmin = item_at(mn.values, int64_t(r));
      if (r == rows.size()) {
        CHECK(vmax != vmax);
        CHECK(vmin != vmin);
      } else {
        CHECK(vmax == 99);
        CHECK(vmin == (u8 ? 0 : -9));
      }
    }
  }
  // Signed zeros compare equal: with indices, the value is the element at the first one.
  for (DType dt : {DType::f32, DType::f64}) {
    Tensor z = full({2, 64}, -1, dt);
    set_item_at(z, 0, -0.0);
    set_item_at(z, 1, 0.0);
    for (int64_t i = 64; i < 128; ++i) set_item_at(z, i, 1);
    set_item_at(z, 64, 0.0);
    set_item_at(z, 65, -0.0);
    ValuesIndices zmax = max(z, 1, false, 0), zmin = min(z, 1, false, 0);
    CHECK(item_at(zmax.indices, 0) == 0);
    CHECK(std::signbit(item_at(zmax.values, 0)));
    CHECK(item_at(zmin.indices, 1) == 0);
    CHECK_FALSE(std::signbit(item_at(zmin.values, 1)));
  }
}

TEST_CASE("logsumexp handles infinities and NaN along every layout", "[reduce]") {
  // Note [Branch-free logsumexp]: columns (a leading dim: fold_rows4 over rows 1-4, fold_row for
  // the fifth), contiguous rows (two vector passes) and strided rows see the same special runs,
  // each padded with -inf, which adds nothing.
  std::vector<std::vector<double>> runs = {
      {-kInf, -kInf, -kInf}, {-kInf, 1, -kInf}, {1, -kInf, 2}, {kInf, 1, 0}, {1, 2, kInf}, {kInf, kInf, 1},
      {kNaN, 1, 2}, {1, kNaN, kInf}, {-kInf, kNaN, -kInf}, {1000, 1000, 999}, {-1000, -1001, -1002},
      {kInf, -kInf, 3}, {0.5, -0.25, 2}, {-kInf, 7, 7}};
  for (auto& r : runs) r.insert(r.begin() + 1, {-kInf, -kInf});
  const int64_t len = 5;
  auto ref = [](const std::vector<double>& v) {
    double m = -kInf;
    for (double x : v) {
      if (x != x) return kNaN;
      m = std::max(m, x);
    }
    if (m == -kInf || m == kInf) return m;
    double e = 0;
    for (double x : v) e += std::exp(x - m);
    return m + std::log(e);
  };
  for (DType dt : {DType::f32, DType::f64}) {
    const int64_t cols = 3 * int64_t(runs.size()) + 5;  // past a vector width, with a remainder
    Tensor cm = empty({len, cols}, dt);                    // runs down the columns
    Tensor rm = empty({cols, len}, dt);                    // runs along the rows
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < len; ++r) {
        const double v = c < int64_t(runs.size()) * 3 ? runs[size_t(c) % runs.size()][size_t(r)] : 0.1 * double(c + r);
        set_item_at(cm, r * cols + c, v);
        set_item_at(rm, c * len + r, v);
      }
    Tensor down = logsumexp(cm, 0, false), along = logsumexp(rm, 1, false);
    Tensor strided = logsumexp(transpose(cm, 0, 1), 1, false);  // rows with a stride of cols
    for (int64_t c = 0; c < cols; ++c) {
      std::vector<double> v;
      for (int64_t r = 0; r < len; ++r) v.push_back(item_at(rm, c * len + r));
      const double want = ref(v);
      INFO(dtype_name(dt) << " column " << c << ": " << v[0] << ", " << v[3] << ", " << v[4]);
      for (const Tensor* got : {&down, &along, &strided}) {
        const double g = item_at(*got, c);
        if (want != want) CHECK(g != g);
        else if (std::isinf(want)) CHECK(g == want);
        else CHECK(g == Approx(want).epsilon(dt == DType::f32 ? 1e-6 : 1e-12));
      }
    }
  }
}

TEST_CASE("reductions of empty tensors give identities; max of nothing is an error", "[reduce]") {
  Tensor e = empty({0}, DType::f32);
  CHECK(reduce_value(OpId::sum, e) == 0);
  CHECK(reduce_value(OpId::prod, e) == 1);
  CHECK(std::isnan(reduce_value(OpId::mean, e)));
  CHECK(reduce_value(OpId::all, e) == 1);
  CHECK(reduce_value(OpId::any, e) == 0);
  CHECK(reduce_value(OpId::norm, e, 2) == 0);
  CHECK(reduce_value(OpId::logsumexp, e) == -kInf);
  CHECK_THROWS_WITH(max(e), "[max] cannot reduce a tensor with no elements (size 0)");
  CHECK_THROWS_WITH(reduce_value(OpId::min, e), Catch::Contains("[min] cannot reduce"));
  Tensor e2 = empty({2, 0}, DType::i32);
  Tensor s = sum(e2, 1, true);
  CHECK(s.sizes() == DimVec({2, 1}));
  CHECK(item_at(s, 1) == 0);
  CHECK(item_at(prod(e2, 1, false), 0) == 1);
  CHECK_THROWS_WITH(max(e2, 1, true, 0), Catch::Contains("[max] cannot reduce over dimension 2 of size 0"));
  CHECK(max(e2, 0, true, 0).values.sizes() == DimVec({1, 0}));
}

TEST_CASE("_out variants resize, convert and survive aliasing", "[reduce]") {
  Tensor a = make_input({3, 4}, DType::f32);
  Tensor out = empty({7}, DType::f64);
  sum_out(out, a, 1, true);
  CHECK(out.sizes() == DimVec({3, 1}));
  CHECK(item_at(out, 2) == Approx(item_at(sum(a, 1, false), 2)));
  Tensor lout = empty({1}, DType::i64);
  CHECK_THROWS_WITH(mean_out(lout, a, 0, true), Catch::Contains("cannot be written into a torch.LongTensor"));
  Tensor self = clone(a);
  double first_col = item_at(sum(a, 0, true), 0);
  sum_out(self, self, 0, true);  // torch.sum(x, x, 1): reads x before resizing it
  CHECK(self.sizes() == DimVec({1, 4}));
  CHECK(item_at(self, 0) == Approx(first_col));
  Tensor v = empty({0}, DType::f32), i = empty({0}, DType::i64);
  max_out(v, i, a, 0, false, 1);
  CHECK(v.sizes() == DimVec({4}));
  CHECK(item_at(i, 0) == double(max(a, 0, false, 1).indices.data<int64_t>()[0]));
}

TEST_CASE("expanded inputs reduce along their zero strides", "[reduce]") {
  Tensor row = make_input({1, 5}, DType::f32, 4);
  Tensor e = expand(row, {3, 5});
  Tensor s0 = sum(e, 0, false), s1 = sum(e, 1, false);
  for (int64_t j = 0; j < 5; ++j) CHECK(item_at(s0, j) == 3 * item_at(row, j));
  for (int64_t i = 0; i < 3; ++i) CHECK(item_at(s1, i) == Approx(reduce_value(OpId::sum, row)));
  ValuesIndices m = max(e, 0, false, 0);
  for (int64_t j = 0; j < 5; ++j) CHECK(item_at(m.indices, j) == 0);
  CHECK(reduce_value(OpId::var, e, 0) == Approx(reduce_value(OpId::var, row, 0)));
}

TEST_CASE("argmax and argmin are max and min's indices", "[reduce]") {
  for (DType dt : kAllTypes) {
    for (const Tensor& a : layouts(make_input({4, 3, 6}, dt, 9))) {
      INFO(dtype_name(dt) << (a.is_contiguous() ? "" : " strided"));
      for (int dim = 0; dim < 3; ++dim) {
        INFO("dim " << dim);
        Tensor imax = argmax(a, dim, false, 0), imin = argmin(a, dim, true, 1);
        CHECK(imax.dtype() == DType::i64);
        CHECK(imin.sizes() == min(a, dim, true, 1).indices.sizes());
        auto refs = slices(a, dim);
        for (size_t i = 0; i < refs.size(); ++i) {
          const auto& s = refs[i];
          CHECK(item_at(imax, int64_t(i)) == double(std::max_element(s.begin(), s.end()) - s.begin()));
          CHECK(item_at(imin, int64_t(i)) == double(std::min_element(s.begin(), s.end()) - s.begin() + 1));
        }
      }
      // over all elements: the first extreme in row-major order, as a 0-dim LongTensor
      auto v = values(a);
      Tensor all = argmax(a, 0);
      CHECK(all.dim() == 0);
      CHECK(item_at(all, 0) == double(std::max_element(v.begin(), v.end()) - v.begin()));
      CHECK(item_at(argmin(a, 1), 0) == double(std::min_element(v.begin(), v.end()) - v.begin() + 1));
    }
  }
  CHECK_THROWS_WITH(argmax(empty({0}, DType::f32), 1),
                    "[argmax] cannot take the argmax of a tensor with no elements (size 0)");
  CHECK_THROWS_WITH(argmin(empty({2, 0}, DType::f32), 1, true, 1),
                    "[argmin] cannot take the argmin over dimension 2 of size 0 (input size 2x0)");
  CHECK_THROWS_WITH(argmax(make_input({2, 3}, DType::f32), 2, true, 1),
                    "[argmax] dimension 3 out of range for a 2D tensor");
}

TEST_CASE("reduction errors name the op and what it received", "[reduce]") {
  Tensor a = make_input({2, 3}, DType::f32);
  CHECK_THROWS_WITH(sum(a, 2, true), "[sum] dimension 3 out of range for a 2D tensor");
  CHECK_THROWS_WITH(var(a, -3, true, true), Catch::Contains("[var] dimension -3 out of range"));
  CHECK_THROWS_WITH(reduce_value(OpId::exp, a), "[exp] is not a reduction over all elements");
  CHECK_THROWS_WITH(trace(make_input({3}, DType::f32)), Catch::Contains("[trace] expected a matrix (2D tensor), got a 1D"));
}

// Note [Short runs]: rows shorter than kShortRun take a plain loop of the functor; rows at and past
// it the vector folds. Both must give the first extreme (the first NaN), and the sums the same
// sequential order; every length from 1 to 20, a NaN (a unique maximum for integers) or a tie of
// the maximum at every position.
TEST_CASE("short and long contiguous rows reduce alike", "[reduce]") {
  // The first position of the extreme of row r, a NaN beating every number.
  auto first_extreme = [](const Tensor& a, int64_t r, bool want_max) {
    const int64_t n = a.size(1);
    int64_t k = 0;
    for (int64_t i = 1; i < n; ++i) {
      const double v = item_at(a, r * n + i), best = item_at(a, r * n + k);
      if (std::isnan(best)) break;
      if (std::isnan(v) || (want_max ? v > best : v < best)) k = i;
    }
    return k;
  };
  for (DType dt : {DType::f32, DType::f64, DType::f16, DType::i32}) {
    for (int64_t n = 1; n <= 20; ++n) {
      for (int64_t p = 0; p < n; ++p) {
        INFO(dtype_name(dt) << " n " << n << " special at " << p);
        Tensor a = empty({2, n}, dt);
        for (int64_t i = 0; i < 2 * n; ++i) set_item_at(a, i, double(((i % n) * 5) % 7));  // ties
        set_item_at(a, p, is_floating(dt) ? kNaN : 9);
        set_item_at(a, n + p, 6);
        ValuesIndices mx = max(a, 1, false, 0), mn = min(a, 1, false, 0);
        for (int64_t r = 0; r < 2; ++r) {
          const int64_t kmax = first_extreme(a, r, true), kmin = first_extreme(a, r, false);
          CHECK(item_at(mx.indices, r) == double(kmax));
          CHECK(item_at(mn.indices, r) == double(kmin));
          const double vmax = item_at(mx.values, r), vmin = item_at(mn.values, r);
          CHECK((vmax == item_at(a, r * n + kmax) || (std::isnan(vmax) && std::isnan(item_at(a, r * n + kmax)))));
          CHECK((vmin == item_at(a, r * n + kmin) || (std::isnan(vmin) && std::isnan(item_at(a, r * n + kmin)))));
        }
        double want = 0;  // row 1's sum in order, in double as f32 and f16 sums accumulate
        for (int64_t i = 0; i < n; ++i) want += item_at(a, n + i);
        CHECK(item_at(sum(narrow(a, 0, 1, 1), 1, false), 0) == want);
      }
    }
  }
}
