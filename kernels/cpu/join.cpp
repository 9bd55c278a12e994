// CPU kernel of cat: block copies of contiguous inputs into a contiguous result, parallel over
// (row, input) blocks, or inside each input's single block when there is one row.
#include <algorithm>
#include <cstring>
#include "core/kernel_registry.h"
#include "core/ops/join.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> void cat_kernel(const CatArgs& a) {
  T* out = reinterpret_cast<T*>(a.out);
  if (a.outer == 1) {  // one row (cat along the first dim): split each input's block instead
    for (int k = 0; k < a.ninputs; ++k) {
      const T* in = reinterpret_cast<const T*>(a.in[k]);
      T* dst = out + a.in_offset[k];
      parallel_for(a.in_row[k], kGrainSize * 4, [&](int64_t b, int64_t e) {
        std::memcpy(dst + b, in + b, size_t(e - b) * sizeof(T));
      });
    }
    return;
  }
  const int64_t n = a.ninputs, units = a.outer * n;
  const int64_t avg = std::max<int64_t>(1, a.out_row / n);
  parallel_for(units, std::max<int64_t>(1, kGrainSize * 4 / avg), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t o = u / n;
      const int k = int(u % n);
      std::memcpy(out + o * a.out_row + a.in_offset[k], reinterpret_cast<const T*>(a.in[k]) + o * a.in_row[k],
                  size_t(a.in_row[k]) * sizeof(T));
    }
  });
}

#define REG_CAT(T) TOCHA_REGISTER_KERNEL(cat, cpu, DTypeOf<T>::value, &cat_kernel<T>);

TOCHA_FOR_ALL_TYPES(REG_CAT)

}  // namespace
}  // namespace cpu
}  // namespace tocha
