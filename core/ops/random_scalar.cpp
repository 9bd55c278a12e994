// Scalar draws. See random_scalar.h; checks are shared with the fills (core/ops/random.h).
#include "core/ops/random_scalar.h"
#include <cmath>
#include "core/error.h"
#include "core/ops/random.h"
#include "core/ops/random_dist.h"

namespace tocha {

double draw_uniform(Generator& gen, double a, double b) {
  check_uniform_args("uniform", a, b);
  double v = gen.next_uniform() * (b - a) + a;
  // Rounding can reach b; the value stays in [a, b) like the fills'.
  return (a < b && v >= b) ? std::nextafter(b, a) : v;
}

double draw_normal(Generator& gen, double mean, double std) {
  check_normal_args("normal", mean, std);
  return gen.next_normal() * std + mean;
}

double draw_log_normal(Generator& gen, double mean, double std) {
  check_log_normal_args("logNormal", mean, std);
  double mu, sigma;
  dist::log_normal_params(mean, std, &mu, &sigma);
  return std::exp(gen.next_normal() * sigma + mu);
}

double draw_exponential(Generator& gen, double lambda) {
  check_positive_arg("exponential", "lambda", lambda);
  return dist::exponential(gen.next_uniform(), lambda);
}

double draw_cauchy(Generator& gen, double median, double sigma) {
  TOCHA_CHECK(std::isfinite(median), "cauchy", "median must be finite, got ", median);
  check_positive_arg("cauchy", "sigma", sigma);
  return dist::cauchy(gen.next_uniform(), median, sigma);
}

double draw_geometric(Generator& gen, double p) {
  check_probability("geometric", p, true);
  return dist::geometric(gen.next_uniform(), p);
}

double draw_bernoulli(Generator& gen, double p) {
  check_probability("bernoulli", p, false);
  return dist::bernoulli(gen.next_u32(), p) ? 1.0 : 0.0;
}

int64_t draw_integer(Generator& gen, int64_t lo, int64_t hi) {
  TOCHA_CHECK(lo <= hi, "random", "expects a <= b, got a = ", lo, " and b = ", hi);
  uint64_t range = uint64_t(hi) - uint64_t(lo) + 1;
  uint32_t w[2];
  if (dist::words_for_range(range) == 1) {
    w[0] = gen.next_u32();
  } else {
    auto lock = gen.lock();
    w[0] = gen.next_u32_locked();
    w[1] = gen.next_u32_locked();
  }
  return dist::random_in_range(w, lo, range);
}

}  // namespace tocha
