// CPU kernels of the fused class losses (core/ops/loss.h): NLL over log-probabilities and
// cross-entropy over raw scores (a stable log-sum-exp per row), forward sums and input gradients.
#include <algorithm>
#include <cmath>
#include <mutex>
#include "core/kernel_registry.h"
#include "core/ops/loss.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/simd_math.h"

namespace tocha {
namespace cpu {
namespace {

// Rows per task: rows of C scores cost about C exps each, so parallelize by elements.
int64_t row_grain(int64_t c) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1)); }

template <class T> TOCHA_SIMD_CLONES T row_max(const T* x, int64_t c) {
  T m = x[0];
#pragma omp simd reduction(max : m)
  for (int64_t j = 1; j < c; ++j) m = x[j] > m ? x[j] : m;
  return m;
}
// sum_j exp(x[j] - m), accumulated in T's opmath (lanes of float sums stay accurate for the
// class counts of classification heads; rows are short).
template <class T> TOCHA_SIMD_CLONES T row_exp_sum(const T* x, int64_t c, T m) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t j = 0; j < c; ++j) s += std::exp(x[j] - m);
  return s;
}
// g[j] = k * exp(x[j] - m) / s  (the softmax times k).
template <class T> TOCHA_SIMD_CLONES void row_softmax_scaled(T* g, const T* x, int64_t c, T m, T k) {
#pragma omp simd
  for (int64_t j = 0; j < c; ++j) g[j] = k * std::exp(x[j] - m);
}

template <class T> double weight_of(const ClassLossArgs& a, int64_t t) {
  return a.weight ? double(static_cast<const T*>(a.weight)[t]) : 1.0;
}

// The total weight of the rows that are not ignored (the size_average divisor).
template <class T> double total_weight(const ClassLossArgs& a) {
  double total = 0;
  for (int64_t i = 0; i < a.n; ++i)
    if (a.target[i] != a.ignore_index) total += weight_of<T>(a, a.target[i] - a.base);
  return total;
}
// scale / norm, the factor every gradient row carries.
template <class T> double grad_factor(const ClassLossArgs& a) {
  double norm = a.size_average ? total_weight<T>(a) : 1.0;
  return a.scale / (norm != 0 ? norm : 1.0);
}

template <class T> void nll_forward(const ClassLossArgs& a) {
  const T* x = static_cast<const T*>(a.input);
  double loss = 0, total = 0;
  for (int64_t i = 0; i < a.n; ++i) {
    if (a.target[i] == a.ignore_index) continue;
    int64_t t = a.target[i] - a.base;
    double w = weight_of<T>(a, t);
    loss -= w * double(x[i * a.c + t]);
    total += w;
  }
  a.sums[0] = loss;
  a.sums[1] = total;
}

template <class T> void nll_backward(const ClassLossArgs& a) {
  T* g = static_cast<T*>(a.grad_input);
  std::fill(g, g + a.n * a.c, T(0));
  const double k = grad_factor<T>(a);
  for (int64_t i = 0; i < a.n; ++i) {
    if (a.target[i] == a.ignore_index) continue;
    int64_t t = a.target[i] - a.base;
    g[i * a.c + t] = T(-weight_of<T>(a, t) * k);
  }
}

template <class T> void ce_forward(const ClassLossArgs& a) {
  const T* x = static_cast<const T*>(a.input);
  double loss = 0, total = 0;
  std::mutex mu;
  parallel_for(a.n, row_grain(a.c), [&](int64_t lo, int64_t hi) {
    double l = 0, tw = 0;
    for (int64_t i = lo; i < hi; ++i) {
      if (a.target[i] == a.ignore_index) continue;
      int64_t t = a.target[i] - a.base;
      const T* r = x + i * a.c;
      T m = row_max(r, a.c);
      double lse = double(m) + std::log(double(row_exp_sum(r, a.c, m)));
      double w = weight_of<T>(a, t);
      l += w * (lse - double(r[t]));
      tw += w;
    }
    std::lock_guard<std::mutex> lock(mu);
    loss += l;
    total += tw;
  });
  a.sums[0] = loss;
  a.sums[1] = total;
}

// Row i: (softmax(x_i) - onehot(t_i)) * w[t_i] * scale / norm; ignored rows are zero.
template <class T> void ce_backward(const ClassLossArgs& a) {
  const T* x = static_cast<const T*>(a.input);
  T* g = static_cast<T*>(a.grad_input);
  const double k = grad_factor<T>(a);
  parallel_for(a.n, row_grain(a.c), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      T* gr = g + i * a.c;
      if (a.target[i] == a.ignore_index) {
        std::fill(gr, gr + a.c, T(0));
        continue;
      }
      int64_t t = a.target[i] - a.base;
      const T* r = x + i * a.c;
      T m = row_max(r, a.c);
      T s = row_exp_sum(r, a.c, m);
      double kw = k * weight_of<T>(a, t);
      row_softmax_scaled(gr, r, a.c, m, T(kw / double(s)));
      gr[t] = T(double(gr[t]) - kw);
    }
  });
}

ClassLossKernels nll_f32{&nll_forward<float>, &nll_backward<float>};
ClassLossKernels nll_f64{&nll_forward<double>, &nll_backward<double>};
ClassLossKernels ce_f32{&ce_forward<float>, &ce_backward<float>};
ClassLossKernels ce_f64{&ce_forward<double>, &ce_backward<double>};

TOCHA_REGISTER_KERNEL(nllLoss, cpu, DType::f32, &nll_f32);
TOCHA_REGISTER_KERNEL(nllLoss, cpu, DType::f64, &nll_f64);
TOCHA_REGISTER_KERNEL(crossEntropy, cpu, DType::f32, &ce_f32);
TOCHA_REGISTER_KERNEL(crossEntropy, cpu, DType::f64, &ce_f64);

}  // namespace
}  // namespace cpu
}  // namespace tocha
