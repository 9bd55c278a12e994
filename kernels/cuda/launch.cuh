// Launch geometry shared by the CUDA kernels: block size and grid size for grid-stride loops.
#pragma once
#include <cstdint>

namespace tocha {
namespace cuda {

// Every elementwise kernel runs 256-thread blocks (its __launch_bounds__).
constexpr int kThreads = 256;
// Grid-stride loops need no more blocks than a few waves of a large GPU (H100: 132 SMs x 8 blocks
// of 256 threads resident); more blocks only add scheduling.
constexpr int64_t kMaxBlocks = 8192;

inline unsigned grid_for(int64_t n, int threads = kThreads) {
  int64_t b = (n + threads - 1) / threads;
  if (b < 1) b = 1;
  return unsigned(b < kMaxBlocks ? b : kMaxBlocks);
}

}  // namespace cuda
}  // namespace tocha
