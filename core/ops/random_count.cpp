// poisson and binomial (see random_count.h): per-element rejection samplers in double on the
// host, one generator lock per draw. Parameters are read as contiguous f64 copies.
#include "core/ops/random_count.h"
#include "core/type_name.h"
#include <cmath>
#include "core/error.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"
#include "core/shape.h"

namespace tocha {

namespace {

// A uniform in (0, 1): the samplers take logarithms of it.
double open_uniform(Generator& gen) {
  double u = gen.next_uniform();
  return u > 0 ? u : 0.5 / 4294967296.0;
}

// Note [Count samplers]
// Poisson: Knuth's product of uniforms for rates below 10 (expected lambda + 1 draws), else
// Hoermann's PTRS transformed rejection (about 1.1 draws of 2 uniforms). Binomial: for p > 1/2
// the count minus a draw with 1 - p; inversion by the recurrence of the probabilities when
// n p < 10, else Hoermann's BTRS. These are the algorithms NumPy and PyTorch use.
double draw_poisson(Generator& gen, double lam) {
  if (lam == 0) return 0;
  if (lam < 10) {
    const double limit = std::exp(-lam);
    double prod = 1;
    int64_t k = -1;
    do {
      ++k;
      prod *= gen.next_uniform();
    } while (prod > limit);
    return double(k);
  }
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = gen.next_uniform() - 0.5, v = open_uniform(gen);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + lam + 0.43);
    if (us >= 0.07 && v <= vr) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -lam + k * loglam - std::lgamma(k + 1))
      return k;
  }
}

double draw_binomial(Generator& gen, double n, double p) {
  if (n == 0 || p == 0) return 0;
  if (p == 1) return n;
  if (p > 0.5) return n - draw_binomial(gen, n, 1 - p);
  const double q = 1 - p;
  if (n * p < 10) {
    const double s = p / q, a = (n + 1) * s;
    // q^n as exp(n log1p(-p)): 1 - p rounds to 1 for p < 1.1e-16 (n = 1e17, p = 1e-17 drew only 0s)
    double r = std::exp(n * std::log1p(-p)), u = gen.next_uniform(), x = 0;
    while (u > r && x < n) {
      u -= r;
      x += 1;
      r *= a / x - s;
      if (r <= 0) break;  // rounding past the tail
    }
    return x;
  }
  const double spq = std::sqrt(n * p * q), b = 1.15 + 2.53 * spq, a = -0.0873 + 0.0248 * b + 0.01 * p;
  const double c = n * p + 0.5, vr = 0.92 - 4.2 / b, alpha = (2.83 + 5.1 / b) * spq, lpq = std::log(p / q);
  const double m = std::floor((n + 1) * p), h = std::lgamma(m + 1) + std::lgamma(n - m + 1);
  for (;;) {
    const double u = gen.next_uniform() - 0.5, v0 = open_uniform(gen);
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + c);
    if (k < 0 || k > n) continue;
    if (us >= 0.07 && v0 <= vr) return k;
    const double v = std::log(v0 * alpha / (a / (us * us) + b));
    if (v <= h - std::lgamma(k + 1) - std::lgamma(n - k + 1) + (k - m) * lpq) return k;
  }
}

Tensor host_f64(const Tensor& t, const DimVec& shape) {
  return contiguous(to_dtype(to_device(contiguous(expand(t, shape)), Device{}), DType::f64));
}

}  // namespace

Tensor poisson(const Tensor& rates, Generator& gen) {
  const char* op = "poisson";
  TOCHA_CHECK(is_floating(rates.dtype()), op, "expected rates as a floating point tensor, got a ",
              tensor_type_name(rates));
  Tensor r = host_f64(rates, rates.sizes());
  Tensor out = empty(rates.sizes(), DType::f64);
  const double* pr = r.data<double>();
  double* po = out.data<double>();
  for (int64_t i = 0; i < r.numel(); ++i)
    TOCHA_CHECK(pr[i] >= 0 && std::isfinite(pr[i]), op, "rates must be finite and not negative, got ", pr[i],
                " at position ", i + 1);
  for (int64_t i = 0; i < r.numel(); ++i) po[i] = draw_poisson(gen, pr[i]);
  return to_device(to_dtype(out, rates.dtype()), rates.device());
}

Tensor binomial(const Tensor& count, const Tensor& prob, Generator& gen) {
  const char* op = "binomial";
  check_same_device(op, count, prob);
  TOCHA_CHECK(is_floating(count.dtype()) && is_floating(prob.dtype()), op,
              "expected count and prob as floating point tensors, got a ", tensor_type_name(count), " and a ",
              tensor_type_name(prob));
  DimVec shape;
  TOCHA_CHECK(broadcast_shapes(count.sizes(), prob.sizes(), &shape), op, "count of size ", shape_str(count.sizes()),
              " and prob of size ", shape_str(prob.sizes()), " do not broadcast");
  Tensor n = host_f64(count, shape), p = host_f64(prob, shape);
  Tensor out = empty(shape, DType::f64);
  const double *pn = n.data<double>(), *pp = p.data<double>();
  double* po = out.data<double>();
  for (int64_t i = 0; i < n.numel(); ++i) {
    TOCHA_CHECK(pn[i] >= 0 && pn[i] == std::floor(pn[i]) && std::isfinite(pn[i]), op,
                "count must hold non-negative integers, got ", pn[i], " at position ", i + 1);
    TOCHA_CHECK(pp[i] >= 0 && pp[i] <= 1, op, "prob must lie in [0, 1], got ", pp[i], " at position ", i + 1);
  }
  for (int64_t i = 0; i < n.numel(); ++i) po[i] = draw_binomial(gen, pn[i], pp[i]);
  return to_device(to_dtype(out, promote_types(count.dtype(), prob.dtype())), count.device());
}

}  // namespace tocha
