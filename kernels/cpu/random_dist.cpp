// CPU kernels of the one-word-per-value distributions: uniform, exponential, cauchy, geometric
// and bernoulli. Words are drawn serially, then transformed in parallel (Note [Random streams]).
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>
#include "core/kernel_registry.h"
#include "core/ops/random_dist.h"
#include "core/ops/random_kernels.h"
#include "kernels/cpu/parallel.h"

namespace tocha {
namespace cpu {
namespace {

template <class T> constexpr bool is_reduced() {
  return std::is_same<T, Half>::value || std::is_same<T, BFloat16>::value;
}

// Draws one word per element and stores f(word) into out[i]. With 4-byte elements the words are
// drawn into the output itself (each word where its value goes), else into a temporary.
template <class T, class F> void fill_words(void* out_, int64_t n, Generator& gen, const F& f) {
  T* out = static_cast<T*>(out_);
  std::unique_ptr<uint32_t[]> tmp;
  uint32_t* words;
  if constexpr (sizeof(T) == 4) {
    words = reinterpret_cast<uint32_t*>(out);
  } else {
    tmp.reset(new uint32_t[size_t(n)]);
    words = tmp.get();
  }
  gen.fill_u32(words, n);
  parallel_for(n, kGrainSize, [&](int64_t b, int64_t e) {
#pragma omp simd
    for (int64_t i = b; i < e; ++i) out[i] = f(words[i]);
  });
}

// The next representable value below v (toward -infinity).
template <class T> inline T step_down(T v) {
  if constexpr (is_reduced<T>()) {
    T r = v;
    r.bits = float(v) > 0 ? uint16_t(v.bits - 1) : (v.bits == 0 || v.bits == 0x8000) ? uint16_t(0x8001) : uint16_t(v.bits + 1);
    return r;
  } else {
    return std::nextafter(v, -std::numeric_limits<T>::infinity());
  }
}

// The largest T below b (uniform values stay in [a, b) although a + u * (b - a) can round up to
// b: uniform(1, 2) in float would give 2 once in 2^24 draws); a itself when a == b.
template <class T> inline T upper_limit(double a, double b) {
  if (!(a < b)) return T(static_cast<opmath_t<T>>(a));
  T hi = T(static_cast<opmath_t<T>>(b));
  while (double(opmath_t<T>(hi)) >= b) hi = step_down(hi);
  return hi;
}

// uniform {a, b}: doubles are Torch7's w / 2^32 * (b - a) + a; float types take the word's top
// 24 bits so that [0, 1) stays below 1 after rounding.
template <class T> void uniform_kernel(void* out, int64_t n, Generator& gen, const double* p) {
  if constexpr (std::is_same<T, double>::value) {
    const double a = p[0], d = p[1] - p[0], hi = upper_limit<double>(p[0], p[1]);
    fill_words<T>(out, n, gen, [=](uint32_t w) {
      double v = dist::u32_to_uniform(w) * d + a;
      return v < hi ? v : hi;
    });
  } else if constexpr (std::is_same<T, float>::value) {
    const float a = float(p[0]), d = float(p[1] - p[0]), hi = upper_limit<float>(p[0], p[1]);
    fill_words<T>(out, n, gen, [=](uint32_t w) {
      float v = dist::u32_to_uniform24(w) * d + a;
      return v < hi ? v : hi;
    });
  } else {
    const float a = float(p[0]), d = float(p[1] - p[0]);
    const T hi = upper_limit<T>(p[0], p[1]);
    const float hf = float(hi);
    fill_words<T>(out, n, gen, [=](uint32_t w) {
      T r = T(dist::u32_to_uniform24(w) * d + a);
      return float(r) > hf ? hi : r;
    });
  }
}

template <class T> void exponential_kernel(void* out, int64_t n, Generator& gen, const double* p) {
  const double lambda = p[0];
  fill_words<T>(out, n, gen, [=](uint32_t w) { return element_from<T>(dist::exponential(dist::u32_to_uniform(w), lambda)); });
}

template <class T> void cauchy_kernel(void* out, int64_t n, Generator& gen, const double* p) {
  const double median = p[0], sigma = p[1];
  fill_words<T>(out, n, gen, [=](uint32_t w) { return element_from<T>(dist::cauchy(dist::u32_to_uniform(w), median, sigma)); });
}

template <class T> void geometric_kernel(void* out, int64_t n, Generator& gen, const double* p) {
  const double prob = p[0];
  fill_words<T>(out, n, gen, [=](uint32_t w) { return element_from<T>(dist::geometric(dist::u32_to_uniform(w), prob)); });
}

template <class T> void bernoulli_kernel(void* out_, int64_t n, Generator& gen, double p, const double* probs) {
  if (probs) {
    // The element index is needed, so draw into a temporary and index both arrays.
    T* out = static_cast<T*>(out_);
    std::unique_ptr<uint32_t[]> words(new uint32_t[size_t(n)]);
    gen.fill_u32(words.get(), n);
    parallel_for(n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = T(int(dist::bernoulli(words[i], probs[i])));
    });
    return;
  }
  // int(bool) rather than a ?: so that the loop has no data-dependent branch.
  fill_words<T>(out_, n, gen, [=](uint32_t w) { return T(int(dist::bernoulli(w, p))); });
}

#define REG_FLOAT_DISTS(T)                                                                  \
  TOCHA_REGISTER_KERNEL(uniform, cpu, DTypeOf<T>::value, &uniform_kernel<T>);               \
  TOCHA_REGISTER_KERNEL(exponential, cpu, DTypeOf<T>::value, &exponential_kernel<T>);       \
  TOCHA_REGISTER_KERNEL(cauchy, cpu, DTypeOf<T>::value, &cauchy_kernel<T>);
#define REG_GEOMETRIC(T) TOCHA_REGISTER_KERNEL(geometric, cpu, DTypeOf<T>::value, &geometric_kernel<T>);
#define REG_BERNOULLI(T) TOCHA_REGISTER_KERNEL(bernoulli, cpu, DTypeOf<T>::value, &bernoulli_kernel<T>);

REG_FLOAT_DISTS(float)
REG_FLOAT_DISTS(double)
REG_FLOAT_DISTS(Half)
REG_FLOAT_DISTS(BFloat16)
TOCHA_FOR_NUMERIC_TYPES(REG_GEOMETRIC)
TOCHA_FOR_ALL_TYPES(REG_BERNOULLI)

}  // namespace
}  // namespace cpu
}  // namespace tocha
