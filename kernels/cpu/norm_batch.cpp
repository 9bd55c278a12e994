// CPU kernels of batch normalization (core/ops/norm_kernels.h): x is N x C x L; parallel_for
// splits the channels. Statistics accumulate in double in one pass over shifted values (Note
// [Shifted sums] in norm_loops.h); N x C inputs (L == 1) run row by row, vectorized over channels.
#include <algorithm>
#include <cmath>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/norm_kernels.h"
#include "kernels/cpu/norm_loops.h"

namespace tocha {
namespace cpu {
namespace {

// Shifted sums across channels: one row of C values adds into per-channel sums.
template <class T>
TOCHA_SIMD_CLONES void shifted_sums_row(const T* p, int64_t n, const double* k, double* s, double* ss) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    double d = double(p[j]) - k[j];
    s[j] += d;
    ss[j] += d * d;
  }
}

template <class T> TOCHA_SIMD_CLONES void normalize(T* y, const T* x, int64_t n, T m, T k, T b) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) * k + b;
}
template <class T>
TOCHA_SIMD_CLONES void normalize_row(T* y, const T* x, int64_t n, const T* m, const T* k, const T* b) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - m[j]) * k[j] + b[j];
}

// sum(g) and sum(g * (x - m)).
template <class T>
TOCHA_SIMD_CLONES void grad_sums(const T* g, const T* x, int64_t n, double m, double* sg, double* sgx) {
  double a = 0, b = 0;
#pragma omp simd reduction(+ : a, b)
  for (int64_t i = 0; i < n; ++i) {
    double gv = double(g[i]);
    a += gv;
    b += gv * (double(x[i]) - m);
  }
  *sg += a;
  *sgx += b;
}
template <class T>
TOCHA_SIMD_CLONES void grad_sums_row(const T* g, const T* x, int64_t n, const double* m, double* sg, double* sgx) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    double gv = double(g[j]);
    sg[j] += gv;
    sgx[j] += gv * (double(x[j]) - m[j]);
  }
}

// gi = ((g - k1) - (x - m) * k2) * k3: training (k1 = mean(g), k2 = invstd^2 * mean(g * (x - m)),
// k3 = invstd * w); evaluation uses k1 = k2 = 0.
template <class T>
TOCHA_SIMD_CLONES void grad_input(T* gi, const T* g, const T* x, int64_t n, T m, T k1, T k2, T k3) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) gi[i] = ((g[i] - k1) - (x[i] - m) * k2) * k3;
}
template <class T>
TOCHA_SIMD_CLONES void grad_input_row(T* gi, const T* g, const T* x, int64_t n, const T* m, const T* k1,
                                      const T* k2, const T* k3) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) gi[j] = ((g[j] - k1[j]) - (x[j] - m[j]) * k2[j]) * k3[j];
}

// Channels per task: enough values per task to be worth a thread.
int64_t channel_grain(int64_t values_per_channel) {
  return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, values_per_channel));
}

template <class T> void batch_norm_kernel(const BatchNormArgs& a) {
  const int64_t N = a.n, C = a.c, L = a.l, M = N * L;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const T* w = static_cast<const T*>(a.weight);
  const T* b = static_cast<const T*>(a.bias);
  T* rm = static_cast<T*>(a.running_mean);
  T* rv = static_cast<T*>(a.running_var);
  T* sm = static_cast<T*>(a.save_mean);
  T* si = static_cast<T*>(a.save_invstd);
  parallel_for(C, channel_grain(M), [&](int64_t c0, int64_t c1) {
    const int64_t nc = c1 - c0;
    std::vector<double> shift(nc), s(nc, 0.0), ss(nc, 0.0);
    if (a.training && M > 0) {
      for (int64_t j = 0; j < nc; ++j) shift[j] = double(x[(c0 + j) * L]);
      if (L == 1) {
        for (int64_t n = 0; n < N; ++n) shifted_sums_row(x + n * C + c0, nc, shift.data(), s.data(), ss.data());
      } else {
        for (int64_t j = 0; j < nc; ++j)
          for (int64_t n = 0; n < N; ++n) shifted_sums(x + (n * C + c0 + j) * L, L, shift[j], &s[j], &ss[j]);
      }
    }
    std::vector<T> mean(nc), scale(nc), offset(nc);
    for (int64_t j = 0; j < nc; ++j) {
      const int64_t c = c0 + j;
      double mu, var;
      if (a.training) {
        moments(shift[j], s[j], ss[j], M, &mu, &var);
        if (rm) {
          double unbiased = M > 1 ? var * double(M) / double(M - 1) : var;
          rm[c] = T((1 - a.momentum) * double(rm[c]) + a.momentum * mu);
          rv[c] = T((1 - a.momentum) * double(rv[c]) + a.momentum * unbiased);
        }
      } else {
        mu = double(rm[c]);
        var = double(rv[c]);
      }
      double invstd = 1 / std::sqrt(var + a.eps);
      sm[c] = T(mu);
      si[c] = T(invstd);
      mean[j] = T(mu);
      scale[j] = T(invstd * (w ? double(w[c]) : 1.0));
      offset[j] = b ? b[c] : T(0);
    }
    if (L == 1) {
      for (int64_t n = 0; n < N; ++n)
        normalize_row(y + n * C + c0, x + n * C + c0, nc, mean.data(), scale.data(), offset.data());
    } else {
      for (int64_t j = 0; j < nc; ++j)
        for (int64_t n = 0; n < N; ++n) {
          int64_t o = (n * C + c0 + j) * L;
          normalize(y + o, x + o, L, mean[j], scale[j], offset[j]);
        }
    }
  });
}

template <class T> void batch_norm_backward_kernel(const BatchNormBackwardArgs& a) {
  const int64_t N = a.n, C = a.c, L = a.l, M = N * L;
  const T* g = static_cast<const T*>(a.grad_out);
  const T* x = static_cast<const T*>(a.x);
  const T* w = static_cast<const T*>(a.weight);
  const T* mean = static_cast<const T*>(a.mean);
  const T* invstd = static_cast<const T*>(a.invstd);
  T* gi = static_cast<T*>(a.grad_input);
  T* gw = static_cast<T*>(a.grad_weight);
  T* gb = static_cast<T*>(a.grad_bias);
  // The sums are needed for the parameter gradients, and for the input gradient in training.
  const bool sums = gw || gb || (gi && a.training);
  parallel_for(C, channel_grain(M), [&](int64_t c0, int64_t c1) {
    const int64_t nc = c1 - c0;
    std::vector<double> m(nc), sg(nc, 0.0), sgx(nc, 0.0);
    for (int64_t j = 0; j < nc; ++j) m[j] = double(mean[c0 + j]);
    if (sums) {
      if (L == 1) {
        for (int64_t n = 0; n < N; ++n)
          grad_sums_row(g + n * C + c0, x + n * C + c0, nc, m.data(), sg.data(), sgx.data());
      } else {
        for (int64_t j = 0; j < nc; ++j)
          for (int64_t n = 0; n < N; ++n) {
            int64_t o = (n * C + c0 + j) * L;
            grad_sums(g + o, x + o, L, m[j], &sg[j], &sgx[j]);
          }
      }
    }
    for (int64_t j = 0; j < nc; ++j) {
      const int64_t c = c0 + j;
      if (gw) gw[c] = T(double(gw[c]) + a.scale * sgx[j] * double(invstd[c]));
      if (gb) gb[c] = T(double(gb[c]) + a.scale * sg[j]);
    }
    if (!gi) return;
    std::vector<T> mt(nc), k1(nc), k2(nc), k3(nc);
    for (int64_t j = 0; j < nc; ++j) {
      const int64_t c = c0 + j;
      double is = double(invstd[c]);
      mt[j] = mean[c];
      k1[j] = a.training ? T(sg[j] / double(M)) : T(0);
      k2[j] = a.training ? T(sgx[j] / double(M) * is * is) : T(0);
      k3[j] = T(is * (w ? double(w[c]) : 1.0));
    }
    if (L == 1) {
      for (int64_t n = 0; n < N; ++n) {
        int64_t o = n * C + c0;
        grad_input_row(gi + o, g + o, x + o, nc, mt.data(), k1.data(), k2.data(), k3.data());
      }
    } else {
      for (int64_t j = 0; j < nc; ++j)
        for (int64_t n = 0; n < N; ++n) {
          int64_t o = (n * C + c0 + j) * L;
          grad_input(gi + o, g + o, x + o, L, mt[j], k1[j], k2[j], k3[j]);
        }
    }
  });
}

TOCHA_REGISTER_KERNEL(batchNorm, cpu, DType::f32, batch_norm_kernel<float>);
TOCHA_REGISTER_KERNEL(batchNorm, cpu, DType::f64, batch_norm_kernel<double>);
TOCHA_REGISTER_KERNEL(batchNormBackward, cpu, DType::f32, batch_norm_backward_kernel<float>);
TOCHA_REGISTER_KERNEL(batchNormBackward, cpu, DType::f64, batch_norm_backward_kernel<double>);

}  // namespace
}  // namespace cpu
}  // namespace tocha
