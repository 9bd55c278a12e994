// CUDA kernels of the fused optimizer updates (contract: core/ops/optim_kernels.h): SGD (momentum,
// Nesterov, weight decay, per-element rates), Adam/AdamW (AMSGrad), AdaMax, RMSprop, Adagrad,
// Adadelta and Rprop, one pass over the flat operands of one update (grid-stride) or of a list of
// updates (Note [Multi-tensor optimizer steps]), with the same math, in the same order, as
// kernels/cpu/optim_sgd.cpp and optim_adaptive.cpp.
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

template <class T> __device__ __forceinline__ T* operand(const OptimSpan& s, int k) { return static_cast<T*>(s.data[k]); }

// What one block of a launch updates: a span, its constants and the block's elements of it,
// visited as for (i = first; i < end; i += step).
template <class C> struct BlockWork {
  const OptimSpan* s;
  const C* k;
  int64_t first, end, step;
};

// One update: the whole grid strides over its span.
template <class C> struct OneUpdate {
  OptimSpan s;
  C k;
  __device__ BlockWork<C> work() const {
    return {&s, &k, int64_t(blockIdx.x) * blockDim.x + threadIdx.x, s.n, int64_t(gridDim.x) * blockDim.x};
  }
};

// Several updates (Note [Multi-tensor optimizer steps], core/ops/optim_batch.cpp): block b works on
// chunk b - first_block[j] (kListChunk elements) of span j, where first_block[j] <= b < first_block[j + 1].
constexpr int64_t kListChunk = int64_t(kThreads) * 8;
template <class C> struct UpdateList {
  OptimSpanList<C> l;
  int64_t first_block[kMaxOptimList + 1];
  __device__ BlockWork<C> work() const {
    const int64_t b = blockIdx.x;
    int j = 0;
    while (j + 1 < l.count && b >= first_block[j + 1]) ++j;
    const int64_t begin = (b - first_block[j]) * kListChunk;
    const int64_t end = begin + kListChunk < l.spans[j].n ? begin + kListChunk : l.spans[j].n;
    return {&l.spans[j], &l.consts[j], begin + threadIdx.x, end, int64_t(blockDim.x)};
  }
};

// The loop over a block's elements; the body is the same for one update and for a list.
#define TOCHA_UPDATE_LOOP(i, w) for (int64_t i = (w).first; i < (w).end; i += (w).step)

// Launches kernel on the device that owns the parameter, for one update.
template <class C, class K> void launch(const char* op, const OptimSpan& s, const C& k, K kernel) {
  if (s.n == 0) return;
  LaunchScope scope(device_of(s.data[0]));
  kernel<<<grid_for(s.n), kThreads, 0, scope.stream>>>(OneUpdate<C>{s, k});
  check_launch(op);
}

// The same for a list: one block per kListChunk elements of each span.
template <class C, class K> void launch_list(const char* op, const OptimSpanList<C>& l, K kernel) {
  UpdateList<C> u;
  u.l = l;
  int64_t blocks = 0;
  for (int j = 0; j < l.count; ++j) {
    u.first_block[j] = blocks;
    blocks += (l.spans[j].n + kListChunk - 1) / kListChunk;
  }
  u.first_block[l.count] = blocks;
  if (blocks == 0) return;
  LaunchScope scope(device_of(l.spans[0].data[0]));
  kernel<<<unsigned(blocks), kThreads, 0, scope.stream>>>(u);
  check_launch(op);
}

// ---- SGD -----------------------------------------------------------------------------------

template <class T, class U> __global__ void __launch_bounds__(kThreads) sgd_kernel(const __grid_constant__ U updates) {
  const BlockWork<SgdConsts> w = updates.work();
  const OptimSpan& s = *w.s;
  const SgdConsts& k = *w.k;
  const T lr = T(k.lr), mom = T(k.momentum), damp1 = T(1 - k.dampening), wd = T(k.weight_decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *buf = operand<T>(s, 2);
  const T *g = operand<T>(s, 1), *lrs = operand<T>(s, 3), *wds = operand<T>(s, 4);
  TOCHA_UPDATE_LOOP(i, w) {
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

template <class T, class U> __global__ void __launch_bounds__(kThreads) adam_kernel(const __grid_constant__ U updates) {
  const BlockWork<AdamConsts> w = updates.work();
  const OptimSpan& s = *w.s;
  const AdamConsts& k = *w.k;
  const T step = T(k.step_size), b1 = T(k.beta1), b2 = T(k.beta2), c1 = T(1 - k.beta1), c2 = T(1 - k.beta2);
  const T eps = T(k.eps), ds = T(k.denom_scale), wd = T(k.weight_decay), decay = T(k.decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *m = operand<T>(s, 2), *v = operand<T>(s, 3), *vmax = operand<T>(s, 4);
  const T* g = operand<T>(s, 1);
  TOCHA_UPDATE_LOOP(i, w) {
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

template <class T, class U> __global__ void __launch_bounds__(kThreads) adamax_kernel(const __grid_constant__ U updates) {
  const BlockWork<AdamaxConsts> w = updates.work();
  const OptimSpan& s = *w.s;
  const AdamaxConsts& k = *w.k;
  const T step = T(k.step_size), b1 = T(k.beta1), b2 = T(k.beta2), c1 = T(1 - k.beta1), eps = T(k.eps);
  const T wd = T(k.weight_decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *m = operand<T>(s, 2), *u = operand<T>(s, 3);
  const T* g = operand<T>(s, 1);
  TOCHA_UPDATE_LOOP(i, w) {
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

template <class T, class U> __global__ void __launch_bounds__(kThreads) rmsprop_kernel(const __grid_constant__ U updates) {
  const BlockWork<RmspropConsts> w = updates.work();
  const OptimSpan& s = *w.s;
  const RmspropConsts& k = *w.k;
  const T lr = T(k.lr), a = T(k.alpha), a1 = T(1 - k.alpha), eps = T(k.eps), wd = T(k.weight_decay);
  const T mom = T(k.momentum);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *sq = operand<T>(s, 2), *ga = operand<T>(s, 3), *buf = operand<T>(s, 4);
  const T* g = operand<T>(s, 1);
  TOCHA_UPDATE_LOOP(i, w) {
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

template <class T, class U> __global__ void __launch_bounds__(kThreads) adagrad_kernel(const __grid_constant__ U updates) {
  const BlockWork<AdagradConsts> w = updates.work();
  const OptimSpan& s = *w.s;
  const AdagradConsts& k = *w.k;
  const T lr = T(k.lr), eps = T(k.eps), wd = T(k.weight_decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *sum = operand<T>(s, 2);
  const T* g = operand<T>(s, 1);
  TOCHA_UPDATE_LOOP(i, w) {
    T gi = use_wd ? g[i] + wd * p[i] : g[i];
    T si = sum[i] + gi * gi;
    sum[i] = si;
    p[i] = p[i] - lr * gi / (sqrt(si) + eps);
  }
}

template <class T, class U> __global__ void __launch_bounds__(kThreads) adadelta_kernel(const __grid_constant__ U updates) {
  const BlockWork<AdadeltaConsts> w = updates.work();
  const OptimSpan& s = *w.s;
  const AdadeltaConsts& k = *w.k;
  const T lr = T(k.lr), rho = T(k.rho), rho1 = T(1 - k.rho), eps = T(k.eps), wd = T(k.weight_decay);
  const bool use_wd = k.weight_decay != 0;
  T *p = operand<T>(s, 0), *sq = operand<T>(s, 2), *acc = operand<T>(s, 3);
  const T* g = operand<T>(s, 1);
  TOCHA_UPDATE_LOOP(i, w) {
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

template <class T, class U> __global__ void __launch_bounds__(kThreads) rprop_kernel(const __grid_constant__ U updates) {
  const BlockWork<RpropConsts> w = updates.work();
  const OptimSpan& s = *w.s;
  const RpropConsts& k = *w.k;
  const T up = T(k.etaplus), down = T(k.etaminus), lo = T(k.step_min), hi = T(k.step_max);
  T *p = operand<T>(s, 0), *prev = operand<T>(s, 2), *step = operand<T>(s, 3);
  const T* g = operand<T>(s, 1);
  TOCHA_UPDATE_LOOP(i, w) {
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

#undef TOCHA_UPDATE_LOOP

// Each op's single and list launchers, for float and double.
#define LAUNCHERS(op, Consts, kernel)                                                          \
  template <class T> void op##_cuda(const OptimSpan& s, const Consts& k) {                      \
    launch(#op, s, k, kernel<T, OneUpdate<Consts>>);                                            \
  }                                                                                            \
  template <class T> void op##_list_cuda(const OptimSpanList<Consts>& l) {                      \
    launch_list(#op, l, kernel<T, UpdateList<Consts>>);                                        \
  }
LAUNCHERS(sgdStep, SgdConsts, sgd_kernel)
LAUNCHERS(adamStep, AdamConsts, adam_kernel)
LAUNCHERS(adamaxStep, AdamaxConsts, adamax_kernel)
LAUNCHERS(rmspropStep, RmspropConsts, rmsprop_kernel)
LAUNCHERS(adagradStep, AdagradConsts, adagrad_kernel)
LAUNCHERS(adadeltaStep, AdadeltaConsts, adadelta_kernel)
LAUNCHERS(rpropStep, RpropConsts, rprop_kernel)
#undef LAUNCHERS

// f32 and f64 only, like the CPU: f16/bf16 parameters are staged through f32 by the front-end
// (Note [Optimizer operands] in core/ops/optim.cpp).
#define REG(op)                                                                                          \
  TOCHA_REGISTER_KERNEL(op, cuda, DType::f32, (&op##_cuda<float>));                                      \
  TOCHA_REGISTER_KERNEL(op, cuda, DType::f64, (&op##_cuda<double>));                                     \
  static OptimListKernelRegistrar op##_list_f32(OpId::op, DType::f32, reinterpret_cast<void*>(&op##_list_cuda<float>)); \
  static OptimListKernelRegistrar op##_list_f64(OpId::op, DType::f64, reinterpret_cast<void*>(&op##_list_cuda<double>));
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
