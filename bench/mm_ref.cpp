// Reference for bench/mm.lua: raw cblas_sgemm on row-major n x n float matrices, timed the same
// way mm.lua times torch.mm. Usage: bench_mm_ref [threads [n [trials]]] (default: n = 64, 256 and
// 1024, 5 trials). Prints one "mm_ref <n> <seconds per call>" line per size (mm.lua parses them).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cblas.h>
#include <omp.h>

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best over `trials` of the mean time of `calls` sgemm calls (C = A B), after one warm-up call.
double time_sgemm(int n, int calls, int trials) {
  // 64-byte aligned like Tocha's CPU allocator, so both sides see the same memory layout.
  size_t bytes = size_t(n) * size_t(n) * sizeof(float);
  auto* a = static_cast<float*>(std::aligned_alloc(64, bytes));
  auto* b = static_cast<float*>(std::aligned_alloc(64, bytes));
  auto* c = static_cast<float*>(std::aligned_alloc(64, bytes));
  for (size_t i = 0; i < size_t(n) * size_t(n); ++i) {
    a[i] = float(i % 7) * 0.25f - 0.5f;
    b[i] = float(i % 5) * 0.5f - 1.0f;
    c[i] = 0;
  }
  auto run = [&] { cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n); };
  run();
  double best = 1e30;
  for (int t = 0; t < trials; ++t) {
    double start = now();
    for (int i = 0; i < calls; ++i) run();
    double per_call = (now() - start) / calls;
    if (per_call < best) best = per_call;
  }
  std::free(a);
  std::free(b);
  std::free(c);
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : omp_get_max_threads();
  if (threads < 1) threads = 1;
  // Same setting as torch.setnumthreads: one OpenMP pool shared with OpenBLAS.
  omp_set_num_threads(threads);
  openblas_set_num_threads(threads);
  std::vector<int> sizes = {64, 256, 1024};
  if (argc > 2) sizes = {std::atoi(argv[2])};
  int trials = argc > 3 ? std::atoi(argv[3]) : 5;
  if (trials < 1) trials = 1;
  std::printf("# raw cblas_sgemm, %d threads (best of %d trials; seconds per call)\n", threads, trials);
  for (int n : sizes) {
    // About 4 GFLOP of work per trial.
    double flops = 2.0 * n * n * n;
    int calls = int(4e9 / flops) + 1;
    std::printf("mm_ref %d %.9e\n", n, time_sgemm(n, calls, trials));
    std::fflush(stdout);
  }
  return 0;
}
