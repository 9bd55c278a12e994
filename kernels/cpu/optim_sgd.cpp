// CPU kernels of the fused SGD and Rprop updates (contract: core/ops/optim_kernels.h). Each loop
// is one pass over the parameter, gradient and state, in the parameter's dtype like Torch7's
// tensor ops, with the rare per-element learning rates/weight decays on a plain scalar loop.
#include "core/kernel_registry.h"
#include "kernels/cpu/optim_loops.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> struct SgdT {
  T lr, mom, damp1, wd;
  bool nesterov, first;
};

// kWd: add weight_decay*param to the gradient (skipped at 0 so an infinite parameter does not
// turn into NaN through 0*inf); kMom: momentum buffer, kFirst: its first step (the buffer is
// unread), kNesterov. Every choice is a template flag: with c.first and c.nesterov tested inside
// the loop GCC left the momentum loop scalar, 3.7x the time of plain SGD over 20 MB of parameters.
template <class T, bool kWd, bool kMom, bool kFirst, bool kNesterov>
TOCHA_SIMD_CLONES void sgd_loop(int64_t n, T* __restrict p, const T* __restrict g, T* __restrict buf, SgdT<T> c) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T d = g[i];
    if constexpr (kWd) d = d + c.wd * p[i];
    if constexpr (kMom) {
      T b;
      if constexpr (kFirst) b = d;
      else b = buf[i] * c.mom + c.damp1 * d;
      buf[i] = b;
      if constexpr (kNesterov) d = d + c.mom * b;
      else d = b;
    }
    p[i] = p[i] - c.lr * d;
  }
}

template <class T, bool kWd>
void sgd_contiguous(int64_t n, T* p, const T* g, T* buf, const SgdT<T>& c) {
  if (!buf) sgd_loop<T, kWd, false, false, false>(n, p, g, buf, c);
  else if (c.first && c.nesterov) sgd_loop<T, kWd, true, true, true>(n, p, g, buf, c);
  else if (c.first) sgd_loop<T, kWd, true, true, false>(n, p, g, buf, c);
  else if (c.nesterov) sgd_loop<T, kWd, true, false, true>(n, p, g, buf, c);
  else sgd_loop<T, kWd, true, false, false>(n, p, g, buf, c);
}

// Torch7's learningRates / weightDecays tensors (either may be null).
template <class T>
void sgd_per_element(int64_t n, T* p, const T* g, T* buf, const T* lrs, const T* wds, SgdT<T> c) {
  for (int64_t i = 0; i < n; ++i) {
    T d = g[i];
    if (c.wd != 0) d = d + c.wd * p[i];
    else if (wds) d = d + wds[i] * p[i];
    if (buf) {
      T b = c.first ? d : buf[i] * c.mom + c.damp1 * d;
      buf[i] = b;
      d = c.nesterov ? d + c.mom * b : b;
    }
    p[i] = p[i] - c.lr * (lrs ? lrs[i] * d : d);
  }
}

template <class T> void sgdStep_kernel(const OptimSpan& s, const SgdConsts& k) {
  SgdT<T> c{T(k.lr), T(k.momentum), T(1 - k.dampening), T(k.weight_decay), k.nesterov, k.first_step};
  const bool wd = k.weight_decay != 0, mom = s.data[2] != nullptr;
  const bool per_element = s.data[3] || (s.data[4] && !wd);
  optim_for(s, [&](int64_t b, int64_t e) {
    T* p = operand<T>(s, 0, b);
    const T* g = operand<T>(s, 1, b);
    T* buf = operand<T>(s, 2, b);
    int64_t n = e - b;
    if (per_element) sgd_per_element<T>(n, p, g, buf, operand<T>(s, 3, b), operand<T>(s, 4, b), c);
    else if (wd) sgd_contiguous<T, true>(n, p, g, mom ? buf : nullptr, c);
    else sgd_contiguous<T, false>(n, p, g, mom ? buf : nullptr, c);
  });
}

template <class T> T sign_of(T x) { return T(x > T(0)) - T(x < T(0)); }

template <class T>
TOCHA_SIMD_CLONES void rprop_loop(int64_t n, T* __restrict p, const T* __restrict g, T* __restrict prev,
                                  T* __restrict step, T up, T down, T lo, T hi) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i];
    T s = sign_of(gi * prev[i]);
    T st = step[i] * (s > T(0) ? up : (s < T(0) ? down : T(1)));
    st = st > hi ? hi : st;
    st = st < lo ? lo : st;
    gi = s < T(0) ? T(0) : gi;  // a sign change: skip this step, and forget the gradient
    p[i] = p[i] - sign_of(gi) * st;
    prev[i] = gi;
    step[i] = st;
  }
}

template <class T> void rpropStep_kernel(const OptimSpan& s, const RpropConsts& k) {
  optim_for(s, [&](int64_t b, int64_t e) {
    rprop_loop<T>(e - b, operand<T>(s, 0, b), operand<T>(s, 1, b), operand<T>(s, 2, b), operand<T>(s, 3, b),
                  T(k.etaplus), T(k.etaminus), T(k.step_min), T(k.step_max));
  });
}

}  // namespace

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
REG(sgdStep, float)
REG(sgdStep, double)
REG(rpropStep, float)
REG(rpropStep, double)
#undef REG

}  // namespace cpu
}  // namespace tocha
