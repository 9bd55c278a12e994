// CPU kernels of the fused adaptive-rate updates: Adam/AdamW (AMSGrad), AdaMax, RMSprop,
// Adagrad, Adadelta (contract: core/ops/optim_kernels.h). One pass over the parameter, gradient
// and state per step, computed in the parameter's dtype like Torch7's tensor ops.
#include <cmath>
#include "core/kernel_registry.h"
#include "kernels/cpu/optim_loops.h"

namespace tocha {
namespace cpu {
namespace {

// kWd: L2 weight decay added to the gradient (skipped at 0: 0*inf would be NaN). A template flag in
// every loop: tested inside, it left the loops scalar on AVX2 (GCC saw control flow; AVX-512's
// masked loads hid it).
template <class T, bool kWd, bool kAms>
TOCHA_SIMD_CLONES void adam_loop(int64_t n, T* __restrict p, const T* __restrict g, T* __restrict m,
                                 T* __restrict v, T* __restrict vmax, const AdamConsts& k) {
  const T step = T(k.step_size), b1 = T(k.beta1), b2 = T(k.beta2), c1 = T(1 - k.beta1), c2 = T(1 - k.beta2);
  const T eps = T(k.eps), ds = T(k.denom_scale), wd = T(k.weight_decay), decay = T(k.decay);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i];
    if constexpr (kWd) gi = gi + wd * p[i];
    T mi = m[i] * b1 + c1 * gi;
    T vi = v[i] * b2 + c2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    if constexpr (kAms) {
      vi = vmax[i] > vi ? vmax[i] : vi;
      vmax[i] = vi;
    }
    T denom = std::sqrt(vi) * ds + eps;
    p[i] = p[i] * decay - step * mi / denom;
  }
}

template <class T> void adamStep_kernel(const OptimSpan& s, const AdamConsts& k) {
  const bool wd = k.weight_decay != 0, ams = s.data[4] != nullptr;
  optim_for(s, [&](int64_t b, int64_t e) {
    T *p = operand<T>(s, 0, b), *m = operand<T>(s, 2, b), *v = operand<T>(s, 3, b), *vm = operand<T>(s, 4, b);
    const T* g = operand<T>(s, 1, b);
    if (wd && ams) adam_loop<T, true, true>(e - b, p, g, m, v, vm, k);
    else if (wd) adam_loop<T, true, false>(e - b, p, g, m, v, vm, k);
    else if (ams) adam_loop<T, false, true>(e - b, p, g, m, v, vm, k);
    else adam_loop<T, false, false>(e - b, p, g, m, v, vm, k);
  });
}

template <class T, bool kWd>
TOCHA_SIMD_CLONES void adamax_loop(int64_t n, T* __restrict p, const T* __restrict g, T* __restrict m,
                                   T* __restrict u, const AdamaxConsts& k) {
  const T step = T(k.step_size), b1 = T(k.beta1), b2 = T(k.beta2), c1 = T(1 - k.beta1), eps = T(k.eps);
  const T wd = T(k.weight_decay);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i];
    if constexpr (kWd) gi = gi + wd * p[i];
    T mi = m[i] * b1 + c1 * gi;
    T a = u[i] * b2, b = std::fabs(gi) + eps;
    T ui = a > b ? a : b;
    m[i] = mi;
    u[i] = ui;
    p[i] = p[i] - step * mi / ui;
  }
}

template <class T> void adamaxStep_kernel(const OptimSpan& s, const AdamaxConsts& k) {
  optim_for(s, [&](int64_t b, int64_t e) {
    auto loop = k.weight_decay != 0 ? &adamax_loop<T, true> : &adamax_loop<T, false>;
    loop(e - b, operand<T>(s, 0, b), operand<T>(s, 1, b), operand<T>(s, 2, b), operand<T>(s, 3, b), k);
  });
}

template <class T, bool kWd, bool kCentered, bool kMom>
TOCHA_SIMD_CLONES void rmsprop_loop(int64_t n, T* __restrict p, const T* __restrict g, T* __restrict sq,
                                    T* __restrict ga, T* __restrict buf, const RmspropConsts& k) {
  const T lr = T(k.lr), a = T(k.alpha), a1 = T(1 - k.alpha), eps = T(k.eps), wd = T(k.weight_decay);
  const T mom = T(k.momentum);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i];
    if constexpr (kWd) gi = gi + wd * p[i];
    T si = sq[i] * a + a1 * gi * gi;
    sq[i] = si;
    T avg;
    if constexpr (kCentered) {
      T gai = ga[i] * a + a1 * gi;
      ga[i] = gai;
      avg = std::sqrt(si - gai * gai) + eps;
    } else {
      avg = std::sqrt(si) + eps;
    }
    if constexpr (kMom) {
      T bi = buf[i] * mom + gi / avg;
      buf[i] = bi;
      p[i] = p[i] - lr * bi;
    } else {
      p[i] = p[i] - lr * gi / avg;
    }
  }
}

template <class T, bool kWd>
void rmsprop_for(bool centered, bool mom, int64_t n, T* p, const T* g, T* sq, T* ga, T* buf, const RmspropConsts& k) {
  if (centered && mom) rmsprop_loop<T, kWd, true, true>(n, p, g, sq, ga, buf, k);
  else if (centered) rmsprop_loop<T, kWd, true, false>(n, p, g, sq, ga, buf, k);
  else if (mom) rmsprop_loop<T, kWd, false, true>(n, p, g, sq, ga, buf, k);
  else rmsprop_loop<T, kWd, false, false>(n, p, g, sq, ga, buf, k);
}

template <class T> void rmspropStep_kernel(const OptimSpan& s, const RmspropConsts& k) {
  const bool centered = s.data[3] != nullptr, mom = s.data[4] != nullptr;
  optim_for(s, [&](int64_t b, int64_t e) {
    T *p = operand<T>(s, 0, b), *sq = operand<T>(s, 2, b), *ga = operand<T>(s, 3, b), *buf = operand<T>(s, 4, b);
    const T* g = operand<T>(s, 1, b);
    if (k.weight_decay != 0) rmsprop_for<T, true>(centered, mom, e - b, p, g, sq, ga, buf, k);
    else rmsprop_for<T, false>(centered, mom, e - b, p, g, sq, ga, buf, k);
  });
}

template <class T, bool kWd>
TOCHA_SIMD_CLONES void adagrad_loop(int64_t n, T* __restrict p, const T* __restrict g, T* __restrict sum,
                                    const AdagradConsts& k) {
  const T lr = T(k.lr), eps = T(k.eps), wd = T(k.weight_decay);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i];
    if constexpr (kWd) gi = gi + wd * p[i];
    T si = sum[i] + gi * gi;
    sum[i] = si;
    p[i] = p[i] - lr * gi / (std::sqrt(si) + eps);
  }
}

template <class T> void adagradStep_kernel(const OptimSpan& s, const AdagradConsts& k) {
  optim_for(s, [&](int64_t b, int64_t e) {
    auto loop = k.weight_decay != 0 ? &adagrad_loop<T, true> : &adagrad_loop<T, false>;
    loop(e - b, operand<T>(s, 0, b), operand<T>(s, 1, b), operand<T>(s, 2, b), k);
  });
}

template <class T, bool kWd>
TOCHA_SIMD_CLONES void adadelta_loop(int64_t n, T* __restrict p, const T* __restrict g, T* __restrict sq,
                                     T* __restrict acc, const AdadeltaConsts& k) {
  const T lr = T(k.lr), rho = T(k.rho), rho1 = T(1 - k.rho), eps = T(k.eps), wd = T(k.weight_decay);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i];
    if constexpr (kWd) gi = gi + wd * p[i];
    T si = sq[i] * rho + rho1 * gi * gi;
    sq[i] = si;
    T delta = std::sqrt(acc[i] + eps) / std::sqrt(si + eps) * gi;
    p[i] = p[i] - lr * delta;
    acc[i] = acc[i] * rho + rho1 * delta * delta;
  }
}

template <class T> void adadeltaStep_kernel(const OptimSpan& s, const AdadeltaConsts& k) {
  optim_for(s, [&](int64_t b, int64_t e) {
    auto loop = k.weight_decay != 0 ? &adadelta_loop<T, true> : &adadelta_loop<T, false>;
    loop(e - b, operand<T>(s, 0, b), operand<T>(s, 1, b), operand<T>(s, 2, b), operand<T>(s, 3, b), k);
  });
}

}  // namespace

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
REG(adamStep, float)
REG(adamStep, double)
REG(adamaxStep, float)
REG(adamaxStep, double)
REG(rmspropStep, float)
REG(rmspropStep, double)
REG(adagradStep, float)
REG(adagradStep, double)
REG(adadeltaStep, float)
REG(adadeltaStep, double)
#undef REG

}  // namespace cpu
}  // namespace tocha
