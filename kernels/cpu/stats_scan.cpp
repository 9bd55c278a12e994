// CPU kernels of the running statistics along one dim: cummax and cummin (values and indices,
// operands 1 and 2) and logcumsumexp (operand 1), one slice per task. Steps: kernels/stats_scan_ops.h.
#include "core/kernel_registry.h"
#include "kernels/cpu/reduce_loops.h"
#include "kernels/stats_scan_ops.h"

namespace tocha {
namespace cpu {
namespace {

template <class T, bool kMax> void cum_extreme_kernel(const ReduceIter& it) {
  const int64_t n = it.rshape[0], s0 = it.rstrides[0][0], s1 = it.rstrides[1][0], s2 = it.rstrides[2][0];
  if (n == 0) return;
  for_each_slice<int>(it, [&](const int64_t* off, int&) {
    stats_scan::cum_extreme_slice<T, kMax>(reinterpret_cast<const T*>(it.data[0]) + off[0],
                                           reinterpret_cast<T*>(it.data[1]) + off[1],
                                           reinterpret_cast<int64_t*>(it.data[2]) + off[2], n, s0, s1, s2,
                                           it.index_base);
  });
}
template <class T> void cummax_kernel(const ReduceIter& it) { cum_extreme_kernel<T, true>(it); }
template <class T> void cummin_kernel(const ReduceIter& it) { cum_extreme_kernel<T, false>(it); }

template <class T> void logcumsumexp_kernel(const ReduceIter& it) {
  const int64_t n = it.rshape[0], s0 = it.rstrides[0][0], s1 = it.rstrides[1][0];
  for_each_slice<int>(it, [&](const int64_t* off, int&) {
    stats_scan::lcse_slice<T>(reinterpret_cast<const T*>(it.data[0]) + off[0],
                              reinterpret_cast<T*>(it.data[1]) + off[1], n, s0, s1);
  });
}

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_EXTREME(T) REG(cummax, T) REG(cummin, T)
#define REG_LCSE(T) REG(logcumsumexp, T)
TOCHA_FOR_ALL_TYPES(REG_EXTREME)
TOCHA_FOR_FLOAT_TYPES(REG_LCSE)

}  // namespace
}  // namespace cpu
}  // namespace tocha
