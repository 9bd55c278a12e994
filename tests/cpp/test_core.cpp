// Core: dtypes and promotion, shapes and broadcasting, storage accounting, views sharing storage,
// and the pointwise kernels against naive f64 references on strided and broadcast inputs.
#include <catch2/catch.hpp>
#include <cmath>
#include "core/memory.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"
#include "core/ops/views.h"

using namespace tocha;

namespace {
Tensor arange_tensor(const DimVec& sizes, DType dt, double start = 0, double step = 1) {
  Tensor t = empty(sizes, dt);
  for (int64_t i = 0; i < t.numel(); ++i) set_item_at(t, i, start + step * double(i));
  return t;
}
}  // namespace

TEST_CASE("dtype sizes, names and promotion", "[dtype]") {
  CHECK(dtype_size(DType::f32) == 4);
  CHECK(dtype_size(DType::bf16) == 2);
  CHECK(std::string(dtype_tensor_name(DType::u8)) == "torch.ByteTensor");
  CHECK(promote_types(DType::i32, DType::f32) == DType::f32);
  CHECK(promote_types(DType::u8, DType::i64) == DType::i64);
  CHECK(promote_types(DType::f16, DType::bf16) == DType::f32);
  CHECK(promote_types(DType::b8, DType::u8) == DType::u8);
  CHECK(promote_types(DType::f64, DType::i64) == DType::f64);
  CHECK(promote_with_scalar(DType::i64, false, false) == default_float_dtype());
  CHECK(promote_with_scalar(DType::i64, true, false) == DType::i64);
  CHECK(promote_with_scalar(DType::f16, false, false) == DType::f16);
  CHECK(promote_with_scalar(DType::b8, true, false) == DType::i64);
  CHECK_FALSE(can_cast(DType::f32, DType::i64));
  CHECK(can_cast(DType::i64, DType::f32));
  CHECK_FALSE(can_cast(DType::i32, DType::b8));
}

TEST_CASE("half and bfloat16 conversions round to nearest even", "[dtype]") {
  for (float f : {0.0f, 1.0f, -2.5f, 65504.0f, 1e-7f, 3.14159f, 1e5f}) {
    float h = float(Half(f)), b = float(BFloat16(f));
    if (std::fabs(f) <= 65504.0f) CHECK(std::fabs(h - f) <= std::fabs(f) * 1e-3f + 1e-7f);
    else CHECK(std::isinf(h));
    CHECK(std::fabs(b - f) <= std::fabs(f) * 8e-3f);
  }
  CHECK(std::isnan(float(Half(NAN))));
  CHECK(std::isnan(float(BFloat16(NAN))));
  CHECK(Half(1.0f).bits == 0x3c00);
  CHECK(BFloat16(1.0f).bits == 0x3f80);
}

TEST_CASE("branch-free half conversions match the branchy ones bit for bit", "[dtype]") {
  // Note [Branch-free half conversions] (core/half.h); checked over all 2^32 floats once, here
  // over every sign and exponent with the mantissas around each rounding position, and every half.
  int64_t bad = 0;
  for (uint32_t se = 0; se < 512; ++se)
    for (int k = 0; k < 23; ++k)
      for (uint32_t m : {0u, 1u, 1u << k, (1u << k) - 1, (1u << k) + 1, 3u << k, 0x7fffffu, 0x400000u}) {
        const float f = bits_float((se << 23) | (m & 0x7fffffu));
        bad += float_to_half_bits(f) != float_to_half_bits_select(f);
        bad += float_to_bf16_bits(f) != float_to_bf16_bits_select(f);
      }
  for (uint64_t i = 0; i < (uint64_t(1) << 32); i += 65521) {  // a prime stride over everything
    const float f = bits_float(uint32_t(i));
    bad += float_to_half_bits(f) != float_to_half_bits_select(f);
    bad += float_to_bf16_bits(f) != float_to_bf16_bits_select(f);
  }
  for (uint32_t h = 0; h < 65536; ++h)
    bad += float_bits(half_bits_to_float(uint16_t(h))) != float_bits(half_bits_to_float_select(uint16_t(h)));
  CHECK(bad == 0);
}

TEST_CASE("shapes broadcast with NumPy rules", "[shape]") {
  DimVec out;
  REQUIRE(broadcast_shapes({2, 1, 3}, {4, 1}, &out));
  CHECK(out == DimVec({2, 4, 3}));
  CHECK_FALSE(broadcast_shapes({2, 3}, {4, 3}, &out));
  CHECK(contiguous_strides({2, 3, 4}) == DimVec({12, 4, 1}));
  CHECK(shape_str({2, 3}) == "2x3");
  CHECK_THROWS_WITH(wrap_dim(3, 2, "sum"), "[sum] dimension 4 out of range for a 2D tensor");
}

TEST_CASE("storage memory is counted and aligned", "[storage]") {
  int64_t before = memory_stats(DeviceType::cpu).live_bytes;
  {
    Tensor t = empty({100, 10}, DType::f64);
    CHECK(reinterpret_cast<uintptr_t>(t.raw_data()) % 64 == 0);
    CHECK(memory_stats(DeviceType::cpu).live_bytes - before == 8000);
  }
  CHECK(memory_stats(DeviceType::cpu).live_bytes == before);
}

TEST_CASE("views share storage and keep geometry", "[views]") {
  Tensor t = arange_tensor({3, 4}, DType::f32);
  Tensor n = narrow(t, 1, 1, 2);
  CHECK(n.shares_storage(t));
  CHECK(n.sizes() == DimVec({3, 2}));
  CHECK(item_at(n, 0) == 1);
  Tensor tr = transpose(t, 0, 1);
  CHECK_FALSE(tr.is_contiguous());
  CHECK(item_at(tr, 1) == 4);
  Tensor s = select(t, 0, 2);
  CHECK(item_at(s, 3) == 11);
  Tensor v = view(t, {2, -1});
  CHECK(v.sizes() == DimVec({2, 6}));
  CHECK_THROWS_WITH(view(tr, {12}), Catch::Contains("[view] cannot view a non-contiguous tensor"));
  Tensor e = expand(select(t, 0, 0).impl() ? unsqueeze(select(t, 0, 0), 0) : t, {5, 4});
  CHECK(e.stride(0) == 0);
  CHECK(item_at(e, 4 * 4 + 3) == 3);
  set_item_at(n, 0, 100);
  CHECK(item_at(t, 1) == 100);
}

TEST_CASE("pointwise ops match f64 references on strided and broadcast inputs", "[pointwise]") {
  Tensor a = arange_tensor({4, 5}, DType::f32, -2.0, 0.25);
  Tensor b = arange_tensor({5}, DType::f32, 0.5, 0.5);
  Tensor at = transpose(clone(transpose(a, 0, 1)), 0, 1);  // same values, non-contiguous
  REQUIRE_FALSE(at.is_contiguous());
  Tensor c = binary(OpId::mul, at, b);
  for (int64_t i = 0; i < 20; ++i)
    CHECK(item_at(c, i) == Approx((-2.0 + 0.25 * double(i)) * (0.5 + 0.5 * double(i % 5))));
  Tensor e = unary(OpId::exp, at);
  for (int64_t i = 0; i < 20; ++i) CHECK(item_at(e, i) == Approx(std::exp(-2.0 + 0.25 * double(i))).epsilon(1e-6));
  Tensor l = binary(OpId::lt, a, Scalar(0.0));
  CHECK(l.dtype() == DType::u8);
  CHECK(item_at(l, 0) == 1);
  CHECK(item_at(l, 19) == 0);
}

TEST_CASE("integer and mixed dtype arithmetic promotes", "[pointwise]") {
  Tensor i = arange_tensor({4}, DType::i64, 1);
  Tensor f = binary(OpId::div, i, Scalar(2.0));
  CHECK(f.dtype() == default_float_dtype());
  CHECK(item_at(f, 0) == 0.5);
  Tensor s = binary(OpId::add, i, Scalar(2.0));
  CHECK(s.dtype() == DType::i64);
  CHECK_THROWS_WITH(binary(OpId::fmod, i, Scalar(0.0)), "[fmod] integer division by zero");
  Tensor big = full({3}, 2, DType::f64);
  CHECK(binary(OpId::add, i, narrow(big, 0, 0, 1)).dtype() == DType::f64);
  CHECK_THROWS_WITH(unary_out(OpId::sqrt, i, i), Catch::Contains("cannot be written into a torch.LongTensor"));
}

TEST_CASE("in-place ops and partial overlap give correct results", "[pointwise]") {
  Tensor t = arange_tensor({6}, DType::f64);
  binary_out(OpId::add, narrow(t, 0, 1, 5), narrow(t, 0, 1, 5), narrow(t, 0, 0, 5));
  // every element reads the old value of its left neighbour
  double expect[6] = {0, 1, 3, 5, 7, 9};
  for (int i = 0; i < 6; ++i) CHECK(item_at(t, i) == expect[i]);
  Tensor ex = expand(full({1}, 1, DType::f32), {4});
  CHECK_THROWS_WITH(fill_(ex, 2), Catch::Contains("overlap"));
}

TEST_CASE("reduced-precision types compute through float", "[pointwise]") {
  Tensor h = to_dtype(arange_tensor({5}, DType::f32, 0.5), DType::f16);
  Tensor r = binary(OpId::mul, h, h);
  CHECK(r.dtype() == DType::f16);
  CHECK(item_at(r, 2) == 6.25);
  Tensor bf = to_dtype(h, DType::bf16);
  CHECK(item_at(unary(OpId::sqrt, bf), 3) == Approx(std::sqrt(3.5)).epsilon(1e-2));
}

TEST_CASE("large pointwise ops run in parallel and match serial results", "[pointwise]") {
  const int64_t n = 1 << 20;
  Tensor a = arange_tensor({n}, DType::f32, 0, 1e-6);
  Tensor s = unary(OpId::sin, a);
  for (int64_t i : {int64_t(0), n / 3, n - 1})
    CHECK(item_at(s, i) == Approx(std::sin(float(double(i) * 1e-6))).margin(1e-6));
}
