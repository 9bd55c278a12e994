// The floor under bench/cuda.lua's tiny-op timings: what one kernel launch costs the host through
// the CUDA runtime alone, with no framework around it. Prints "launch_empty <ms>" (an empty kernel)
// and "launch_add1 <ms>" (a 1-element add taking a 128-byte parameter block, the size of our
// contiguous pointwise iterator), each the best mean of 5 runs of 20000 launches, synchronized
// before and after each run like H.best_cuda.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>

namespace {

__global__ void empty_kernel() {}

struct Params {
  float* out;
  const float* a;
  const float* b;
  long long n;
  char rest[96];
};

__global__ void add1_kernel(Params p) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < p.n) p.out[i] = p.a[i] + p.b[i];
}

template <class F> double best_ms(F launch, cudaStream_t s) {
  const int n = 20000;
  for (int i = 0; i < 100; ++i) launch();
  cudaStreamSynchronize(s);
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) launch();
    cudaStreamSynchronize(s);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / n;
    if (ms < best) best = ms;
  }
  return best;
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 0;
  }
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  float* buf = nullptr;
  cudaMalloc(&buf, 3 * sizeof(float));
  Params p{buf, buf + 1, buf + 2, 1, {}};
  std::printf("launch_empty %.6f\n", best_ms([&] { empty_kernel<<<1, 32, 0, s>>>(); }, s));
  std::printf("launch_add1 %.6f\n", best_ms([&] { add1_kernel<<<1, 256, 0, s>>>(p); }, s));
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(e));
  cudaFree(buf);
  cudaStreamDestroy(s);
  return 0;
}
