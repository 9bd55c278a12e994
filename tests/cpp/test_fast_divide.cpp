// Divider (kernels/cuda/fast_divide.cuh, Note [Division by a runtime divisor]): the CUDA pooling
// kernels' multiply-high division, run on the host, against plain division for small, large,
// power-of-two and random divisors and numerators up to 2^31 - 1.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>
#include "kernels/cuda/fast_divide.cuh"

using tocha::cuda::Divider;

TEST_CASE("fast divide: matches plain division below 2^31", "[fast_divide]") {
  const int64_t top = (int64_t(1) << 31) - 1;
  std::vector<int64_t> divisors = {1, 2, 3, 5, 7, 9, 14, 28, 196, 784, 1000, 3136, 65535, 65536, 65537,
                                   (1 << 30) - 1, 1 << 30, (1 << 30) + 1, top - 1, top};
  std::mt19937_64 rng(11);
  for (int k = 0; k < 200; ++k) divisors.push_back(int64_t(rng() % uint64_t(top)) + 1);
  for (int64_t d : divisors) {
    const Divider<uint32_t> fast(d);
    std::vector<int64_t> numerators = {0, 1, d - 1, d, d + 1, 2 * d - 1, top - 1, top, top - d, top / d * d};
    for (int k = 0; k < 2000; ++k) numerators.push_back(int64_t(rng() % uint64_t(top + 1)));
    for (int k = 0; k < 200; ++k) numerators.push_back(int64_t(rng() % 4096));
    for (int64_t n : numerators) {
      if (n < 0 || n > top) continue;
      const uint32_t q = fast.div(uint32_t(n));
      if (q != uint32_t(n / d)) FAIL("n=" << n << " d=" << d << " gave " << q);
    }
  }
  CHECK(Divider<int64_t>(7).div(int64_t(1) << 40) == (int64_t(1) << 40) / 7);
  CHECK(tocha::cuda::fits_fast_divide(top));
  CHECK_FALSE(tocha::cuda::fits_fast_divide(top + 1));
}
