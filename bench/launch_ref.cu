// The floor under bench/cuda.lua's tiny-op timings: what one kernel launch costs the host through
// the CUDA runtime alone, with no framework around it. Prints "launch_empty <ms>" (an empty kernel)
// and "launch_add1 <ms>" (a 1-element add taking a 128-byte parameter block, the size of our
// contiguous pointwise iterator), each the best mean of 5 runs of 20000 launches, synchronized
// before and after each run like H.best_cuda; "launch_add1_driver" (the same through the driver's
// cuLaunchKernel) and "launch_add1_host" (the host's time per launch alone, not waiting for the GPU).
#include <cuda.h>
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
  // The same launch through the driver's cuLaunchKernel, skipping the runtime's per-launch work
  // (context and stub lookup): whether a driver-level launch path could lower the floor.
  using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                CUstream, void**, void**);
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found;
  cudaFunction_t fn = nullptr;
  cudaKernel_t kern = nullptr;
  if (cudaGetDriverEntryPointByVersion("cuLaunchKernel", &entry, 12000, cudaEnableDefault, &found) == cudaSuccess &&
      found == cudaDriverEntryPointSuccess && cudaGetFuncBySymbol(&fn, reinterpret_cast<const void*>(add1_kernel)) == cudaSuccess &&
      cudaGetKernel(&kern, reinterpret_cast<const void*>(add1_kernel)) == cudaSuccess) {
    LaunchFn launch = reinterpret_cast<LaunchFn>(entry);
    void* args[] = {&p};
    // The context's CUfunction, and the context-less CUkernel (what Tocha caches: Note [Driver
    // launches]), whose context comes from the stream.
    const struct { const char* name; CUfunction f; } handles[] = {
        {"launch_add1_driver", reinterpret_cast<CUfunction>(fn)},
        {"launch_add1_driver_kernel", reinterpret_cast<CUfunction>(kern)}};
    for (const auto& h : handles) {
      // A failing launch returns at once: check one before timing, or the row would be a false floor.
      CUresult r = launch(h.f, 1, 1, 1, 256, 1, 1, 0, reinterpret_cast<CUstream>(s), args, nullptr);
      if (r != CUDA_SUCCESS || cudaStreamSynchronize(s) != cudaSuccess) {
        std::printf("error: %s: cuLaunchKernel returned %d\n", h.name, int(r));
        continue;
      }
      std::printf("%s %.6f\n", h.name, best_ms([&] {
        launch(h.f, 1, 1, 1, 256, 1, 1, 0, reinterpret_cast<CUstream>(s), args, nullptr);
      }, s));
    }
  }
  // Host time alone: 256 launches (fewer than the launch queue holds) timed without waiting for
  // the GPU, best of 200 rounds. Below launch_add1, the GPU's own pace sets the floor.
  double host_best = 1e30;
  for (int round = 0; round < 200; ++round) {
    cudaStreamSynchronize(s);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 256; ++i) add1_kernel<<<1, 256, 0, s>>>(p);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / 256;
    if (ms < host_best) host_best = ms;
  }
  cudaStreamSynchronize(s);
  std::printf("launch_add1_host %.6f\n", host_best);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) std::printf("error: %s\n", cudaGetErrorString(e));
  cudaFree(buf);
  cudaStreamDestroy(s);
  return 0;
}
