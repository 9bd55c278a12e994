// Helpers of the convolution and pooling tests (test_conv*.cpp, test_pool.cpp): deterministic
// values, non-contiguous copies, flat f64 readouts and the naive N-d convolution reference.
#pragma once
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>
#include "core/ops/conv.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

namespace tocha {
namespace testconv {

// Values in (-1, 1) from a fixed linear congruential sequence.
inline Tensor reals(const DimVec& sizes, DType dt, uint32_t seed) {
  Tensor t = empty(sizes, dt);
  for (int64_t i = 0; i < t.numel(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    set_item_at(t, i, double(seed >> 8) / double(1 << 23) - 1.0);
  }
  return t;
}

// The same values in a non-contiguous layout: every other element of a wider last dim.
inline Tensor strided(const Tensor& t) {
  DimVec wide = t.sizes();
  wide[wide.size() - 1] *= 2;
  Tensor w = zeros(wide, t.dtype());
  DimVec st = contiguous_strides(wide);
  st[st.size() - 1] = 2;
  Tensor v = as_strided(w, t.sizes(), st, 0);
  copy_(v, t);
  return v;
}

inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = item_at(t, i);
  return v;
}

inline double max_diff(const Tensor& t, const std::vector<double>& ref) {
  REQUIRE(size_t(t.numel()) == ref.size());
  double d = 0;
  for (int64_t i = 0; i < t.numel(); ++i) d = std::max(d, std::fabs(item_at(t, i) - ref[size_t(i)]));
  return d;
}

inline double dot_all(const Tensor& a, const Tensor& b) {
  REQUIRE(a.numel() == b.numel());
  double s = 0;
  for (int64_t i = 0; i < a.numel(); ++i) s += item_at(a, i) * item_at(b, i);
  return s;
}

inline double tolerance(DType dt) { return dt == DType::f32 ? 2e-5 : 1e-12; }

// A convolution case: a batch (or one sample when !batched) with nd spatial dims.
struct Case {
  int nd = 2;
  int64_t N = 2, C = 4, O = 6;
  DimVec in, k;
  ConvOptions o;
  bool bias = true, batched = true;
};

inline DimVec input_shape(const Case& c) {
  DimVec s;
  if (c.batched) s.push_back(c.N);
  s.push_back(c.C);
  for (int64_t v : c.in) s.push_back(v);
  return s;
}
inline DimVec weight_shape(const Case& c) {
  DimVec s{c.O, c.C / c.o.groups};
  for (int64_t v : c.k) s.push_back(v);
  return s;
}

// y = conv(x, w) + b computed with loops in f64 over any layouts (1-3 spatial dims).
inline std::vector<double> ref_conv(const Case& c, const Tensor& x, const Tensor& w, const Tensor* b, DimVec* shape) {
  const int nd = c.nd, off = 3 - nd;
  int64_t in[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  for (int i = 0; i < nd; ++i) {
    in[off + i] = c.in[i];
    k[off + i] = c.k[i];
    s[off + i] = c.o.stride[i];
    p[off + i] = c.o.padding[i];
    d[off + i] = c.o.dilation[i];
    out[off + i] = (c.in[i] + 2 * c.o.padding[i] - c.o.dilation[i] * (c.k[i] - 1) - 1) / c.o.stride[i] + 1;
  }
  *shape = DimVec();
  if (c.batched) shape->push_back(c.N);
  shape->push_back(c.O);
  for (int i = 0; i < nd; ++i) shape->push_back(out[off + i]);
  std::vector<double> xv = values(x), wv = values(w), r;
  const int64_t N = c.batched ? c.N : 1, Cg = c.C / c.o.groups, Og = c.O / c.o.groups;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < c.O; ++o)
      for (int64_t z = 0; z < out[0]; ++z)
        for (int64_t y = 0; y < out[1]; ++y)
          for (int64_t q = 0; q < out[2]; ++q) {
            double acc = b ? item_at(*b, o) : 0.0;
            const int64_t g = o / Og;
            for (int64_t ci = 0; ci < Cg; ++ci)
              for (int64_t a = 0; a < k[0]; ++a)
                for (int64_t e = 0; e < k[1]; ++e)
                  for (int64_t f = 0; f < k[2]; ++f) {
                    int64_t iz = z * s[0] - p[0] + a * d[0], iy = y * s[1] - p[1] + e * d[1];
                    int64_t ix = q * s[2] - p[2] + f * d[2];
                    if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1] || ix < 0 || ix >= in[2]) continue;
                    int64_t xi = (((n * c.C + g * Cg + ci) * in[0] + iz) * in[1] + iy) * in[2] + ix;
                    int64_t wi = (((o * Cg + ci) * k[0] + a) * k[1] + e) * k[2] + f;
                    acc += xv[size_t(xi)] * wv[size_t(wi)];
                  }
            r.push_back(acc);
          }
  return r;
}

}  // namespace testconv
}  // namespace tocha
