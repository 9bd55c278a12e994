// Convolution kernels' threading over the images of a batch (Note [Convolution threading] in
// kernels/cpu/conv.cpp): how many threads, and the per-thread image ranges.
#pragma once
#include <algorithm>
#include <cstdint>
#include <omp.h>

namespace tocha {
namespace cpu {

// Threads the batch is split over (1: one range, BLAS threads itself). See Note [Convolution threading].
inline int image_threads(int64_t n) {
  int t = omp_get_max_threads();
  if (t <= 1 || n < 2 || omp_in_parallel()) return 1;
  return int(std::min<int64_t>(t, n));
}

// Calls body(first, last, slot) for ranges of images; slot < nt indexes per-thread buffers.
// Returns the number of slots used (OpenMP may give fewer threads than asked); n >= nt, so every
// used slot gets at least one image.
template <class F> int over_images(int64_t n, int nt, const F& body) {
  if (nt <= 1) {
    body(int64_t(0), n, 0);
    return 1;
  }
  int used = 1;
#pragma omp parallel num_threads(nt)
  {
    int tid = omp_get_thread_num(), got = omp_get_num_threads();
    if (tid == 0) used = got;
    int64_t first = n * tid / got, last = n * (tid + 1) / got;
    if (first < last) body(first, last, tid);
  }
  return used;
}

}  // namespace cpu
}  // namespace tocha
