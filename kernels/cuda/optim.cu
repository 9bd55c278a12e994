// CUDA kernels of the fused optimizer updates (contract: core/ops/optim_kernels.h): SGD (momentum,
// Nesterov, weight decay, per-element rates), Adam/AdamW (AMSGrad), AdaMax, RMSprop, Adagrad,
// Adadelta and Rprop, one grid-stride pass over the flat operands, with the same math, in the
// same order, as kernels/cpu/optim_sgd.cpp and optim_adaptive.cpp.
//
// Note [CUDA optimizer determinism]: this file is compiled with -fmad=false (kernels/CMakeLists.txt),
// the device counterpart of the CPU files' fp-contract(off) (Note [Deterministic optimizer
// updates]); sqrt and division are IEEE-rounded by nvcc's defaults. Each expression below is
// written exactly like its CPU twin, so a CUDA step gives the CPU's bits, not merely close values.
#include <cmath>
#include "core/kernel_registry.h"
#include "core/ops/optim_kernels.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"

namespace tocha {
namespace cuda {
namespace {

#define TOCHA_GRID_LOOP(i, n) \
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

template <class T> __device__ __forceinline__ T* operand(const OptimSpan& s, int k) { return static_cast<T*>(s.data[k]); }

// Launches kernel<<<...>>>(span, consts) on the device that owns the parameter.
template <class C, class K> void launch(const char* op, const OptimSpan& s, const C& k, K kernel) {
  if (s.n == 0) return;
  LaunchScope scope(device_of(s.data[0]));
  kernel<<<grid_for(s.n), kThreads, 0, scope.stream>>>(s, k);
  check_launch(op);
}

// ---- SGD -----------------------------------------------------------------------------------

template <class T> __global__ void __launch_bounds__(kThreads) sgd_kernel(OptimSpan s, SgdConsts k) {
  const T lr = T(k.lr), mom = T(k.momentum), damp1 = T(1 - k.dampening), wd = T(k.weight_decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *buf = operand<T>(s, 2);
  const T *g = operand<T>(s, 1), *lrs = operand<T>(s, 3), *wds = operand<T>(s, 4);
  TOCHA_GRID_LOOP(i, s.n) {
    T d = g[i];
    if (use_wd) d = d + wd * p[i];
    else if (wds) d = d + wds[i] * p[i];
    if (buf) {
      T b = k.first_step ? d : buf[i] * mom + damp1 * d;
      buf[i] = b;
      d = k.nesterov ? d + mom * b : b;
    }
    p[i] = p[i] - lr * (lrs ? lrs[i] * d : d);
  }
}

// ---- Adam / AdamW ----------------------------------------------------------------------------

template <class T> __global__ void __launch_bounds__(kThreads) adam_kernel(OptimSpan s, AdamConsts k) {
  const T step = T(k.step_size), b1 = T(k.beta1), b2 = T(k.beta2), c1 = T(1 - k.beta1), c2 = T(1 - k.beta2);
  const T eps = T(k.eps), ds = T(k.denom_scale), wd = T(k.weight_decay), decay = T(k.decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *m = operand<T>(s, 2), *v = operand<T>(s, 3), *vmax = operand<T>(s, 4);
  const T* g = operand<T>(s, 1);
  TOCHA_GRID_LOOP(i, s.n) {
    T gi = g[i];
    if (use_wd) gi = gi + wd * p[i];
    T mi = m[i] * b1 + c1 * gi;
    T vi = v[i] * b2 + c2 * gi * gi;
    m[i] = mi;
    v[i] = vi;
    if (vmax) {
      vi = vmax[i] > vi ? vmax[i] : vi;
      vmax[i] = vi;
    }
    T denom = sqrt(vi) * ds + eps;
    p[i] = p[i] * decay - step * mi / denom;
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) adamax_kernel(OptimSpan s, AdamaxConsts k) {
  const T step = T(k.step_size), b1 = T(k.beta1), b2 = T(k.beta2), c1 = T(1 - k.beta1), eps = T(k.eps);
  const T wd = T(k.weight_decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *m = operand<T>(s, 2), *u = operand<T>(s, 3);
  const T* g = operand<T>(s, 1);
  TOCHA_GRID_LOOP(i, s.n) {
    T gi = use_wd ? g[i] + wd * p[i] : g[i];
    T mi = m[i] * b1 + c1 * gi;
    T a = u[i] * b2, b = fabs(gi) + eps;
    T ui = a > b ? a : b;
    m[i] = mi;
    u[i] = ui;
    p[i] = p[i] - step * mi / ui;
  }
}

// ---- RMSprop, Adagrad, Adadelta --------------------------------------------------------------

template <class T> __global__ void __launch_bounds__(kThreads) rmsprop_kernel(OptimSpan s, RmspropConsts k) {
  const T lr = T(k.lr), a = T(k.alpha), a1 = T(1 - k.alpha), eps = T(k.eps), wd = T(k.weight_decay);
  const T mom = T(k.momentum);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *sq = operand<T>(s, 2), *ga = operand<T>(s, 3), *buf = operand<T>(s, 4);
  const T* g = operand<T>(s, 1);
  TOCHA_GRID_LOOP(i, s.n) {
    T gi = use_wd ? g[i] + wd * p[i] : g[i];
    T si = sq[i] * a + a1 * gi * gi;
    sq[i] = si;
    T avg;
    if (ga) {
      T gai = ga[i] * a + a1 * gi;
      ga[i] = gai;
      avg = sqrt(si - gai * gai) + eps;
    } else {
      avg = sqrt(si) + eps;
    }
    if (buf) {
      T bi = buf[i] * mom + gi / avg;
      buf[i] = bi;
      p[i] = p[i] - lr * bi;
    } else {
      p[i] = p[i] - lr * gi / avg;
    }
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) adagrad_kernel(OptimSpan s, AdagradConsts k) {
  const T lr = T(k.lr), eps = T(k.eps), wd = T(k.weight_decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *sum = operand<T>(s, 2);
  const T* g = operand<T>(s, 1);
  TOCHA_GRID_LOOP(i, s.n) {
    T gi = use_wd ? g[i] + wd * p[i] : g[i];
    T si = sum[i] + gi * gi;
    sum[i] = si;
    p[i] = p[i] - lr * gi / (sqrt(si) + eps);
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) adadelta_kernel(OptimSpan s, AdadeltaConsts k) {
  const T lr = T(k.lr), rho = T(k.rho), rho1 = T(1 - k.rho), eps = T(k.eps), wd = T(k.weight_decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *sq = operand<T>(s, 2), *acc = operand<T>(s, 3);
  const T* g = operand<T>(s, 1);
  TOCHA_GRID_LOOP(i, s.n) {
    T gi = use_wd ? g[i] + wd * p[i] : g[i];
    T si = sq[i] * rho + rho1 * gi * gi;
    sq[i] = si;
    T delta = sqrt(acc[i] + eps) / sqrt(si + eps) * gi;
    p[i] = p[i] - lr * delta;
    acc[i] = acc[i] * rho + rho1 * delta * delta;
  }
}

// ---- Rprop -----------------------------------------------------------------------------------

template <class T> __device__ __forceinline__ T sign_of(T x) { return T(x > T(0)) - T(x < T(0)); }

template <class T> __global__ void __launch_bounds__(kThreads) rprop_kernel(OptimSpan s, RpropConsts k) {
  const T up = T(k.etaplus), down = T(k.etaminus), lo = T(k.step_min), hi = T(k.step_max);
  T *p = operand<T>(s, 0), *prev = operand<T>(s, 2), *step = operand<T>(s, 3);
  const T* g = operand<T>(s, 1);
  TOCHA_GRID_LOOP(i, s.n) {
    T gi = g[i];
    T sg = sign_of(gi * prev[i]);
    T st = step[i] * (sg > T(0) ? up : (sg < T(0) ? down : T(1)));
    st = st > hi ? hi : st;
    st = st < lo ? lo : st;
    gi = sg < T(0) ? T(0) : gi;  // a sign change: skip this step, and forget the gradient
    p[i] = p[i] - sign_of(gi) * st;
    prev[i] = gi;
    step[i] = st;
  }
}

#undef TOCHA_GRID_LOOP

template <class T> void sgdStep_cuda(const OptimSpan& s, const SgdConsts& k) { launch("sgdStep", s, k, sgd_kernel<T>); }
template <class T> void adamStep_cuda(const OptimSpan& s, const AdamConsts& k) {
  launch("adamStep", s, k, adam_kernel<T>);
}
template <class T> void adamaxStep_cuda(const OptimSpan& s, const AdamaxConsts& k) {
  launch("adamaxStep", s, k, adamax_kernel<T>);
}
template <class T> void rmspropStep_cuda(const OptimSpan& s, const RmspropConsts& k) {
  launch("rmspropStep", s, k, rmsprop_kernel<T>);
}
template <class T> void adagradStep_cuda(const OptimSpan& s, const AdagradConsts& k) {
  launch("adagradStep", s, k, adagrad_kernel<T>);
}
template <class T> void adadeltaStep_cuda(const OptimSpan& s, const AdadeltaConsts& k) {
  launch("adadeltaStep", s, k, adadelta_kernel<T>);
}
template <class T> void rpropStep_cuda(const OptimSpan& s, const RpropConsts& k) {
  launch("rpropStep", s, k, rprop_kernel<T>);
}

// f32 and f64 only, like the CPU: f16/bf16 parameters are staged through f32 by the front-end
// (Note [Optimizer operands] in core/ops/optim.cpp).
#define REG(op)                                                                  \
  TOCHA_REGISTER_KERNEL(op, cuda, DType::f32, (&op##_cuda<float>));              \
  TOCHA_REGISTER_KERNEL(op, cuda, DType::f64, (&op##_cuda<double>));
REG(sgdStep)
REG(adamStep)
REG(adamaxStep)
REG(rmspropStep)
REG(adagradStep)
REG(adadeltaStep)
REG(rpropStep)
#undef REG

}  // namespace
}  // namespace cuda
}  // namespace tocha
