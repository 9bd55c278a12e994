// CPU kernels of the additive and logical reductions: sum, prod, mean, all, any.
// The functors follow Note [Reduction functors] in kernels/cpu/reduce_loops.h.
#include "core/kernel_registry.h"
#include "kernels/cpu/reduce_loops.h"

namespace tocha {
namespace cpu {
namespace {

template <class T, class A> struct SumOp {
  using acc_t = A;
  static constexpr bool kIndex = false;
  A identity() const { return A(0); }
  A reduce(A a, T x, int64_t) const { return wrap_add(a, A(opmath_t<T>(x))); }
  A combine(A a, A b) const { return wrap_add(a, b); }
  A project(A a) const { return a; }
};

template <class T, class A> struct ProdOp {
  using acc_t = A;
  static constexpr bool kIndex = false;
  A identity() const { return A(1); }
  A reduce(A a, T x, int64_t) const { return wrap_mul(a, A(opmath_t<T>(x))); }
  A combine(A a, A b) const { return wrap_mul(a, b); }
  A project(A a) const { return a; }
};

// mean = sum / n (n = 0 gives NaN, like PyTorch).
template <class T, class A> struct MeanOp : SumOp<T, A> {
  A n;
  explicit MeanOp(int64_t count) : n(A(count)) {}
  A project(A a) const { return a / n; }
};

// all/any accumulate in uint8 (0/1) so the lanes vectorize like integer sums.
template <class T, bool kAll> struct LogicalOp {
  using acc_t = uint8_t;
  static constexpr bool kIndex = false;
  uint8_t identity() const { return kAll ? 1 : 0; }
  uint8_t reduce(uint8_t a, T x, int64_t) const {
    uint8_t nz = opmath_t<T>(x) != opmath_t<T>(0);
    return kAll ? uint8_t(a & nz) : uint8_t(a | nz);
  }
  uint8_t combine(uint8_t a, uint8_t b) const { return kAll ? uint8_t(a & b) : uint8_t(a | b); }
  bool project(uint8_t a) const { return a != 0; }
};

template <class T> void sum_kernel(const ReduceIter& it) {
  using S = SumTypes<T>;
  reduce_kernel<SumOp<T, typename S::acc>, T, typename S::out>(it, SumOp<T, typename S::acc>{});
}
template <class T> void prod_kernel(const ReduceIter& it) {
  using S = SumTypes<T>;
  reduce_kernel<ProdOp<T, typename S::acc>, T, typename S::out>(it, ProdOp<T, typename S::acc>{});
}
template <class T> void mean_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_kernel<MeanOp<T, A>, T, T>(it, MeanOp<T, A>(it.n_red));
}
// The result of all/any is a ByteTensor for a ByteTensor (Torch7's masks), else a BoolTensor.
template <class T, bool kAll> void logical_kernel(const ReduceIter& it) {
  using R = std::conditional_t<std::is_same<T, uint8_t>::value, uint8_t, bool>;
  reduce_kernel<LogicalOp<T, kAll>, T, R>(it, LogicalOp<T, kAll>{});
}
template <class T> void all_kernel(const ReduceIter& it) { logical_kernel<T, true>(it); }
template <class T> void any_kernel(const ReduceIter& it) { logical_kernel<T, false>(it); }

#define FOR_ALL_TYPES(M) M(float) M(double) M(Half) M(BFloat16) M(int64_t) M(int32_t) M(uint8_t) M(bool)
#define FOR_FLOAT_TYPES(M) M(float) M(double) M(Half) M(BFloat16)
#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_SUM(T) REG(sum, T)
#define REG_PROD(T) REG(prod, T)
#define REG_MEAN(T) REG(mean, T)
#define REG_ALL(T) REG(all, T)
#define REG_ANY(T) REG(any, T)

FOR_ALL_TYPES(REG_SUM)
FOR_ALL_TYPES(REG_PROD)
FOR_FLOAT_TYPES(REG_MEAN)
FOR_ALL_TYPES(REG_ALL)
FOR_ALL_TYPES(REG_ANY)

}  // namespace
}  // namespace cpu
}  // namespace tocha
