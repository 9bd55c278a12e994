// CUDA kernels of the reductions (sum, prod, mean, all, any, max/min with or without indices,
// norm, var, std, logsumexp) over a ReduceIter, with the functors the CPU kernels use
// (kernels/reduce_ops.h, DESIGN.md decision 3) and cub::BlockReduce for the in-block merge.
// Kernels never validate: core/ already did.
//
// Note [CUDA reduction plan]: each output is folded by one 256-thread block (threads stride over
// the reduced elements, then BlockReduce merges them); outputs with few elements each are folded
// by one thread each instead. When there are too few outputs to fill the GPU (a full sum), each
// output's range is split into `splits` chunks whose partial accumulators go to a scratch buffer
// and a second kernel merges them (one block per output, in a fixed order), so results do not
// depend on timing.
#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include "core/kernel_registry.h"
#include "core/ops/reduce_iter.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"
#include "kernels/reduce_ops.h"

namespace tocha {
namespace cuda {
namespace {

using namespace reduce;

// Element offsets of kept index o (operands 0..2) and of reduced index i (operand 0).
__device__ __forceinline__ void kept_offsets(const ReduceIter& it, int64_t o, int64_t* off) {
  off[0] = off[1] = off[2] = 0;
  for (int d = it.ndim - 1; d >= 0; --d) {
    int64_t idx = o % it.shape[d];
    o /= it.shape[d];
    off[0] += idx * it.strides[0][d];
    off[1] += idx * it.strides[1][d];
    off[2] += idx * it.strides[2][d];
  }
}
__device__ __forceinline__ int64_t reduced_offset(const ReduceIter& it, int64_t i) {
  if (it.rdim == 1) return i * it.rstrides[0][0];
  int64_t off = 0;
  for (int d = it.rdim - 1; d >= 0; --d) {
    off += (i % it.rshape[d]) * it.rstrides[0][d];
    i /= it.rshape[d];
  }
  return off;
}

template <class Op> struct Combine {
  Op op;
  template <class A> __device__ __forceinline__ A operator()(const A& a, const A& b) const { return op.combine(a, b); }
};

template <class Op, class R> __device__ __forceinline__ void store(const ReduceIter& it, const Op& op, int64_t o,
                                                                    const typename Op::acc_t& acc) {
  int64_t off[3];
  kept_offsets(it, o, off);
  auto v = op.project(acc);
  if (it.value_f64) reinterpret_cast<double*>(it.data[1])[off[1]] = double(v);
  else reinterpret_cast<R*>(it.data[1])[off[1]] = cast_result<R>(v);
  if constexpr (Op::kIndex) reinterpret_cast<int64_t*>(it.data[2])[off[2]] = acc.i + it.index_base;
}

// Folds reduced elements [b, e) with a stride of `step` (element i at offset next() of the i-th
// call): four independent accumulators keep four loads in flight per thread (Note [Pointwise loads
// in flight]) and merge in a fixed order.
template <class Op, class T, class Next>
__device__ __forceinline__ typename Op::acc_t fold4(const Op& op, const T* in, int64_t b, int64_t e, int64_t step,
                                                     Next next) {
  typename Op::acc_t a0 = op.identity(), a1 = op.identity(), a2 = op.identity(), a3 = op.identity();
  int64_t i = b;
  for (; i + 3 * step < e; i += 4 * step) {
    const int64_t o0 = next(), o1 = next(), o2 = next(), o3 = next();
    const T x0 = in[o0], x1 = in[o1], x2 = in[o2], x3 = in[o3];
    a0 = op.reduce(a0, x0, i);
    a1 = op.reduce(a1, x1, i + step);
    a2 = op.reduce(a2, x2, i + 2 * step);
    a3 = op.reduce(a3, x3, i + 3 * step);
  }
  for (; i < e; i += step) a0 = op.reduce(a0, in[next()], i);
  return op.combine(op.combine(a0, a1), op.combine(a2, a3));
}

// Folds reduced elements [b, e) of output o with a stride of `step` starting at b.
template <class Op, class T> __device__ __forceinline__ typename Op::acc_t fold(const ReduceIter& it, const Op& op,
                                                                                int64_t o, int64_t b, int64_t e,
                                                                                int64_t step) {
  int64_t off[3];
  kept_offsets(it, o, off);
  const T* in = reinterpret_cast<const T*>(it.data[0]) + off[0];
  if (it.rdim == 1) {  // a full sum of a contiguous tensor, a row
    const int64_t rs = it.rstrides[0][0];
    int64_t j = b;
    return fold4<Op, T>(op, in, b, e, step, [&]() {
      const int64_t at = j * rs;
      j += step;
      return at;
    });
  }
  if (it.rdim == 2 && it.rshape[1] > 0) {  // (an empty inner dim would divide by zero below)
    // Two reduced dims (a conv bias gradient: N and H*W): the (outer, inner) position advances by
    // a fixed step instead of a division per element.
    const int64_t inner = it.rshape[1], s0 = it.rstrides[0][0], s1 = it.rstrides[0][1];
    const int64_t dq = step / inner, dr = step % inner;
    int64_t q = b / inner, r = b % inner;
    return fold4<Op, T>(op, in, b, e, step, [&]() {
      const int64_t at = q * s0 + r * s1;
      q += dq;
      r += dr;
      if (r >= inner) { r -= inner; ++q; }
      return at;
    });
  }
  typename Op::acc_t acc = op.identity();
  for (int64_t i = b; i < e; i += step) acc = op.reduce(acc, in[reduced_offset(it, i)], i);
  return acc;
}

// One block per (output, split): a full result when splits == 1, else a partial accumulator.
template <class Op, class T, class R>
__global__ void __launch_bounds__(kThreads) reduce_block_kernel(ReduceIter it, Op op, int64_t splits,
                                                                 typename Op::acc_t* partial) {
  using A = typename Op::acc_t;
  using BlockReduce = cub::BlockReduce<A, kThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  const int64_t units = it.n_out * splits;
  const int64_t chunk = (it.n_red + splits - 1) / splits;
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    int64_t o = u / splits, s = u % splits;
    int64_t b = s * chunk, e = b + chunk < it.n_red ? b + chunk : it.n_red;
    A acc = fold<Op, T>(it, op, o, b + threadIdx.x, e, kThreads);
    A total = BlockReduce(tmp).Reduce(acc, Combine<Op>{op});
    if (threadIdx.x == 0) {
      if (splits == 1) store<Op, R>(it, op, o, total);
      else partial[u] = total;
    }
    __syncthreads();  // tmp is reused by the next unit
  }
}

// One thread per output: many outputs with small reduced ranges.
template <class Op, class T, class R>
__global__ void __launch_bounds__(kThreads) reduce_thread_kernel(ReduceIter it, Op op) {
  for (int64_t o = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < it.n_out; o += int64_t(gridDim.x) * blockDim.x)
    store<Op, R>(it, op, o, fold<Op, T>(it, op, o, 0, it.n_red, 1));
}

// One block per output merging its split partials (few outputs, such as a full sum): the threads
// fold strided partials and BlockReduce merges them, in a fixed order. A single thread folding a
// thousand partials one dependent load at a time took about a third of a full sum's time.
template <class Op, class R>
__global__ void __launch_bounds__(kThreads) merge_block_kernel(ReduceIter it, Op op, int64_t splits,
                                                                const typename Op::acc_t* partial) {
  using A = typename Op::acc_t;
  using BlockReduce = cub::BlockReduce<A, kThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  for (int64_t o = blockIdx.x; o < it.n_out; o += gridDim.x) {
    A acc = op.identity();
    for (int64_t s = threadIdx.x; s < splits; s += kThreads) acc = op.combine(acc, partial[o * splits + s]);
    A total = BlockReduce(tmp).Reduce(acc, Combine<Op>{op});
    if (threadIdx.x == 0) store<Op, R>(it, op, o, total);
    __syncthreads();  // tmp is reused by the next output
  }
}

template <class Op, class T, class R> void reduce_cuda(const ReduceIter& it, const Op& op) {
  using A = typename Op::acc_t;
  if (it.n_out == 0) return;
  const int device = device_of(it.data[0]);
  LaunchScope scope(device);
  const char* name = "reduce";
  if (it.n_red < 64 && it.n_out >= 1024) {
    reduce_thread_kernel<Op, T, R><<<grid_for(it.n_out), kThreads, 0, scope.stream>>>(it, op);
    check_launch(name);
    return;
  }
  // Enough blocks to fill the GPU: 8 per SM (2048 threads), each folding at least 16 elements per thread.
  const int64_t want = int64_t(properties(device).multiProcessorCount) * 8;
  int64_t splits = 1;
  if (it.n_out < want && it.n_red > 2 * 16 * kThreads) {
    splits = (want + it.n_out - 1) / it.n_out;
    int64_t max_splits = it.n_red / (16 * kThreads);
    if (splits > max_splits) splits = max_splits;
    if (splits < 1) splits = 1;
  }
  const unsigned grid = unsigned(std::min<int64_t>(it.n_out * splits, kMaxBlocks * 8));
  if (splits == 1) {
    reduce_block_kernel<Op, T, R><<<grid, kThreads, 0, scope.stream>>>(it, op, 1, nullptr);
    check_launch(name);
    return;
  }
  // Scratch for the partials, from the caching allocator (freed in stream order).
  Ref<Storage> scratch = Storage::allocate(size_t(it.n_out * splits) * sizeof(A), Device{DeviceType::cuda, device});
  A* partial = static_cast<A*>(scratch->data());
  reduce_block_kernel<Op, T, R><<<grid, kThreads, 0, scope.stream>>>(it, op, splits, partial);
  check_launch(name);
  merge_block_kernel<Op, R><<<unsigned(it.n_out), kThreads, 0, scope.stream>>>(it, op, splits, partial);
  check_launch(name);
}

template <class T> void sum_kernel(const ReduceIter& it) {
  using S = SumTypes<T>;
  reduce_cuda<SumOp<T, typename S::acc>, T, typename S::out>(it, SumOp<T, typename S::acc>{});
}
template <class T> void prod_kernel(const ReduceIter& it) {
  using S = SumTypes<T>;
  reduce_cuda<ProdOp<T, typename S::acc>, T, typename S::out>(it, ProdOp<T, typename S::acc>{});
}
template <class T> void mean_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_cuda<MeanOp<T, A>, T, T>(it, MeanOp<T, A>(it.n_red));
}
template <class T, bool kAll> void logical_kernel(const ReduceIter& it) {
  reduce_cuda<LogicalOp<T, kAll>, T, LogicalResult<T>>(it, LogicalOp<T, kAll>{});
}
template <class T> void all_kernel(const ReduceIter& it) { logical_kernel<T, true>(it); }
template <class T> void any_kernel(const ReduceIter& it) { logical_kernel<T, false>(it); }
template <class T, bool kMax> void minmax_kernel(const ReduceIter& it) {
  if (it.noperands >= 3) reduce_cuda<ArgMinMaxOp<T, kMax>, T, T>(it, ArgMinMaxOp<T, kMax>{});
  else reduce_cuda<MinMaxOp<T, kMax>, T, T>(it, MinMaxOp<T, kMax>{});
}
template <class T> void max_kernel(const ReduceIter& it) { minmax_kernel<T, true>(it); }
template <class T> void min_kernel(const ReduceIter& it) { minmax_kernel<T, false>(it); }
template <class T> void norm_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  const double p = it.params[0];
  const double inf = std::numeric_limits<double>::infinity();
  if (p == 2) reduce_cuda<Norm2Op<T, A>, T, T>(it, Norm2Op<T, A>{});
  else if (p == 1) reduce_cuda<Norm1Op<T, A>, T, T>(it, Norm1Op<T, A>{});
  else if (p == 0) reduce_cuda<Norm0Op<T, A>, T, T>(it, Norm0Op<T, A>{});
  else if (p == inf) reduce_cuda<NormInfOp<T, A>, T, T>(it, NormInfOp<T, A>{});
  else if (p == -inf) reduce_cuda<NormNegInfOp<T, A>, T, T>(it, NormNegInfOp<T, A>{});
  else reduce_cuda<NormPOp<T, A>, T, T>(it, NormPOp<T, A>(A(p)));
}
template <class T> void var_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_cuda<VarOp<T, A, false>, T, T>(it, VarOp<T, A, false>(it.params[0]));
}
template <class T> void std_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_cuda<VarOp<T, A, true>, T, T>(it, VarOp<T, A, true>(it.params[0]));
}
template <class T> void logsumexp_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_cuda<LogSumExpOp<T, A>, T, T>(it, LogSumExpOp<T, A>{});
}

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cuda, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_SUM(T) REG(sum, T)
#define REG_PROD(T) REG(prod, T)
#define REG_MEAN(T) REG(mean, T)
#define REG_ALL(T) REG(all, T)
#define REG_ANY(T) REG(any, T)
#define REG_MAX(T) REG(max, T)
#define REG_MIN(T) REG(min, T)
#define REG_NORM(T) REG(norm, T)
#define REG_VAR(T) REG(var, T)
#define REG_STD(T) REG(std, T)
#define REG_LSE(T) REG(logsumexp, T)

TOCHA_FOR_ALL_TYPES(REG_SUM)
TOCHA_FOR_ALL_TYPES(REG_PROD)
TOCHA_FOR_FLOAT_TYPES(REG_MEAN)
TOCHA_FOR_ALL_TYPES(REG_ALL)
TOCHA_FOR_ALL_TYPES(REG_ANY)
TOCHA_FOR_ALL_TYPES(REG_MAX)
TOCHA_FOR_ALL_TYPES(REG_MIN)
TOCHA_FOR_FLOAT_TYPES(REG_NORM)
TOCHA_FOR_FLOAT_TYPES(REG_VAR)
TOCHA_FOR_FLOAT_TYPES(REG_STD)
TOCHA_FOR_FLOAT_TYPES(REG_LSE)

}  // namespace
}  // namespace cuda
}  // namespace tocha
