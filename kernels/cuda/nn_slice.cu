// CUDA kernels of the slice ops over a ReduceIter (one dim, every other dim kept): the scans
// cumsum and cumprod and the cross product (kernels/cpu/scan_kernels.cpp), and sort, topk,
// kthvalue, median and mode (kernels/cpu/sort_kernels.cpp), for every dtype the CPU takes.
//
// Note [CUDA slice ops]: one thread owns a slice and does exactly what a CPU thread does with it
// (the scans accumulate in the same order and type; the selections order items by (key, index)
// with NaN after every number, a total order, so any correct sort gives the CPU's result; here a
// bottom-up merge sort in a global scratch). That is parallel over slices only: a single long
// slice (cumsum or sort of one big vector) runs on one thread, correct but slow; CUB's device-wide
// scan and segmented sort are the way to speed those up.
#include "core/kernel_registry.h"
#include "core/ops/reduce_iter.h"
#include "core/storage.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/runtime.h"
#include "kernels/cuda/slice_loop.cuh"
#include "kernels/reduce_ops.h"

namespace tocha {
namespace cuda {
namespace {

using reduce::cast_result;
using reduce::SumTypes;
using reduce::wrap_add;
using reduce::wrap_mul;
using reduce::wrap_sub;

// ---- scans -------------------------------------------------------------------------------------

template <class T, bool kMul> __global__ void __launch_bounds__(kThreads) scan_kernel(ReduceIter it) {
  using A = typename SumTypes<T>::acc;
  using R = typename SumTypes<T>::out;
  const int64_t n = it.rshape[0], s0 = it.rstrides[0][0], s1 = it.rstrides[1][0];
  SLICE_LOOP(o) {
    int64_t off[ReduceIter::kMaxOperands];
    slice_offsets(it, o, off);
    const T* x = reinterpret_cast<const T*>(it.data[0]) + off[0];
    R* y = reinterpret_cast<R*>(it.data[1]) + off[1];
    A acc = kMul ? A(1) : A(0);
    for (int64_t r = 0; r < n; ++r) {
      const A v = A(opmath_t<T>(x[r * s0]));
      acc = kMul ? wrap_mul(acc, v) : wrap_add(acc, v);
      y[r * s1] = cast_result<R>(acc);
    }
  }
}

template <class T> __global__ void __launch_bounds__(kThreads) cross_kernel(ReduceIter it) {
  using M = opmath_t<T>;
  const int64_t sa = it.rstrides[0][0], so = it.rstrides[1][0], sb = it.rstrides[2][0];
  SLICE_LOOP(o) {
    int64_t off[ReduceIter::kMaxOperands];
    slice_offsets(it, o, off);
    const T* a = reinterpret_cast<const T*>(it.data[0]) + off[0];
    T* out = reinterpret_cast<T*>(it.data[1]) + off[1];
    const T* b = reinterpret_cast<const T*>(it.data[2]) + off[2];
    const M a0 = M(a[0]), a1 = M(a[sa]), a2 = M(a[2 * sa]);
    const M b0 = M(b[0]), b1 = M(b[sb]), b2 = M(b[2 * sb]);
    out[0] = cast_result<T>(wrap_sub(wrap_mul(a1, b2), wrap_mul(a2, b1)));
    out[so] = cast_result<T>(wrap_sub(wrap_mul(a2, b0), wrap_mul(a0, b2)));
    out[2 * so] = cast_result<T>(wrap_sub(wrap_mul(a0, b1), wrap_mul(a1, b0)));
  }
}

// ---- selections ----------------------------------------------------------------------------------

template <class K> __device__ __forceinline__ bool is_nan(K v) {
  if constexpr (std::is_floating_point<K>::value) return v != v;
  else return false;
}
// a < b with NaN largest (NaNs equal to each other).
template <class K> __device__ __forceinline__ bool key_less(K a, K b) { return a < b || (is_nan(b) && !is_nan(a)); }
// Item order: by key (descending flips it), then by index.
template <class K> __device__ __forceinline__ bool item_before(K ka, int64_t ia, K kb, int64_t ib, bool descending) {
  if (descending ? key_less(kb, ka) : key_less(ka, kb)) return true;
  if (descending ? key_less(ka, kb) : key_less(kb, ka)) return false;
  return ia < ib;
}

enum class Select { sort, topk, kth, median, mode };

// Sorts slice o's items into keys/idx (its n-item region of the scratch; tk/ti the ping-pong
// half) and returns which half holds the result.
template <class K>
__device__ void merge_sort(K* keys, int64_t* idx, K* tk, int64_t* ti, int64_t n, bool descending, K** rk,
                           int64_t** ri) {
  K* ka = keys;
  int64_t* ia = idx;
  K* kb = tk;
  int64_t* ib = ti;
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = min(lo + width, n), hi = min(lo + 2 * width, n);
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (item_before(ka[j], ia[j], ka[i], ia[i], descending)) {
          kb[k] = ka[j];
          ib[k++] = ia[j++];
        } else {
          kb[k] = ka[i];
          ib[k++] = ia[i++];
        }
      }
      while (i < mid) {
        kb[k] = ka[i];
        ib[k++] = ia[i++];
      }
      while (j < hi) {
        kb[k] = ka[j];
        ib[k++] = ia[j++];
      }
    }
    K* t = ka;
    ka = kb;
    kb = t;
    int64_t* u = ia;
    ia = ib;
    ib = u;
  }
  *rk = ka;
  *ri = ia;
}

template <class T, Select kOp>
__global__ void __launch_bounds__(kThreads) select_kernel(ReduceIter it, opmath_t<T>* kbuf, int64_t* ibuf) {
  using K = opmath_t<T>;
  const int64_t n = it.rshape[0], st = it.rstrides[0][0], sv = it.rstrides[1][0], si = it.rstrides[2][0];
  const bool descending = (kOp == Select::sort && it.params[0] != 0) || (kOp == Select::topk && it.params[1] != 0);
  SLICE_LOOP(o) {
    int64_t off[ReduceIter::kMaxOperands];
    slice_offsets(it, o, off);
    const T* p = reinterpret_cast<const T*>(it.data[0]) + off[0];
    K* keys = kbuf + o * 2 * n;
    int64_t* idx = ibuf + o * 2 * n;
    for (int64_t i = 0; i < n; ++i) {
      keys[i] = K(p[i * st]);
      idx[i] = i;
    }
    K* rk;
    int64_t* ri;
    merge_sort(keys, idx, keys + n, idx + n, n, descending, &rk, &ri);
    T* v = reinterpret_cast<T*>(it.data[1]) + off[1];
    int64_t* ix = reinterpret_cast<int64_t*>(it.data[2]) + off[2];
    int64_t count = 1, at = 0;
    if constexpr (kOp == Select::sort) count = n;
    if constexpr (kOp == Select::topk) count = int64_t(it.params[0]);
    if constexpr (kOp == Select::kth) at = int64_t(it.params[0]) - 1;
    if constexpr (kOp == Select::median) {
      // the first NaN (by index) sorts first among the NaNs, after every number
      at = (n > 0 && is_nan(rk[n - 1])) ? -1 : (n - 1) / 2;
      if (at < 0) {
        at = n - 1;
        while (at > 0 && is_nan(rk[at - 1])) --at;
      }
    }
    if constexpr (kOp == Select::mode) {
      int64_t best_len = 0, run = 0;
      at = n - 1;
      for (int64_t i = 0; i < n; ++i) {
        ++run;
        if (i + 1 == n || key_less(rk[i], rk[i + 1])) {
          if (run > best_len) {
            best_len = run;
            at = i;
          }
          run = 0;
        }
      }
    }
    for (int64_t i = 0; i < count; ++i) {
      v[i * sv] = cast_result<T>(rk[at + i]);
      ix[i * si] = ri[at + i] + it.index_base;
    }
  }
}

template <class T, bool kMul> void scan_cuda(const ReduceIter& it) {
  if (it.n_out == 0 || it.rshape[0] == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  scan_kernel<T, kMul><<<grid_for(it.n_out), kThreads, 0, scope.stream>>>(it);
  check_launch(kMul ? "cumprod" : "cumsum");
}
template <class T> void cumsum_cuda(const ReduceIter& it) { scan_cuda<T, false>(it); }
template <class T> void cumprod_cuda(const ReduceIter& it) { scan_cuda<T, true>(it); }
template <class T> void cross_cuda(const ReduceIter& it) {
  if (it.n_out == 0) return;
  LaunchScope scope(device_of(it.data[0]));
  cross_kernel<T><<<grid_for(it.n_out), kThreads, 0, scope.stream>>>(it);
  check_launch("cross");
}

template <class T, Select kOp> void select_cuda(const ReduceIter& it) {
  using K = opmath_t<T>;
  const int64_t n = it.rshape[0];
  if (it.n_out == 0 || n == 0) return;
  if (kOp == Select::topk && int64_t(it.params[0]) == 0) return;
  const int device = device_of(it.data[0]);
  LaunchScope scope(device);
  const Device dev{DeviceType::cuda, device};
  const size_t items = size_t(it.n_out) * size_t(2 * n);
  Ref<Storage> kb = Storage::allocate(items * sizeof(K), dev), ib = Storage::allocate(items * sizeof(int64_t), dev);
  select_kernel<T, kOp><<<grid_for(it.n_out), kThreads, 0, scope.stream>>>(it, static_cast<K*>(kb->data()),
                                                                           static_cast<int64_t*>(ib->data()));
  check_launch("sort");
}
template <class T> void sort_cuda(const ReduceIter& it) { select_cuda<T, Select::sort>(it); }
template <class T> void topk_cuda(const ReduceIter& it) { select_cuda<T, Select::topk>(it); }
template <class T> void kthvalue_cuda(const ReduceIter& it) { select_cuda<T, Select::kth>(it); }
template <class T> void median_cuda(const ReduceIter& it) { select_cuda<T, Select::median>(it); }
template <class T> void mode_cuda(const ReduceIter& it) { select_cuda<T, Select::mode>(it); }

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cuda, DTypeOf<T>::value, &op##_cuda<T>);
#define REG_SLICE(T) REG(cumsum, T) REG(cumprod, T) REG(sort, T) REG(topk, T) REG(kthvalue, T) REG(median, T) REG(mode, T)
#define REG_CROSS(T) REG(cross, T)
TOCHA_FOR_ALL_TYPES(REG_SLICE)
TOCHA_FOR_NUMERIC_TYPES(REG_CROSS)

}  // namespace
}  // namespace cuda
}  // namespace tocha
