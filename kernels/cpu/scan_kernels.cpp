// CPU kernels of the scans cumsum and cumprod (accumulating like sum: double for f32, int64 for
// integers) and of cross (3-vectors along a dim; operand 2 is the second input).
#include "core/kernel_registry.h"
#include "kernels/cpu/reduce_loops.h"

namespace tocha {
namespace cpu {
namespace {

struct AddOp {
  template <class A> A identity() const { return A(0); }
  template <class A> A operator()(A a, A x) const { return wrap_add(a, x); }
};
struct MulOp {
  template <class A> A identity() const { return A(1); }
  template <class A> A operator()(A a, A x) const { return wrap_mul(a, x); }
};

template <class T, class Op> void scan_kernel(const ReduceIter& it, const Op& op) {
  using A = typename SumTypes<T>::acc;
  using R = typename SumTypes<T>::out;
  const T* in = reinterpret_cast<const T*>(it.data[0]);
  R* out = reinterpret_cast<R*>(it.data[1]);
  const int64_t n = it.rshape[0], s0 = it.rstrides[0][0], s1 = it.rstrides[1][0];
  const int nd = it.ndim;
  // Columns: the scan dim is not contiguous but the innermost kept dim is (cumsum over dim 1 of
  // a matrix): scan a block of columns together so the inner loop runs along memory.
  if (nd > 0 && it.strides[0][nd - 1] == 1 && it.strides[1][nd - 1] == 1 && s0 != 1 && n > 1) {
    const int64_t row_len = it.shape[nd - 1], width = std::min(row_len, kMaxBlock);
    const int64_t blocks = (row_len + width - 1) / width, units = it.n_out / row_len * blocks;
    parallel_for(units, std::max<int64_t>(kGrainSize / (n * width), 1), [&](int64_t b, int64_t e) {
      std::unique_ptr<A[]> acc(new A[size_t(width)]);  // not vector: A may be bool
      int64_t off[ReduceIter::kMaxOperands];
      for (int64_t u = b; u < e; ++u) {
        int64_t row = u / blocks, blk = u % blocks;
        int64_t w = std::min(width, row_len - blk * width);
        out_offsets(it, row * row_len + blk * width, off);
        for (int64_t j = 0; j < w; ++j) acc[j] = op.template identity<A>();
        for (int64_t r = 0; r < n; ++r) {
          const T* x = in + off[0] + r * s0;
          R* y = out + off[1] + r * s1;
          A* __restrict a = acc.get();
#pragma omp simd
          for (int64_t j = 0; j < w; ++j) {
            a[j] = op(a[j], A(opmath_t<T>(x[j])));
            y[j] = cast_result<R>(a[j]);
          }
        }
      }
    });
    return;
  }
  for_each_slice<int>(it, [&](const int64_t* off, int&) {
    const T* x = in + off[0];
    R* y = out + off[1];
    A acc = op.template identity<A>();
    for (int64_t r = 0; r < n; ++r) {
      acc = op(acc, A(opmath_t<T>(x[r * s0])));
      y[r * s1] = cast_result<R>(acc);
    }
  });
}

template <class T> void cumsum_kernel(const ReduceIter& it) { scan_kernel<T>(it, AddOp{}); }
template <class T> void cumprod_kernel(const ReduceIter& it) { scan_kernel<T>(it, MulOp{}); }

// out = a x b along the slice dim (of size 3).
template <class T> void cross_kernel(const ReduceIter& it) {
  using M = opmath_t<T>;
  const int64_t sa = it.rstrides[0][0], so = it.rstrides[1][0], sb = it.rstrides[2][0];
  for_each_slice<int>(it, [&](const int64_t* off, int&) {
    const T* a = reinterpret_cast<const T*>(it.data[0]) + off[0];
    T* o = reinterpret_cast<T*>(it.data[1]) + off[1];
    const T* b = reinterpret_cast<const T*>(it.data[2]) + off[2];
    const M a0 = M(a[0]), a1 = M(a[sa]), a2 = M(a[2 * sa]);
    const M b0 = M(b[0]), b1 = M(b[sb]), b2 = M(b[2 * sb]);
    o[0] = cast_result<T>(wrap_sub(wrap_mul(a1, b2), wrap_mul(a2, b1)));
    o[so] = cast_result<T>(wrap_sub(wrap_mul(a2, b0), wrap_mul(a0, b2)));
    o[2 * so] = cast_result<T>(wrap_sub(wrap_mul(a0, b1), wrap_mul(a1, b0)));
  });
}

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_SCAN(T) REG(cumsum, T) REG(cumprod, T)
#define REG_CROSS(T) REG(cross, T)

TOCHA_FOR_ALL_TYPES(REG_SCAN)
TOCHA_FOR_NUMERIC_TYPES(REG_CROSS)

}  // namespace
}  // namespace cpu
}  // namespace tocha
