// CPU threading: one OpenMP pool shared with OpenBLAS (Note [One thread pool] in CMakeLists.txt).
// parallel_for splits a range over the pool when it is worth it and runs inline otherwise.
#pragma once
#include <cstdint>
#include <omp.h>

namespace tocha {
namespace cpu {

// Elements below which a pointwise loop runs on one thread (PyTorch uses the same grain).
constexpr int64_t kGrainSize = 32768;

void set_num_threads(int n);  // also sets OpenBLAS's thread count
int get_num_threads();
int num_cores();

// Calls f(begin, end) on contiguous sub-ranges of [0, n), in parallel when n > grain.
template <class F> void parallel_for(int64_t n, int64_t grain, const F& f) {
  if (n <= 0) return;
  if (n <= grain) {  // the common small case: no OpenMP calls at all
    f(int64_t(0), n);
    return;
  }
  int max_threads = omp_get_max_threads();
  if (max_threads <= 1 || omp_in_parallel()) {
    f(int64_t(0), n);
    return;
  }
  int64_t want = (n + grain - 1) / grain;
  int nthreads = want < max_threads ? int(want) : max_threads;
#pragma omp parallel num_threads(nthreads)
  {
    int tid = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t chunk = (n + nt - 1) / nt;
    int64_t b = tid * chunk, e = b + chunk < n ? b + chunk : n;
    if (b < e) f(b, e);
  }
}

}  // namespace cpu
}  // namespace tocha
