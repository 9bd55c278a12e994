// Random numbers and factories: MT19937 against std::mt19937, Torch7-compatible streams,
// determinism across thread counts and layouts, state snapshots, distribution moments,
// multinomial frequencies, randperm, and the computed factories.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <random>
#include <thread>
#include <vector>
#include "core/ops/factory.h"
#include "core/ops/pointwise.h"
#include "core/ops/random.h"
#include "core/ops/random_scalar.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/rng.h"
#include "tocha.h"

using namespace tocha;

namespace {
std::vector<double> values(const Tensor& t) {
  std::vector<double> v(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = item_at(t, i);
  return v;
}
struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= double(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= double(v.size() - 1);
  return m;
}
}  // namespace

TEST_CASE("MT19937 matches std::mt19937", "[random]") {
  for (uint32_t seed : {5489u, 0u, 1u, 123u, 0xffffffffu}) {
    MT19937 mt(seed);
    std::mt19937 ref(seed);
    for (int i = 0; i < 2000; ++i) REQUIRE(mt.next_u32() == ref());
    std::vector<uint32_t> bulk(1500);
    mt.fill(bulk.data(), int64_t(bulk.size()));  // bulk draws continue the same stream
    for (uint32_t w : bulk) REQUIRE(w == ref());
  }
  MT19937 mt;  // the C++ standard's check value: the 10000th output for the default seed
  for (int i = 0; i < 9999; ++i) mt.next_u32();
  CHECK(mt.next_u32() == 4123659995u);
}

TEST_CASE("generators are deterministic and wide seeds use all their bits", "[random]") {
  Generator a(42), b(42), c(42 + (uint64_t(1) << 32));
  for (int i = 0; i < 100; ++i) CHECK(a.next_u32() == b.next_u32());
  Generator d(42);
  CHECK(c.next_u32() != d.next_u32());
  CHECK(c.initial_seed() == 42 + (uint64_t(1) << 32));
  Generator e;
  uint64_t s = e.seed();
  CHECK(s < (uint64_t(1) << 53));
  CHECK(e.initial_seed() == s);
}

TEST_CASE("scalar draws follow Torch7's stream", "[random]") {
  Generator g(123);  // values from Torch7's doc/random.md
  CHECK(draw_uniform(g, 0, 1) == Approx(0.69646918727085).epsilon(1e-13));
  CHECK(draw_uniform(g, 0, 1) == Approx(0.71295532141812).epsilon(1e-13));
  CHECK(draw_uniform(g, 0, 1) == Approx(0.28613933874294).epsilon(1e-13));
  // Box-Muller pairs: cos first, the sin value cached for the next call.
  Generator h(7);
  std::mt19937 ref(7);
  double x = ref() / 4294967296.0, y = ref() / 4294967296.0;
  double rho = std::sqrt(-2 * std::log(1 - y));
  CHECK(draw_normal(h, 0, 1) == Approx(rho * std::cos(2 * M_PI * x)));
  CHECK(draw_normal(h, 3, 2) == Approx(rho * std::sin(2 * M_PI * x) * 2 + 3));
  Generator k(9);
  std::mt19937 rk(9);
  CHECK(draw_integer(k, 1, 10) == int64_t(rk() % 10 + 1));
  CHECK(draw_integer(k, -5, 5) == int64_t(rk() % 11) - 5);
  CHECK_THROWS_WITH(draw_normal(k, 0, -1), Catch::Contains("[normal] standard deviation"));
  CHECK_THROWS_WITH(draw_geometric(k, 1), Catch::Contains("[geometric] probability must be in (0, 1)"));
  CHECK_THROWS_WITH(draw_integer(k, 3, 2), Catch::Contains("[random] expects a <= b"));
}

TEST_CASE("double fills equal successive scalar draws; float fills their 24-bit truncation", "[random]") {
  Generator g1(11), g2(11), g3(11);
  Tensor d = empty({1000}, DType::f64), f = empty({1000}, DType::f32);
  uniform_(d, g1, -2, 3);
  uniform_(f, g3, 0, 1);
  std::mt19937 ref(11);
  for (int64_t i = 0; i < 1000; ++i) {
    REQUIRE(item_at(d, i) == draw_uniform(g2, -2, 3));
    REQUIRE(item_at(f, i) == double((ref() >> 8) * (1.0f / 16777216.0f)));
  }
  // normal: a fill of odd length leaves a cached value that a later fill starts with.
  Generator n1(5), n2(5);
  Tensor a = empty({3}, DType::f64), b = empty({4}, DType::f64), whole = empty({7}, DType::f64);
  normal_(a, n1, 1, 2);
  normal_(b, n1, 1, 2);
  normal_(whole, n2, 1, 2);
  std::vector<double> parts = values(a), rest = values(b), all = values(whole);
  parts.insert(parts.end(), rest.begin(), rest.end());
  CHECK(parts == all);
  Generator n3(5);
  for (double v : all) CHECK(v == Approx(draw_normal(n3, 1, 2)).epsilon(1e-15));
}

TEST_CASE("fills do not depend on thread count, strides or output dtype path", "[random]") {
  int threads = tocha_get_num_threads();
  for (DType dt : {DType::f32, DType::f64, DType::f16}) {
    Tensor one = empty({300, 700}, dt), two = empty({300, 700}, dt);
    Generator g1(3), g2(3);
    tocha_set_num_threads(1);
    normal_(one, g1, 0, 1);
    tocha_set_num_threads(4);
    normal_(two, g2, 0, 1);
    REQUIRE(equal(one, two));
  }
  tocha_set_num_threads(threads);
  // A transposed tensor is filled in its logical order, like a contiguous one.
  Generator g1(8), g2(8);
  Tensor c = empty({4, 5}, DType::f32), t = transpose(empty({5, 4}, DType::f32), 0, 1);
  uniform_(c, g1, 0, 1);
  uniform_(t, g2, 0, 1);
  CHECK(equal(c, t));
}

TEST_CASE("state snapshots restore everything, including the cached normal", "[random]") {
  Generator g(99);
  draw_normal(g, 0, 1);  // leaves a cached value
  GeneratorState s = g.get_state();
  double n1 = draw_normal(g, 0, 1), u1 = draw_uniform(g, 0, 1);
  g.set_state(&s, sizeof(s), "setRNGState");
  CHECK(draw_normal(g, 0, 1) == n1);
  CHECK(draw_uniform(g, 0, 1) == u1);
  CHECK(g.initial_seed() == 99);
  Generator other(1);
  other.copy_from(g);
  CHECK(other.next_u32() == g.next_u32());

  CHECK_THROWS_WITH(g.set_state(&s, sizeof(s) - 1, "setRNGState"), Catch::Contains("must have"));
  GeneratorState bad = s;
  bad.words[10] ^= 1;
  CHECK_THROWS_WITH(g.set_state(&bad, sizeof(bad), "setRNGState"), Catch::Contains("checksum"));
  bad = s;
  bad.magic[0] = 'X';
  CHECK_THROWS_WITH(g.set_state(&bad, sizeof(bad), "setRNGState"), Catch::Contains("magic"));
}

TEST_CASE("one generator shared by threads gives each draw once", "[random]") {
  Generator g(2024);
  const int kThreads = 4, kDraws = 5000;
  std::vector<std::vector<uint32_t>> got(kThreads);
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < kDraws / 10; ++i) {
        uint32_t buf[9];
        g.fill_u32(buf, 9);
        got[size_t(t)].insert(got[size_t(t)].end(), buf, buf + 9);
        got[size_t(t)].push_back(g.next_u32());
      }
    });
  for (auto& th : pool) th.join();
  std::vector<uint32_t> all, expect;
  for (auto& v : got) all.insert(all.end(), v.begin(), v.end());
  std::mt19937 ref(2024);
  for (size_t i = 0; i < all.size(); ++i) expect.push_back(ref());
  std::sort(all.begin(), all.end());
  std::sort(expect.begin(), expect.end());
  CHECK(all == expect);
  CHECK(g.next_u32() == ref());
}

TEST_CASE("distribution moments on large samples", "[random]") {
  Generator g(31337);
  const int64_t n = 400000;
  auto sample = [&](auto fill) {
    Tensor t = empty({n}, DType::f64);
    fill(t);
    return moments(values(t));
  };
  Moments u = sample([&](const Tensor& t) { uniform_(t, g, -1, 3); });
  CHECK(u.mean == Approx(1).margin(0.02));
  CHECK(u.var == Approx(16.0 / 12).epsilon(0.02));
  Moments z = sample([&](const Tensor& t) { normal_(t, g, 2, 3); });
  CHECK(z.mean == Approx(2).margin(0.03));
  CHECK(std::sqrt(z.var) == Approx(3).epsilon(0.01));
  Moments e = sample([&](const Tensor& t) { exponential_(t, g, 4); });
  CHECK(e.mean == Approx(0.25).epsilon(0.02));
  Moments ln = sample([&](const Tensor& t) { log_normal_(t, g, 2, 0.5); });  // Torch7: the values' own mean/std
  CHECK(ln.mean == Approx(2).epsilon(0.01));
  CHECK(std::sqrt(ln.var) == Approx(0.5).epsilon(0.03));
  Moments geo = sample([&](const Tensor& t) { geometric_(t, g, 0.25); });  // mean 1 / (1 - p)
  CHECK(geo.mean == Approx(1 / 0.75).epsilon(0.01));
  Moments be = sample([&](const Tensor& t) { bernoulli_(t, g, 0.3); });
  CHECK(be.mean == Approx(0.3).margin(0.005));
  Tensor c = empty({n}, DType::f64);
  cauchy_(c, g, 5, 2);
  std::vector<double> cv = values(c);
  std::nth_element(cv.begin(), cv.begin() + n / 2, cv.end());
  CHECK(cv[size_t(n / 2)] == Approx(5).margin(0.05));

  // float fills (the vectorized Box-Muller path) have the same moments
  Tensor f = empty({n}, DType::f32);
  normal_(f, g, -1, 0.5);
  Moments fm = moments(values(f));
  CHECK(fm.mean == Approx(-1).margin(0.01));
  CHECK(std::sqrt(fm.var) == Approx(0.5).epsilon(0.01));
}

TEST_CASE("random integers cover their inclusive range uniformly", "[random]") {
  Generator g(17);
  for (DType dt : {DType::u8, DType::i32, DType::i64, DType::f32}) {
    Tensor t = empty({60000}, dt);
    random_(t, g, 3, 8);
    std::vector<int> counts(6, 0);
    for (double v : values(t)) {
      REQUIRE((v >= 3 && v <= 8 && v == std::floor(v)));
      counts[size_t(v - 3)]++;
    }
    for (int c : counts) CHECK(std::abs(c - 10000) < 500);
  }
  Tensor b = empty({1000}, DType::u8);
  random_(b, g);
  for (double v : values(b)) CHECK((v >= 0 && v <= 255));
  Tensor wide = empty({1000}, DType::i64);
  random_(wide, g, INT64_MIN, INT64_MAX);  // the full range uses two words per value
  CHECK(!equal(wide, zeros({1000}, DType::i64)));
  CHECK_THROWS_WITH(random_(b, g, 0, 256), Catch::Contains("[random] range [0, 256] does not fit a torch.ByteTensor"));
  CHECK_THROWS_WITH(random_(b, g, 5, 4), Catch::Contains("a <= b"));
}

TEST_CASE("multinomial frequencies, uniqueness and errors", "[random]") {
  Generator g(5);
  Tensor p = empty({4}, DType::f64);
  double w[4] = {1, 0, 3, 6};
  for (int i = 0; i < 4; ++i) set_item_at(p, i, w[i]);
  Tensor draws = multinomial(p, g, 100000, true, 0);
  CHECK(draws.dtype() == DType::i64);
  std::vector<int> counts(4, 0);
  for (double v : values(draws)) counts[size_t(v)]++;
  CHECK(counts[1] == 0);
  CHECK(counts[0] == Approx(10000).margin(500));
  CHECK(counts[2] == Approx(30000).margin(800));
  CHECK(counts[3] == Approx(60000).margin(800));

  // Without replacement: distinct, never a zero weight, and the first draw follows the weights.
  Tensor rows = empty({2000, 4}, DType::f32);
  for (int64_t r = 0; r < 2000; ++r)
    for (int j = 0; j < 4; ++j) set_item_at(rows, r * 4 + j, w[j]);
  Tensor picks = multinomial(rows, g, 3, false, 1);
  CHECK(picks.sizes() == DimVec({2000, 3}));
  int first_is_4 = 0;
  for (int64_t r = 0; r < 2000; ++r) {
    double a = item_at(picks, r * 3), b = item_at(picks, r * 3 + 1), c = item_at(picks, r * 3 + 2);
    REQUIRE((a != b && b != c && a != c));
    REQUIRE((a != 2 && b != 2 && c != 2));
    first_is_4 += a == 4;
  }
  CHECK(first_is_4 == Approx(1200).margin(120));

  CHECK_THROWS_WITH(multinomial(p, g, 4, false, 0), Catch::Contains("only 3 non-zero weights"));
  set_item_at(p, 0, -1);
  CHECK_THROWS_WITH(multinomial(p, g, 1, true, 0), Catch::Contains("non-negative"));
  CHECK_THROWS_WITH(multinomial(zeros({3}, DType::f32), g, 1, true, 0), Catch::Contains("sum to zero"));
  CHECK_THROWS_WITH(multinomial(zeros({3}, DType::i64), g, 1, true, 0), Catch::Contains("floating-point"));
}

TEST_CASE("randperm is Torch7's Fisher-Yates permutation", "[random]") {
  Generator g(77);
  Tensor p = randperm(50, g, DType::i64, 1);
  std::vector<double> v = values(p);
  std::mt19937 ref(77);
  std::vector<double> expect(50);
  for (int i = 0; i < 50; ++i) expect[size_t(i)] = i;
  for (int i = 0; i < 49; ++i) std::swap(expect[size_t(i)], expect[size_t(i + int(ref() % uint32_t(50 - i)))]);
  for (double& e : expect) e += 1;
  CHECK(v == expect);
  CHECK(randperm(0, g, DType::i64, 0).numel() == 0);
  CHECK_THROWS_WITH(randperm(-1, g, DType::i64, 0), Catch::Contains("[randperm] n must be non-negative"));
  CHECK_THROWS_WITH(randperm(300, g, DType::u8, 1), Catch::Contains("do not fit a torch.ByteTensor"));
}

TEST_CASE("range, arange, linspace, logspace and eye", "[factory]") {
  CHECK(values(range(1, 4, 1, DType::f32)) == std::vector<double>({1, 2, 3, 4}));
  CHECK(values(range(4, 1, -1.5, DType::f64)) == std::vector<double>({4, 2.5, 1}));
  CHECK(range(0, 0.3, 0.1, DType::f64).numel() == 4);  // the end is kept despite rounding
  CHECK(values(arange(0, 4, 1, DType::i64)) == std::vector<double>({0, 1, 2, 3}));
  CHECK(arange(0, 1, 0.3, DType::f64).numel() == 4);
  CHECK(arange(2, 2, 1, DType::f64).numel() == 0);
  Tensor l = linspace(-1, 1, 5, DType::f64);
  CHECK(values(l) == std::vector<double>({-1, -0.5, 0, 0.5, 1}));
  CHECK(values(linspace(3, 7, 1, DType::f32)) == std::vector<double>({3}));
  CHECK(values(logspace(0, 3, 4, 10, DType::f64)) == std::vector<double>({1, 10, 100, 1000}));
  CHECK(values(logspace(1, 3, 3, 2, DType::i32)) == std::vector<double>({2, 4, 8}));
  CHECK(values(eye(2, 3, DType::u8)) == std::vector<double>({1, 0, 0, 0, 1, 0}));
  // eye into a transposed result writes its diagonal through the strides
  Tensor t = transpose(empty({3, 3}, DType::f32), 0, 1);
  eye_out(t, 3, 3);
  CHECK(values(t) == std::vector<double>({1, 0, 0, 0, 1, 0, 0, 0, 1}));
  // range into a strided result
  Tensor s = select(empty({5, 2}, DType::i64), 1, 0);
  range_out(s, 10, 14, 1);
  CHECK(values(s) == std::vector<double>({10, 11, 12, 13, 14}));

  CHECK_THROWS_WITH(range(1, 2, 0, DType::f32), Catch::Contains("[range] step must be non-zero"));
  CHECK_THROWS_WITH(range(1, 2, -1, DType::f32), Catch::Contains("inconsistent with the sign of step"));
  CHECK_THROWS_WITH(arange(0, 1, 0, DType::f32), Catch::Contains("[arange] step must be non-zero"));
  CHECK_THROWS_WITH(linspace(0, 1, -1, DType::f32), Catch::Contains("[linspace] number of points"));
  CHECK_THROWS_WITH(range(0, 300, 1, DType::u8), Catch::Contains("do not fit a torch.ByteTensor"));
  CHECK_THROWS_WITH(eye(-1, 2, DType::f32), Catch::Contains("[eye] sizes must be non-negative"));
}

TEST_CASE("uniform values stay below b after rounding", "[random]") {
  Generator g(6);
  for (DType dt : {DType::f16, DType::bf16}) {  // 1 - u rounds to 1 once in 2^11 (2^8) draws
    Tensor t = empty({200000}, dt);
    uniform_(t, g, 0, 1);
    std::vector<double> v = values(t);
    CHECK(*std::max_element(v.begin(), v.end()) < 1);
    CHECK(*std::min_element(v.begin(), v.end()) >= 0);
  }
  Tensor same = empty({10}, DType::f32);
  uniform_(same, g, 3, 3);
  CHECK(equal(same, full({10}, 3, DType::f32)));
}

TEST_CASE("fill errors name the op and the input", "[random]") {
  Generator g(1);
  Tensor l = empty({3}, DType::i64), f = empty({3}, DType::f32);
  CHECK_THROWS_WITH(uniform_(l, g, 0, 1), Catch::Contains("[uniform] expects a floating-point tensor, got a torch.LongTensor"));
  CHECK_THROWS_WITH(uniform_(f, g, 2, 1), Catch::Contains("[uniform] expects a <= b"));
  CHECK_THROWS_WITH(exponential_(f, g, 0), Catch::Contains("[exponential] lambda must be positive"));
  CHECK_THROWS_WITH(bernoulli_(f, g, 1.5), Catch::Contains("[bernoulli] probability must be in [0, 1]"));
  Tensor probs = full({3}, 0.5, DType::f32);
  set_item_at(probs, 2, 2);
  CHECK_THROWS_WITH(bernoulli_(f, g, probs), Catch::Contains("got 2 at element 3"));
  CHECK_THROWS_WITH(bernoulli_(f, g, full({4}, 0.5, DType::f32)), Catch::Contains("do not match"));
  Tensor expanded = expand(full({1}, 0, DType::f32), {3});
  CHECK_THROWS_WITH(normal_(expanded, g, 0, 1), Catch::Contains("overlap"));
  // bernoulli into bool and with per-element probabilities
  Tensor bits = empty({4}, DType::b8), ps = empty({4}, DType::f64);
  for (int i = 0; i < 4; ++i) set_item_at(ps, i, i % 2);
  bernoulli_(bits, g, ps);
  CHECK(values(bits) == std::vector<double>({0, 1, 0, 1}));
}
