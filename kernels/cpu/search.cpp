// CPU kernel of searchsorted (core/ops/search.h's SearchArgs): one binary search per value
// (kernels/search_ops.h, shared with CUDA), values split over the OpenMP pool.
#include "core/kernel_registry.h"
#include "core/ops/search.h"
#include "kernels/cpu/parallel.h"
#include "kernels/search_ops.h"

namespace tocha {
namespace cpu {
namespace {

template <class T, class O, bool kRight, bool kSorter> void search_values(const SearchArgs& a) {
  using K = opmath_t<T>;
  const T* seq = static_cast<const T*>(a.seq);
  const T* values = static_cast<const T*>(a.values);
  O* out = static_cast<O*>(a.out);
  // A search costs about log2(len) steps, so fewer values than a pointwise loop's grain fill a thread.
  int64_t steps = 1;
  for (int64_t n = a.seq_len; n > 0; n >>= 1) ++steps;
  const int64_t grain = kGrainSize / steps > 1024 ? kGrainSize / steps : 1024;
  parallel_for(a.n_values, grain, [&](int64_t b, int64_t e) {
    int64_t row = b / a.per_row, left = a.per_row - b % a.per_row;  // values left in this row
    for (int64_t i = b; i < e; ++i) {
      if (left == 0) ++row, left = a.per_row;
      --left;
      const int64_t* s = kSorter ? a.sorter + row * a.row_stride : nullptr;
      out[i] = O(search_position<kRight, kSorter>(seq + row * a.row_stride, s, a.seq_len, K(values[i])) + a.base);
    }
  });
}

template <class T, class O> void search_as(const SearchArgs& a) {
  if (a.sorter) a.right ? search_values<T, O, true, true>(a) : search_values<T, O, false, true>(a);
  else a.right ? search_values<T, O, true, false>(a) : search_values<T, O, false, false>(a);
}

template <class T> void searchsorted_kernel(const SearchArgs& a) {
  if (a.out_int32) search_as<T, int32_t>(a);
  else search_as<T, int64_t>(a);
}

#define REG(T) TOCHA_REGISTER_KERNEL(searchsorted, cpu, DTypeOf<T>::value, &searchsorted_kernel<T>);
TOCHA_FOR_ALL_TYPES(REG)

}  // namespace
}  // namespace cpu
}  // namespace tocha
