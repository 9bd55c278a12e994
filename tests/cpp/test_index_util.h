// Helpers for the index-family tests (test_index*.cpp): deterministic fills, element access by
// coordinates, loops over shapes and the dtypes every test runs over.
#pragma once
#include <catch2/catch.hpp>
#include <functional>
#include <vector>
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace index_test {
using namespace tocha;

inline const std::vector<DType>& all_dtypes() {
  static const std::vector<DType> v = {DType::f32, DType::f64, DType::f16, DType::bf16,
                                       DType::i64, DType::i32, DType::u8,  DType::b8};
  return v;
}

// Small integers (exact in every dtype): [0, 2) for bool, [0, 9) for u8, [-4, 5) otherwise.
inline Tensor filled(const DimVec& sizes, DType dt, uint32_t seed = 1) {
  Tensor t = empty(sizes, dt);
  uint32_t s = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < t.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    int v = int((s >> 16) % 9);
    if (dt == DType::b8) v %= 2;
    else if (dt != DType::u8) v -= 4;
    set_item_at(t, i, v);
  }
  return t;
}

// A non-contiguous tensor of the given 2D+ size: a contiguous one with the first two dims swapped,
// transposed back.
inline Tensor strided(const DimVec& sizes, DType dt, uint32_t seed = 1) {
  DimVec s = sizes;
  std::swap(s[0], s[1]);
  Tensor t = transpose(filled(s, dt, seed), 0, 1);
  REQUIRE_FALSE(t.is_contiguous());
  return t;
}

inline Tensor longs(const std::vector<int64_t>& v, const DimVec& sizes) {
  Tensor t = empty(sizes, DType::i64);
  REQUIRE(int64_t(v.size()) == t.numel());
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}
inline Tensor longs(const std::vector<int64_t>& v) { return longs(v, DimVec{int64_t(v.size())}); }

inline int64_t linear_of(const DimVec& sizes, const DimVec& idx) {
  int64_t l = 0;
  for (int d = 0; d < sizes.size(); ++d) l = l * sizes[d] + idx[d];
  return l;
}
inline double at(const Tensor& t, const DimVec& idx) { return item_at(t, linear_of(t.sizes(), idx)); }

inline void for_each_index(const DimVec& shape, const std::function<void(const DimVec&)>& f) {
  int64_t n = shape_numel(shape);
  DimVec idx = DimVec::filled(shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(idx);
    for (int d = shape.size() - 1; d >= 0 && ++idx[d] == shape[d]; --d) idx[d] = 0;
  }
}

// Same sizes and the same value everywhere (values are small integers, so exact in every dtype).
inline void check_same(const Tensor& got, const Tensor& ref) {
  REQUIRE(got.sizes() == ref.sizes());
  for (int64_t i = 0; i < ref.numel(); ++i) {
    INFO("element " << i);
    REQUIRE(item_at(got, i) == item_at(ref, i));
  }
}

// The value of dtype dt that `v` becomes (bool: v != 0).
inline double as_dtype(double v, DType dt) { return dt == DType::b8 ? double(v != 0) : v; }

}  // namespace index_test
