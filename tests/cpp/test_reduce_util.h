// Helpers of the reduction, scan and sort tests: deterministic inputs of every dtype, strided
// views with the same values, and the slices along a dim that naive f64 references fold.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace reduce_test {

using namespace tocha;

const DType kAllTypes[] = {DType::f32, DType::f64, DType::f16, DType::bf16,
                           DType::i64, DType::i32, DType::u8,  DType::b8};

// Pseudo-random values exact in every dtype: 0/1 for bool, 0..9 for u8, -10..10 for integers,
// multiples of 1/64 in [-2, 2) for floats (exact even in bf16).
inline Tensor make_input(const DimVec& sizes, DType dt, uint32_t seed = 1) {
  Tensor t = empty(sizes, DType::f64);
  uint32_t s = seed * 2654435761u + 12345u;
  double* p = t.data<double>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    double u = double(s >> 8) / double(1u << 24);
    if (dt == DType::b8) p[i] = u < 0.5 ? 0 : 1;
    else if (dt == DType::u8) p[i] = std::floor(u * 10);
    else if (!is_floating(dt)) p[i] = std::floor(u * 21) - 10;
    else p[i] = std::floor(u * 256) / 64 - 2;
  }
  return to_dtype(t, dt);
}

// The same values as t in a non-contiguous view: a narrow of a wider tensor.
inline Tensor narrowed_copy(const Tensor& t) {
  DimVec big = t.sizes();
  big[big.size() - 1] += 3;
  Tensor wide = zeros(big, t.dtype());
  Tensor v = narrow(wide, -1, 1, t.size(t.dim() - 1));
  copy_(v, t);
  return v;
}

// The same values as t laid out in reverse dim order (a transposed contiguous tensor).
inline Tensor transposed_copy(const Tensor& t) {
  DimVec perm;
  for (int d = t.dim() - 1; d >= 0; --d) perm.push_back(d);
  return permute(clone(permute(t, perm)), perm);
}

// Contiguous, narrowed and transposed versions of the same values.
inline std::vector<Tensor> layouts(const Tensor& t) { return {t, narrowed_copy(t), transposed_copy(t)}; }

// Values in row-major order.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = item_at(t, i);
  return v;
}

// For each index of the other dims (row-major), the values along dim in order.
inline std::vector<std::vector<double>> slices(const Tensor& t, int dim) {
  std::vector<double> v = values(t);
  int64_t n = t.size(dim), inner = 1;
  for (int d = dim + 1; d < t.dim(); ++d) inner *= t.size(d);
  int64_t outer = n == 0 ? 0 : t.numel() / (n * inner);
  std::vector<std::vector<double>> out(size_t(outer * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < inner; ++j)
      for (int64_t i = 0; i < n; ++i) out[size_t(o * inner + j)].push_back(v[size_t((o * n + i) * inner + j)]);
  return out;
}

// Relative tolerance of a result stored in dtype dt.
inline double tolerance(DType dt) {
  if (dt == DType::f16) return 2e-3;
  if (dt == DType::bf16) return 1.6e-2;
  if (dt == DType::f32) return 2e-6;
  return 1e-12;
}

inline bool close(double got, double want, double rel) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= rel * std::fabs(want) + rel;
}

}  // namespace reduce_test
