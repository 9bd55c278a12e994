// CUDA kernels of cummax, cummin and logcumsumexp (kernels/cpu/stats_scan.cpp): one thread per
// slice, the CPU's steps in the CPU's order (Note [CUDA slice ops] in nn_slice.cu).
#include <limits>
#include "core/kernel_registry.h"
#include "core/ops/reduce_iter.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"
#include "kernels/cuda/slice_loop.cuh"
#include "kernels/reduce_ops.h"
#include "kernels/stats_scan_ops.h"

namespace tocha {
namespace cuda {
namespace {

template <class T, bool kMax> __global__ void __launch_bounds__(kThreads) cum_extreme_kernel(ReduceIter it) {
  const int64_t n = it.rshape[0], s0 = it.rstrides[0][0], s1 = it.rstrides[1][0], s2 = it.rstrides[2][0];
  SLICE_LOOP(o) {
    int64_t off[ReduceIter::kMaxOperands];
    slice_offsets(it, o, off);
    stats_scan::cum_extreme_slice<T, kMax>(reinterpret_cast<const T*>(it.data[0]) + off[0],
                                           reinterpret_cast<T*>(it.data[1]) + off[1],
                                           reinterpret_cast<int64_t*>(it.data[2]) + off[2], n, s0, s1, s2,
                                           it.index_base);
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) lcse_kernel(ReduceIter it) {
  const int64_t n = it.rshape[0], s0 = it.rstrides[0][0], s1 = it.rstrides[1][0];
  SLICE_LOOP(o) {
    int64_t off[ReduceIter::kMaxOperands];
    slice_offsets(it, o, off);
    stats_scan::lcse_slice<T>(reinterpret_cast<const T*>(it.data[0]) + off[0],
                              reinterpret_cast<T*>(it.data[1]) + off[1], n, s0, s1);
  }
}

template <class T, bool kMax> void cum_extreme_cuda(const ReduceIter& it) {
  if (it.n_out == 0 || it.rshape[0] == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  cum_extreme_kernel<T, kMax><<<grid_for(it.n_out), kThreads, 0, scope.stream>>>(it);
  check_launch(kMax ? "cummax" : "cummin");
}
template <class T> void cummax_cuda(const ReduceIter& it) { cum_extreme_cuda<T, true>(it); }
template <class T> void cummin_cuda(const ReduceIter& it) { cum_extreme_cuda<T, false>(it); }
template <class T> void logcumsumexp_cuda(const ReduceIter& it) {
  if (it.n_out == 0 || it.rshape[0] == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  lcse_kernel<T><<<grid_for(it.n_out), kThreads, 0, scope.stream>>>(it);
  check_launch("logcumsumexp");
}

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cuda, DTypeOf<T>::value, &op##_cuda<T>);
#define REG_EXTREME(T) REG(cummax, T) REG(cummin, T)
#define REG_LCSE(T) REG(logcumsumexp, T)
TOCHA_FOR_ALL_TYPES(REG_EXTREME)
TOCHA_FOR_FLOAT_TYPES(REG_LCSE)

}  // namespace
}  // namespace cuda
}  // namespace tocha
