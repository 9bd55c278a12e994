// CPU kernels that draw integers: random (Torch7's modulo stream), randperm (Torch7's
// Fisher-Yates) and multinomial (one uniform per sample, searched in a sum tree).
#include <memory>
#include <type_traits>
#include <vector>
#include "core/kernel_registry.h"
#include "core/ops/random_dist.h"
#include "core/ops/random_kernels.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

// Integers in [lo, lo + range): one word per element, or two when the range exceeds 2^32.
template <class T> void random_kernel(void* out_, int64_t n, Generator& gen, int64_t lo, uint64_t range) {
  T* out = static_cast<T*>(out_);
  const int wpe = dist::words_for_range(range);
  std::unique_ptr<uint32_t[]> tmp;
  uint32_t* words;
  if (sizeof(T) == size_t(4 * wpe)) {
    words = reinterpret_cast<uint32_t*>(out);  // each element's words sit where its value goes
  } else {
    tmp.reset(new uint32_t[size_t(n * wpe)]);
    words = tmp.get();
  }
  gen.fill_u32(words, n * wpe);
  parallel_for(n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      uint32_t w[2] = {words[i * wpe], wpe == 2 ? words[i * wpe + 1] : 0u};
      out[i] = element_from<T>(dist::random_in_range(w, lo, range));
    }
  });
}

// Torch7's randperm: identity, then swap element i with i + (word % (n - i)) for i < n - 1.
template <class T> void randperm_kernel(void* out_, int64_t n, Generator& gen, int64_t base) {
  T* out = static_cast<T*>(out_);
  std::vector<int64_t> perm(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) perm[size_t(i)] = i;
  {
    auto lock = gen.lock();
    for (int64_t i = 0; i + 1 < n; ++i) {
      uint64_t range = uint64_t(n - i);
      uint32_t w[2] = {gen.next_u32_locked(), 0u};
      if (dist::words_for_range(range) == 2) w[1] = gen.next_u32_locked();
      int64_t z = dist::random_in_range(w, 0, range);
      std::swap(perm[size_t(i)], perm[size_t(i + z)]);
    }
  }
  for (int64_t i = 0; i < n; ++i) out[i] = element_from<T>(perm[size_t(i)] + base);
}

// A complete binary tree of partial sums over k weights: leaves at [p, p + k), node i = 2i + 2i+1.
// Sums are recomputed from the children on update, so a removed category is exactly 0 and a
// descent never ends on it.
class SumTree {
 public:
  template <class T> void build(const T* w, int64_t k) {
    p_ = 1;
    while (p_ < k) p_ *= 2;
    node_.assign(size_t(2 * p_), 0.0);
    for (int64_t j = 0; j < k; ++j) node_[size_t(p_ + j)] = double(opmath_t<T>(w[j]));
    for (int64_t i = p_ - 1; i >= 1; --i) node_[size_t(i)] = node_[size_t(2 * i)] + node_[size_t(2 * i + 1)];
  }
  // The category whose cumulative range holds u * total (u in [0, 1)); always a positive weight.
  int64_t find(double u) const {
    double x = u * node_[1];
    int64_t i = 1;
    while (i < p_) {
      double left = node_[size_t(2 * i)], right = node_[size_t(2 * i + 1)];
      if (x < left || right <= 0) {
        i = 2 * i;
      } else {
        x -= left;
        i = 2 * i + 1;
      }
    }
    return i - p_;
  }
  void remove(int64_t j) {
    int64_t i = p_ + j;
    node_[size_t(i)] = 0;
    for (i /= 2; i >= 1; i /= 2) node_[size_t(i)] = node_[size_t(2 * i)] + node_[size_t(2 * i + 1)];
  }

 private:
  int64_t p_ = 1;
  std::vector<double> node_;
};

// One word per sample (Torch7's uniform), drawn up front for all rows; rows then run in parallel.
template <class T>
void multinomial_kernel(int64_t* out, const void* probs_, int64_t rows, int64_t k, int64_t n, bool replacement,
                        int64_t base, Generator& gen) {
  const T* probs = static_cast<const T*>(probs_);
  std::unique_ptr<uint32_t[]> words(new uint32_t[size_t(rows * n)]);
  gen.fill_u32(words.get(), rows * n);
  parallel_for(rows, 1, [&](int64_t b, int64_t e) {
    SumTree tree;
    for (int64_t r = b; r < e; ++r) {
      tree.build(probs + r * k, k);
      for (int64_t s = 0; s < n; ++s) {
        int64_t j = tree.find(dist::u32_to_uniform(words[size_t(r * n + s)]));
        out[r * n + s] = j + base;
        if (!replacement) tree.remove(j);
      }
    }
  });
}

#define REG_INDEX_TYPES(T)                                                              \
  TOCHA_REGISTER_KERNEL(random, cpu, DTypeOf<T>::value, &random_kernel<T>);             \
  TOCHA_REGISTER_KERNEL(randperm, cpu, DTypeOf<T>::value, &randperm_kernel<T>);
#define REG_MULTINOMIAL(T) TOCHA_REGISTER_KERNEL(multinomial, cpu, DTypeOf<T>::value, &multinomial_kernel<T>);

TOCHA_FOR_NUMERIC_TYPES(REG_INDEX_TYPES)
TOCHA_REGISTER_KERNEL(random, cpu, DType::b8, &random_kernel<bool>);
REG_MULTINOMIAL(float)
REG_MULTINOMIAL(double)
REG_MULTINOMIAL(Half)
REG_MULTINOMIAL(BFloat16)

}  // namespace
}  // namespace cpu
}  // namespace tocha
