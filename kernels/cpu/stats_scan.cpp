// CPU kernels of the running statistics along one dim: cummax and cummin (values and indices,
// operands 1 and 2) and logcumsumexp (operand 1), one slice per task. Steps: kernels/stats_scan_ops.h.
#include "core/kernel_registry.h"
#include "kernels/cpu/reduce_loops.h"
#include "kernels/stats_scan_ops.h"

namespace tocha {
namespace cpu {
namespace {

using stats_scan::lcse_acc_t;
using stats_scan::log_add_exp;
using stats_scan::takes_over;

template <class T, bool kMax> void cum_extreme_kernel(const ReduceIter& it) {
  using M = opmath_t<T>;
  const int64_t n = it.rshape[0], s0 = it.rstrides[0][0], s1 = it.rstrides[1][0], s2 = it.rstrides[2][0];
  if (n == 0) return;
  for_each_slice<int>(it, [&](const int64_t* off, int&) {
    const T* x = reinterpret_cast<const T*>(it.data[0]) + off[0];
    T* v = reinterpret_cast<T*>(it.data[1]) + off[1];
    int64_t* ix = reinterpret_cast<int64_t*>(it.data[2]) + off[2];
    T best = x[0];
    int64_t at = 0;
    for (int64_t r = 0; r < n; ++r) {
      const T xr = x[r * s0];
      if (takes_over<M, kMax>(M(xr), M(best))) {
        best = xr;
        at = r;
      }
      v[r * s1] = best;
      ix[r * s2] = at + it.index_base;
    }
  });
}
template <class T> void cummax_kernel(const ReduceIter& it) { cum_extreme_kernel<T, true>(it); }
template <class T> void cummin_kernel(const ReduceIter& it) { cum_extreme_kernel<T, false>(it); }

template <class T> void logcumsumexp_kernel(const ReduceIter& it) {
  using A = lcse_acc_t<T>;
  const int64_t n = it.rshape[0], s0 = it.rstrides[0][0], s1 = it.rstrides[1][0];
  for_each_slice<int>(it, [&](const int64_t* off, int&) {
    const T* x = reinterpret_cast<const T*>(it.data[0]) + off[0];
    T* y = reinterpret_cast<T*>(it.data[1]) + off[1];
    A acc = -std::numeric_limits<A>::infinity();
    for (int64_t r = 0; r < n; ++r) {
      acc = log_add_exp(acc, A(opmath_t<T>(x[r * s0])));
      y[r * s1] = reduce::cast_result<T>(acc);
    }
  });
}

#define FOR_ALL_TYPES(M) M(float) M(double) M(Half) M(BFloat16) M(int64_t) M(int32_t) M(uint8_t) M(bool)
#define FOR_FLOAT_TYPES(M) M(float) M(double) M(Half) M(BFloat16)
#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_EXTREME(T) REG(cummax, T) REG(cummin, T)
#define REG_LCSE(T) REG(logcumsumexp, T)
FOR_ALL_TYPES(REG_EXTREME)
FOR_FLOAT_TYPES(REG_LCSE)

}  // namespace
}  // namespace cpu
}  // namespace tocha
