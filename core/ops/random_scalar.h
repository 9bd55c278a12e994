// Scalar draws (Torch7's torch.uniform(), torch.normal()...): one value from a generator, with
// the same checks and formulas as the tensor fills (core/ops/random_dist.h).
#pragma once
#include <cstdint>
#include "core/rng.h"

namespace tocha {

double draw_uniform(Generator& gen, double a, double b);
// Uses and refills the generator's cached Box-Muller value (Torch7's order).
double draw_normal(Generator& gen, double mean, double std);
// Torch7's logNormal: mean and std of the log-normal values.
double draw_log_normal(Generator& gen, double mean, double std);
double draw_exponential(Generator& gen, double lambda);
double draw_cauchy(Generator& gen, double median, double sigma);
// Torch7's geometric: P(i) = (1-p) p^(i-1).
double draw_geometric(Generator& gen, double p);
// 1 with probability p, else 0.
double draw_bernoulli(Generator& gen, double p);
// An integer in [lo, hi] (Torch7: one word modulo the range, two when it exceeds 2^32).
int64_t draw_integer(Generator& gen, int64_t lo, int64_t hi);

}  // namespace tocha
