// CPU kernels of the additive and logical reductions: sum, prod, mean, all, any.
// The functors are shared with CUDA (kernels/reduce_ops.h).
#include "core/kernel_registry.h"
#include "kernels/cpu/loops.h"
#include "kernels/cpu/reduce_loops.h"

namespace tocha {
namespace cpu {
namespace {

using reduce::LogicalOp;
using reduce::MeanOp;
using reduce::ProdOp;
using reduce::SumOp;

template <class Base> struct WideSum : Base {
  using Base::Base;
  template <class T> typename Base::acc_t reduce_segment(const T* p, int64_t n, int64_t) const {
    return wide_sum<typename Base::acc_t>(p, n, WideIdentity{});
  }
};
template <class T> constexpr bool kFloatingSum = std::is_floating_point_v<typename SumTypes<T>::acc>;

template <class T> void sum_kernel(const ReduceIter& it) {
  using S = SumTypes<T>;
  using Plain = SumOp<T, typename S::acc>;
  if constexpr (kFloatingSum<T>) reduce_kernel<WideSum<Plain>, T, typename S::out>(it, WideSum<Plain>{});
  else reduce_kernel<Plain, T, typename S::out>(it, Plain{});
}
// Floating products of contiguous runs in wide_fold's lanes too (a 256-long row: 3x PyTorch's time
// in reduce_contiguous's 8 scalar lanes). Integer products keep their wrapping multiply.
template <class Base> struct WideProd : Base {
  template <class T> typename Base::acc_t reduce_segment(const T* p, int64_t n, int64_t) const {
    using A = typename Base::acc_t;
    return wide_fold<A>(p, n, WideIdentity{}, WideTimes{}, A(1));
  }
};
template <class T> void prod_kernel(const ReduceIter& it) {
  using S = SumTypes<T>;
  using Plain = ProdOp<T, typename S::acc>;
  if constexpr (kFloatingSum<T>) reduce_kernel<WideProd<Plain>, T, typename S::out>(it, WideProd<Plain>{});
  else reduce_kernel<Plain, T, typename S::out>(it, Plain{});
}
template <class T> void mean_kernel(const ReduceIter& it) {
  using A = typename SumTypes<T>::acc;
  reduce_kernel<WideSum<MeanOp<T, A>>, T, T>(it, WideSum<MeanOp<T, A>>(it.n_red));
}
// The result of all/any is a ByteTensor for a ByteTensor (Torch7's masks), else a BoolTensor.
template <class T, bool kAll> void logical_kernel(const ReduceIter& it) {
  using R = reduce::LogicalResult<T>;
  reduce_kernel<LogicalOp<T, kAll>, T, R>(it, LogicalOp<T, kAll>{});
}
template <class T> void all_kernel(const ReduceIter& it) { logical_kernel<T, true>(it); }
template <class T> void any_kernel(const ReduceIter& it) { logical_kernel<T, false>(it); }

#define REG(op, T) TOCHA_REGISTER_KERNEL(op, cpu, DTypeOf<T>::value, &op##_kernel<T>);
#define REG_SUM(T) REG(sum, T)
#define REG_PROD(T) REG(prod, T)
#define REG_MEAN(T) REG(mean, T)
#define REG_ALL(T) REG(all, T)
#define REG_ANY(T) REG(any, T)

TOCHA_FOR_ALL_TYPES(REG_SUM)
TOCHA_FOR_ALL_TYPES(REG_PROD)
TOCHA_FOR_FLOAT_TYPES(REG_MEAN)
TOCHA_FOR_ALL_TYPES(REG_ALL)
TOCHA_FOR_ALL_TYPES(REG_ANY)

}  // namespace
}  // namespace cpu
}  // namespace tocha
