// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): the
// counter-based generator of the CUDA random kernels, plus the per-device generator state
// (seed, offset). The block function is shared by host and device code, so the CPU tests check
// it against the Random123 known-answer vectors and the CUDA tests against host draws.
#pragma once
#include <cstdint>
#include <mutex>
#include "core/half.h"

namespace tocha {

struct Philox4 {
  uint32_t x[4];
};

// One Philox4x32-10 block: 4 random words for a 128-bit counter and a 64-bit key.
TOCHA_HD inline Philox4 philox4x32_10(Philox4 ctr, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    if (r > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    uint64_t p0 = uint64_t(0xD2511F53u) * ctr.x[0];
    uint64_t p1 = uint64_t(0xCD9E8D57u) * ctr.x[2];
    Philox4 n;
    n.x[0] = uint32_t(p1 >> 32) ^ ctr.x[1] ^ k0;
    n.x[1] = uint32_t(p1);
    n.x[2] = uint32_t(p0 >> 32) ^ ctr.x[3] ^ k1;
    n.x[3] = uint32_t(p0);
    ctr = n;
  }
  return ctr;
}

// Note [Philox streams]: element i of a random fill reads block number offset + i / per_block
// (counter = that 64-bit number, key = the 64-bit seed) and word(s) i % per_block of it, so the
// values depend only on (seed, offset, i): not on the launch configuration, the number of SMs or
// the tensor's layout (strided tensors are filled through a contiguous temporary). Each fill
// advances the device generator's offset by the blocks it used, so successive fills never
// overlap and the same seed replays the same sequence of fills.
TOCHA_HD inline Philox4 philox_block(uint64_t seed, uint64_t block) {
  Philox4 c{{uint32_t(block), uint32_t(block >> 32), 0u, 0u}};
  return philox4x32_10(c, uint32_t(seed), uint32_t(seed >> 32));
}

// The state of one device's generator (torch.cuda.manualSeed).
class PhiloxGenerator {
 public:
  // Seeds from the OS entropy source at first use (like the CPU generator).
  PhiloxGenerator();
  void manual_seed(uint64_t seed);
  uint64_t initial_seed();
  // Reserves `blocks` counter blocks and returns the seed and the first block to use.
  void reserve(uint64_t blocks, uint64_t* seed, uint64_t* offset);
  // The offset of the next fill (with the seed, the whole state).
  uint64_t offset();
  void set_state(uint64_t seed, uint64_t offset);
  // Both halves of the state under one lock.
  void get_state(uint64_t* seed, uint64_t* offset);

 private:
  std::mutex mutex_;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

// The generator of CUDA device `index` (created on first use).
PhiloxGenerator& cuda_generator(int index);
// Seeds every CUDA device generator created so far and the ones created later.
void cuda_manual_seed_all(uint64_t seed);

}  // namespace tocha
