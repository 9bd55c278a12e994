// sort, topk, kthvalue, median, mode, cumsum, cumprod, cross, trace, dist, renorm and histc
// against naive f64 references: every dtype, strided layouts, every dim, NaN and ties.
#include <algorithm>
#include <limits>
#include <map>
#include "core/ops/reduce.h"
#include "core/ops/scan.h"
#include "core/ops/sort.h"
#include "tocha.h"
#include "test_reduce_util.h"

using namespace tocha;
using namespace reduce_test;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Inputs with ties (from the value grid) and, for float dtypes, a few NaNs.
Tensor sort_input(DType dt) {
  Tensor a = make_input({4, 5, 6}, dt, 9);
  if (is_floating(dt))
    for (int64_t i : {3, 17, 18, 64, 119}) set_item_at(a, i, kNaN);
  return a;
}

bool nan_less(double a, double b) { return a < b || (std::isnan(b) && !std::isnan(a)); }

// Positions of s in stable sorted order (NaN largest).
std::vector<int64_t> stable_order(const std::vector<double>& s, bool descending) {
  std::vector<int64_t> idx(s.size());
  for (size_t i = 0; i < s.size(); ++i) idx[i] = int64_t(i);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return descending ? nan_less(s[size_t(b)], s[size_t(a)]) : nan_less(s[size_t(a)], s[size_t(b)]);
  });
  return idx;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Element (slice i, position j) of a result with the sliced dim at `dim`.
double at(const Tensor& t, int dim, size_t i, int64_t j) {
  int64_t inner = 1;
  for (int d = dim + 1; d < t.dim(); ++d) inner *= t.size(d);
  int64_t o = int64_t(i) / inner, in = int64_t(i) % inner;
  return item_at(t, (o * t.size(dim) + j) * inner + in);
}

}  // namespace

TEST_CASE("sort is stable, puts NaN last and matches std::stable_sort", "[reduce][sort]") {
  for (DType dt : kAllTypes) {
    for (const Tensor& a : layouts(sort_input(dt))) {
      for (int dim = 0; dim < 3; ++dim) {
        for (bool desc : {false, true}) {
          INFO(dtype_name(dt) << " dim " << dim << " descending " << desc << (a.is_contiguous() ? "" : " strided"));
          ValuesIndices r = sort(a, dim, desc, 1);
          REQUIRE(r.values.sizes() == a.sizes());
          CHECK(r.values.dtype() == dt);
          auto refs = slices(a, dim);
          for (size_t i = 0; i < refs.size(); ++i) {
            auto order = stable_order(refs[i], desc);
            for (size_t j = 0; j < order.size(); ++j) {
              if (!same(at(r.values, dim, i, int64_t(j)), refs[i][size_t(order[j])]) ||
                  at(r.indices, dim, i, int64_t(j)) != double(order[j] + 1))
                FAIL_CHECK("slice " << i << " position " << j);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("topk, kthvalue, median and mode match references", "[reduce][sort]") {
  for (DType dt : kAllTypes) {
    for (const Tensor& a : layouts(sort_input(dt))) {
      for (int dim = 0; dim < 3; ++dim) {
        INFO(dtype_name(dt) << " dim " << dim << (a.is_contiguous() ? "" : " strided"));
        auto refs = slices(a, dim);
        int64_t n = a.size(dim);
        ValuesIndices big = topk(a, 3, dim, true, true, 0), small = topk(a, 2, dim, false, false, 0);
        CHECK(big.values.size(dim) == 3);
        ValuesIndices kth = kthvalue(a, n, dim, true, 0), med = median(a, dim, false, 0), mod = mode(a, dim, true, 0);
        CHECK(med.values.dim() == 2);
        for (size_t i = 0; i < refs.size(); ++i) {
          const auto& s = refs[i];
          auto desc = stable_order(s, true), asc = stable_order(s, false);
          for (int64_t j = 0; j < 3; ++j) {
            CHECK(same(at(big.values, dim, i, j), s[size_t(desc[size_t(j)])]));
            CHECK(at(big.indices, dim, i, j) == double(desc[size_t(j)]));
          }
          for (int64_t j = 0; j < 2; ++j) CHECK(at(small.indices, dim, i, j) == double(asc[size_t(j)]));
          CHECK(same(item_at(kth.values, int64_t(i)), s[size_t(asc.back())]));
          CHECK(item_at(kth.indices, int64_t(i)) == double(asc.back()));
          auto first_nan = std::find_if(s.begin(), s.end(), [](double x) { return std::isnan(x); });
          if (first_nan != s.end()) {
            CHECK(std::isnan(item_at(med.values, int64_t(i))));
            CHECK(item_at(med.indices, int64_t(i)) == double(first_nan - s.begin()));
          } else {
            CHECK(item_at(med.values, int64_t(i)) == s[size_t(asc[size_t((n - 1) / 2)])]);
            CHECK(item_at(med.indices, int64_t(i)) == double(asc[size_t((n - 1) / 2)]));
          }
          // mode: the most frequent value (smallest on ties; NaNs count together), last index.
          std::vector<double> sorted = s;
          std::sort(sorted.begin(), sorted.end(), nan_less);
          double best = sorted[0];
          size_t best_n = 0;
          for (size_t j = 0; j < sorted.size();) {
            size_t k = j;
            while (k < sorted.size() && same(sorted[k], sorted[j])) ++k;
            if (k - j > best_n) { best_n = k - j; best = sorted[j]; }
            j = k;
          }
          int64_t last = 0;
          for (size_t j = 0; j < s.size(); ++j)
            if (same(s[j], best)) last = int64_t(j);
          CHECK(same(item_at(mod.values, int64_t(i)), best));
          CHECK(item_at(mod.indices, int64_t(i)) == double(last));
        }
      }
    }
  }
  Tensor v = make_input({7}, DType::f32, 4);
  auto vs = values(v);
  std::sort(vs.begin(), vs.end());
  CHECK(item_at(median(v), 0) == vs[3]);
  CHECK(reduce_value(OpId::median, transposed_copy(make_input({2, 3}, DType::i32))) ==
        item_at(median(make_input({2, 3}, DType::i32)), 0));
}

TEST_CASE("cumsum and cumprod match running references", "[reduce][scan]") {
  for (DType dt : kAllTypes) {
    for (const Tensor& a : layouts(make_input({4, 5, 70}, dt, 2))) {
      for (int dim = 0; dim < 3; ++dim) {
        INFO(dtype_name(dt) << " dim " << dim << (a.is_contiguous() ? "" : " strided"));
        Tensor cs = cumsum(a, dim), cp = cumprod(narrow(a, 2, 0, 6), dim);
        CHECK(cs.dtype() == (is_floating(dt) ? dt : DType::i64));
        auto refs = slices(a, dim), prefs = slices(narrow(a, 2, 0, 6), dim);
        for (size_t i = 0; i < refs.size(); ++i) {
          double run = 0;
          for (size_t j = 0; j < refs[i].size(); ++j) {
            run += refs[i][j];
            if (!close(at(cs, dim, i, int64_t(j)), run, tolerance(cs.dtype()) * 8)) FAIL_CHECK("cumsum " << i << "," << j);
          }
        }
        for (size_t i = 0; i < prefs.size(); ++i) {
          double run = 1;
          for (size_t j = 0; j < prefs[i].size(); ++j) {
            run *= prefs[i][j];
            if (!close(at(cp, dim, i, int64_t(j)), run, tolerance(cp.dtype()) * 8)) FAIL_CHECK("cumprod " << i << "," << j);
          }
        }
      }
    }
  }
  Tensor out = empty({1}, DType::f64);
  cumsum_out(out, make_input({3, 3}, DType::i32), -1);
  CHECK(out.sizes() == DimVec({3, 3}));
}

TEST_CASE("cross, trace and dist match their formulas", "[reduce]") {
  for (DType dt : {DType::f32, DType::f64, DType::i64, DType::f16}) {
    Tensor a = make_input({4, 3, 5}, dt, 1), b = make_input({4, 3, 5}, dt, 2);
    for (const Tensor& x : layouts(a)) {
      Tensor c = cross(x, b, std::nullopt), c1 = cross(x, b, 1);
      auto as = slices(x, 1), bs = slices(b, 1);
      for (size_t i = 0; i < as.size(); ++i) {
        const auto &u = as[i], &v = bs[i];
        double want[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        for (int j = 0; j < 3; ++j) {
          CHECK(close(at(c, 1, i, j), want[j], tolerance(dt) * 16));
          CHECK(at(c1, 1, i, j) == at(c, 1, i, j));
        }
      }
    }
  }
  Tensor m = make_input({3, 5}, DType::f32, 6);
  double tr = item_at(m, 0) + item_at(m, 6) + item_at(m, 12);
  CHECK(item_at(trace(m), 0) == Approx(tr));
  CHECK(trace_value(transposed_copy(m)) == Approx(tr));
  Tensor x = make_input({6}, DType::f32, 1), y = make_input({6}, DType::f32, 2);
  double d2 = 0, d1 = 0, dinf = 0;
  for (int64_t i = 0; i < 6; ++i) {
    double d = item_at(x, i) - item_at(y, i);
    d2 += d * d;
    d1 += std::fabs(d);
    dinf = std::max(dinf, std::fabs(d));
  }
  CHECK(dist_value(x, y, 2) == Approx(std::sqrt(d2)));
  CHECK(item_at(dist(x, y, 1), 0) == Approx(d1));
  CHECK(dist_value(x, y, std::numeric_limits<double>::infinity()) == Approx(dinf));
}

TEST_CASE("renorm scales slices whose norm exceeds maxnorm", "[reduce]") {
  Tensor a = make_input({4, 3, 2}, DType::f64, 8);
  for (const Tensor& x : layouts(a)) {
    Tensor r = renorm(x, 2, 1, 1.5);
    for (int64_t i = 0; i < 3; ++i) {
      Tensor sel = select(x, 1, i), rsel = select(r, 1, i);
      double nrm = reduce_value(OpId::norm, sel, 2);
      double scale = nrm > 1.5 ? 1.5 / (nrm + 1e-7) : 1;
      for (int64_t j = 0; j < sel.numel(); ++j) CHECK(item_at(rsel, j) == Approx(item_at(sel, j) * scale));
    }
  }
  Tensor self = clone(a);
  renorm_out(self, self, 1, 0, 0.5);
  for (int64_t i = 0; i < 4; ++i) CHECK(reduce_value(OpId::norm, select(self, 0, i), 1) <= 0.5 + 1e-6);
}

TEST_CASE("histc counts values into equal bins", "[reduce]") {
  Tensor a = make_input({200}, DType::f32, 3);
  Tensor h = histc(a, 10, -1, 1);
  CHECK(h.dtype() == DType::f32);
  std::vector<double> want(10, 0);
  for (double v : values(a))
    if (v >= -1 && v <= 1) want[std::min<size_t>(size_t((v + 1) / 2 * 10), 9)] += 1;
  for (int64_t i = 0; i < 10; ++i) CHECK(item_at(h, i) == want[size_t(i)]);
  Tensor all_range = histc(narrowed_copy(a), 4, 0, 0);  // min == max: the data's range
  CHECK(reduce_value(OpId::sum, all_range) == 200);
  Tensor ints = histc(make_input({50}, DType::i32), 21, 0, 0);
  CHECK(ints.dtype() == default_float_dtype());
  CHECK(reduce_value(OpId::sum, ints) == 50);
  CHECK(item_at(histc(full({3}, 2, DType::f64), 2, 0, 0), 1) == 3);  // constant data: range 1..3
}

TEST_CASE("sort, scan and composite errors name the op", "[reduce][sort]") {
  Tensor a = make_input({2, 6}, DType::f32);
  CHECK_THROWS_WITH(topk(a, 7, 1, true, true, 1), "[topk] k = 7 is out of range for dimension 2 of size 6");
  CHECK_THROWS_WITH(kthvalue(a, 0, 1, true, 1), Catch::Contains("[kthvalue] k = 0 is out of range"));
  CHECK_THROWS_WITH(sort(a, 2, false, 1), Catch::Contains("[sort] dimension 3 out of range"));
  CHECK_THROWS_WITH(median(empty({0}, DType::f32)), Catch::Contains("[median] cannot take the median"));
  CHECK_THROWS_WITH(mode(empty({2, 0}, DType::f32), 1, true, 1), Catch::Contains("[mode] cannot reduce over dimension 2"));
  CHECK_THROWS_WITH(cross(a, a, std::nullopt), "[cross] no dimension of size 3 in a tensor of size 2x6");
  CHECK_THROWS_WITH(cross(a, a, 1), Catch::Contains("[cross] dimension 2 has size 6"));
  CHECK_THROWS_WITH(cross(make_input({3}, DType::f32), make_input({3, 1}, DType::f32), 0),
                    Catch::Contains("[cross] inputs have sizes 3 and 3x1"));
  CHECK_THROWS_WITH(histc(a, 0, 0, 0), "[histc] number of bins must be positive, got 0");
  CHECK_THROWS_WITH(histc(a, 5, 2, 1), Catch::Contains("[histc] max 1 must not be smaller than min 2"));
  CHECK_THROWS_WITH(renorm(make_input({2, 2}, DType::i32), 2, 0, 1), Catch::Contains("[renorm] expected a floating"));
  CHECK_THROWS_WITH(renorm(a, 0, 0, 1), Catch::Contains("[renorm] norm type p must be positive"));
  CHECK(topk(a, 0, 1, true, true, 1).values.sizes() == DimVec({2, 0}));
  CHECK(sort(empty({0}, DType::f32), 0, false, 1).values.numel() == 0);
}

// for_each_slice steps the slices' offsets like an odometer from each thread's first slice: at
// 1 and 2+ threads, slices of a permuted 3-D tensor (carries across two kept dims) scan alike.
TEST_CASE("scans and sorts over many slices agree across thread counts", "[reduce][scan]") {
  const int threads = tocha_get_num_threads();
  Tensor a = permute(make_input({3, 200, 90}, DType::f32, 5), {1, 2, 0});  // 200x90x3, strided
  std::vector<Tensor> got[2];
  for (int t = 0; t < 2; ++t) {
    tocha_set_num_threads(t == 0 ? 1 : std::max(2, threads));
    got[t] = {cumsum(a, 2), cumsum(a, 0), sort(a, 2, false, 0).values, sort(a, 0, true, 1).indices};
  }
  tocha_set_num_threads(threads);
  for (size_t k = 0; k < got[0].size(); ++k) {
    INFO("result " << k);
    REQUIRE(equal(got[0][k], got[1][k]));
  }
  // And against the running reference along the permuted dim of size 3.
  for (int64_t i = 0; i < 200; ++i)
    for (int64_t j = 0; j < 90; j += 7) {
      double run = 0;
      for (int64_t k = 0; k < 3; ++k) {
        run += item_at(a, (i * 90 + j) * 3 + k);
        CHECK(item_at(got[1][0], (i * 90 + j) * 3 + k) == Approx(run));
      }
    }
}

// Note [Radix sort]: slices of 32 elements and more are radix-sorted. Against the stable
// comparison order: ties, NaN of both signs, -0 and +0 (equal: kept in input order, each
// written as itself), infinities, the integer extremes, both directions, strided slices, and
// the values result written over the input.
TEST_CASE("radix-sorted slices keep the comparison sort's order", "[reduce][sort]") {
  const double kInf = std::numeric_limits<double>::infinity();
  for (DType dt : kAllTypes) {
    for (int64_t n : {31, 32, 33, 300}) {
      Tensor a = make_input({3, n}, dt, uint32_t(n));
      if (is_floating(dt)) {
        const double special[] = {kNaN, -kNaN, -0.0, 0.0, kInf, -kInf, -0.0};
        for (int64_t i = 0; i < 7; ++i) set_item_at(a, (i * 37) % (3 * n), special[i]);
      } else if (dt == DType::i64 || dt == DType::i32) {
        const double lo = dt == DType::i64 ? -9223372036854775808.0 : -2147483648.0;
        set_item_at(a, 1, lo);
        set_item_at(a, n + 2, -lo - (dt == DType::i64 ? 1024 : 1));  // near the top (exact in double)
      }
      for (const Tensor& x : {a, transposed_copy(a)}) {
        for (bool desc : {false, true}) {
          INFO(dtype_name(dt) << " n " << n << " descending " << desc << (x.is_contiguous() ? "" : " strided"));
          ValuesIndices r = sort(x, 1, desc, 0);
          auto refs = slices(x, 1);
          for (size_t i = 0; i < refs.size(); ++i) {
            auto order = stable_order(refs[i], desc);
            for (size_t j = 0; j < order.size(); ++j) {
              const double got = at(r.values, 1, i, int64_t(j)), want = refs[i][size_t(order[j])];
              if (!same(got, want) || std::signbit(got) != std::signbit(want) ||
                  at(r.indices, 1, i, int64_t(j)) != double(order[j]))
                FAIL_CHECK("slice " << i << " position " << j << ": got " << got << " want " << want);
            }
          }
        }
      }
      // The values result is the input: every value is read before any is written.
      Tensor y = clone(a), idx = empty({1}, DType::i64);
      ValuesIndices want = sort(a, 1, false, 0);
      sort_out(y, idx, y, 1, false, 0);
      CHECK(equal(idx, want.indices));
      for (int64_t i = 0; i < y.numel(); ++i) CHECK(same(item_at(y, i), item_at(want.values, i)));
    }
  }
}

// Column reductions halve their blocks while few (reduce_kernel), but the reduced dim's chunks
// keep the full blocks' size, so a column's order of sums does not change: a 1024x1024 f64 sum
// along dim 1 adds each column in chunks of 128 rows (kChunk / 1024), then the chunks in order.
TEST_CASE("column sums keep their chunks when the blocks are halved", "[reduce]") {
  const int64_t n = 1024, chunk = 128;
  Tensor a = empty({n, n}, DType::f64);
  uint64_t s = 7;
  for (int64_t i = 0; i < a.numel(); ++i) {  // not exact in any order of sums
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    a.data<double>()[i] = double(s >> 11) / double(1ull << 53) - 0.3;
  }
  std::vector<double> want(size_t(n), 0.0);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t c = 0; c < n; c += chunk) {
      double part = 0;
      for (int64_t i = c; i < c + chunk; ++i) part += a.data<double>()[i * n + j];
      want[size_t(j)] = c == 0 ? part : want[size_t(j)] + part;
    }
  const int saved = tocha_get_num_threads();
  for (int t : {1, 2}) {
    tocha_set_num_threads(t);
    Tensor got = sum(a, 0, false);
    int64_t bad = 0;
    for (int64_t j = 0; j < n; ++j) bad += got.data<double>()[j] != want[size_t(j)];
    CHECK(bad == 0);
  }
  tocha_set_num_threads(saved);
}
