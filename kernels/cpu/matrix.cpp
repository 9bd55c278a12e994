// CPU kernels of tril and triu: per row, a kept run of columns and a zeroed run, parallel over
// the rows of every matrix of the batch.
#include <algorithm>
#include <cstring>
#include "core/kernel_registry.h"
#include "core/ops/matrix.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> void copy_run(T* o, int64_t os, const T* x, int64_t xs, int64_t n) {
  if (o == x && os == xs) return;  // in place: the kept part is already there
  if (os == 1 && xs == 1) std::memcpy(o, x, size_t(n) * sizeof(T));
  else for (int64_t j = 0; j < n; ++j) o[j * os] = x[j * xs];
}

template <class T> void zero_run(T* o, int64_t os, int64_t n) {
  for (int64_t j = 0; j < n; ++j) o[j * os] = T(0);
}

template <class T, bool Lower> void triangle_kernel(const TriangleArgs& a) {
  const int64_t units = a.batch * a.rows;
  parallel_for(units, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, a.cols)), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      int64_t m = u / a.rows, i = u % a.rows;
      int64_t oo = i * a.out_rs, io = i * a.in_rs;
      for (int d = a.nbatch_dims - 1; d >= 0; --d) {
        int64_t c = m % a.batch_size[d];
        m /= a.batch_size[d];
        oo += c * a.out_batch_stride[d];
        io += c * a.in_batch_stride[d];
      }
      T* o = reinterpret_cast<T*>(a.out) + oo;
      const T* x = reinterpret_cast<const T*>(a.in) + io;
      // Columns [0, split) and [split, cols): tril keeps the first run, triu the second.
      int64_t split = std::clamp<int64_t>(Lower ? i + a.k + 1 : i + a.k, 0, a.cols);
      if (Lower) {
        copy_run(o, a.out_cs, x, a.in_cs, split);
        zero_run(o + split * a.out_cs, a.out_cs, a.cols - split);
      } else {
        zero_run(o, a.out_cs, split);
        copy_run(o + split * a.out_cs, a.out_cs, x + split * a.in_cs, a.in_cs, a.cols - split);
      }
    }
  });
}

#define REG_TRIANGLE(T)                                                                  \
  TOCHA_REGISTER_KERNEL(tril, cpu, DTypeOf<T>::value, (&triangle_kernel<T, true>));     \
  TOCHA_REGISTER_KERNEL(triu, cpu, DTypeOf<T>::value, (&triangle_kernel<T, false>));

TOCHA_FOR_ALL_TYPES(REG_TRIANGLE)

}  // namespace
}  // namespace cpu
}  // namespace tocha
