// CPU kernels of layer normalization (core/ops/norm_kernels.h): x is M rows of K values;
// parallel_for splits the rows. Row statistics come from one pass of shifted sums in double; the
// weight and bias gradients (sums over rows) accumulate per block of rows, then per column.
#include <algorithm>
#include <cmath>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/norm_kernels.h"
#include "kernels/cpu/norm_loops.h"

namespace tocha {
namespace cpu {
namespace {

// y = (x - m) * s * w + b, with w and b optional (1 and 0).
template <class T>
TOCHA_SIMD_CLONES void normalize_row(T* y, const T* x, int64_t n, T m, T s, const T* w, const T* b) {
  if (w && b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) * s * w[i] + b[i];
  } else if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) * s * w[i];
  } else if (b) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) * s + b[i];
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - m) * s;
  }
}

// sum(gy) and sum(gy * (x - m)) with gy = g * w (w optional).
template <class T>
TOCHA_SIMD_CLONES void row_sums(const T* g, const T* x, const T* w, int64_t n, double m, double* s1, double* s2) {
  double a = 0, b = 0;
  if (w) {
#pragma omp simd reduction(+ : a, b)
    for (int64_t i = 0; i < n; ++i) {
      double gy = double(g[i]) * double(w[i]);
      a += gy;
      b += gy * (double(x[i]) - m);
    }
  } else {
#pragma omp simd reduction(+ : a, b)
    for (int64_t i = 0; i < n; ++i) {
      double gy = double(g[i]);
      a += gy;
      b += gy * (double(x[i]) - m);
    }
  }
  *s1 = a;
  *s2 = b;
}

// gi = (g * w - k1 - (x - m) * k2) * is.
template <class T>
TOCHA_SIMD_CLONES void grad_row(T* gi, const T* g, const T* x, const T* w, int64_t n, T m, T k1, T k2, T is) {
  if (w) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) gi[i] = (g[i] * w[i] - k1 - (x[i] - m) * k2) * is;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) gi[i] = (g[i] - k1 - (x[i] - m) * k2) * is;
  }
}

// pw += g * (x - m) * is and pb += g over one row.
template <class T>
TOCHA_SIMD_CLONES void param_row(double* pw, double* pb, const T* g, const T* x, int64_t n, double m, double is) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    double gv = double(g[i]);
    pw[i] += gv * (double(x[i]) - m) * is;
    pb[i] += gv;
  }
}

template <class T> void layer_norm_kernel(const LayerNormArgs& a) {
  const int64_t M = a.m, K = a.k;
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  const T* w = static_cast<const T*>(a.weight);
  const T* b = static_cast<const T*>(a.bias);
  T* sm = static_cast<T*>(a.save_mean);
  T* si = static_cast<T*>(a.save_invstd);
  parallel_for(M, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, K)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const T* p = x + r * K;
      double mu = 0, var = 0;
      if (K > 0) {
        double s = 0, ss = 0;
        shifted_sums(p, K, double(p[0]), &s, &ss);
        moments(double(p[0]), s, ss, K, &mu, &var);
      }
      double is = 1 / std::sqrt(var + a.eps);
      sm[r] = T(mu);
      si[r] = T(is);
      normalize_row(y + r * K, p, K, T(mu), T(is), w, b);
    }
  });
}

template <class T> void layer_norm_backward_kernel(const LayerNormBackwardArgs& a) {
  const int64_t M = a.m, K = a.k;
  const T* g = static_cast<const T*>(a.grad_out);
  const T* x = static_cast<const T*>(a.x);
  const T* w = static_cast<const T*>(a.weight);
  const T* mean = static_cast<const T*>(a.mean);
  const T* invstd = static_cast<const T*>(a.invstd);
  T* gi = static_cast<T*>(a.grad_input);
  T* gw = static_cast<T*>(a.grad_weight);
  T* gb = static_cast<T*>(a.grad_bias);
  const bool params = gw || gb;
  if (M == 0 || K == 0) return;
  // Rows are split in blocks; each block keeps its own column sums for the parameter gradients.
  const int64_t blocks = params ? std::min<int64_t>(M, 4 * int64_t(get_num_threads())) : M;
  const int64_t rows = (M + blocks - 1) / blocks;
  std::vector<double> pw(params ? size_t(blocks * K) : 0, 0.0), pb(params ? size_t(blocks * K) : 0, 0.0);
  parallel_for(blocks, params ? 1 : std::max<int64_t>(1, kGrainSize / K), [&](int64_t b0, int64_t b1) {
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t r0 = params ? blk * rows : blk, r1 = params ? std::min(M, r0 + rows) : blk + 1;
      for (int64_t r = r0; r < r1; ++r) {
        const T* gr = g + r * K;
        const T* xr = x + r * K;
        const double m = double(mean[r]), is = double(invstd[r]);
        if (gi) {
          double s1, s2;
          row_sums(gr, xr, w, K, m, &s1, &s2);
          grad_row(gi + r * K, gr, xr, w, K, T(m), T(s1 / double(K)), T(s2 / double(K) * is * is), T(is));
        }
        if (params) param_row(&pw[size_t(blk * K)], &pb[size_t(blk * K)], gr, xr, K, m, is);
      }
    }
  });
  if (!params) return;
  parallel_for(K, std::max<int64_t>(1, kGrainSize / blocks), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double sw = 0, sb = 0;
      for (int64_t blk = 0; blk < blocks; ++blk) {
        sw += pw[size_t(blk * K + c)];
        sb += pb[size_t(blk * K + c)];
      }
      if (gw) gw[c] = T(double(gw[c]) + a.scale * sw);
      if (gb) gb[c] = T(double(gb[c]) + a.scale * sb);
    }
  });
}

TOCHA_REGISTER_KERNEL(layerNorm, cpu, DType::f32, layer_norm_kernel<float>);
TOCHA_REGISTER_KERNEL(layerNorm, cpu, DType::f64, layer_norm_kernel<double>);
TOCHA_REGISTER_KERNEL(layerNormBackward, cpu, DType::f32, layer_norm_backward_kernel<float>);
TOCHA_REGISTER_KERNEL(layerNormBackward, cpu, DType::f64, layer_norm_backward_kernel<double>);

}  // namespace
}  // namespace cpu
}  // namespace tocha
