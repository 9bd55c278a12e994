// maskedFill / maskedCopy / maskedSelect / nonzero against naive row-major loops: every dtype,
// Byte and Bool masks, broadcast and same-element-count masks, strided tensors and sizes that
// span several scan chunks.
#include "core/ops/index_mask.h"
#include "test_index_util.h"
#include "tocha.h"

using namespace tocha;
using namespace index_test;

namespace {

// A mask of dtype dt (u8 or b8) with a pseudo-random pattern, about one element in three true.
Tensor random_mask(const DimVec& sizes, DType dt, uint32_t seed) {
  Tensor m = empty(sizes, dt);
  uint32_t s = seed;
  for (int64_t i = 0; i < m.numel(); ++i) {
    s = s * 1664525u + 1013904223u;
    m.data<uint8_t>()[i] = ((s >> 16) % 3) == 0;
  }
  return m;
}

}  // namespace

TEST_CASE("maskedSelect and maskedFill follow row-major order for every dtype", "[index][mask]") {
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    for (DType mdt : {DType::u8, DType::b8}) {
      for (bool contiguous : {true, false}) {
        Tensor x = contiguous ? filled({5, 6, 3}, dt) : strided({5, 6, 3}, dt);
        Tensor m = contiguous ? random_mask({5, 6, 3}, mdt, 11) : transpose(random_mask({6, 5, 3}, mdt, 11), 0, 1);
        Tensor sel = masked_select(x, m);
        std::vector<double> expect;
        for (int64_t i = 0; i < x.numel(); ++i)
          if (item_at(m, i) != 0) expect.push_back(item_at(x, i));
        REQUIRE(sel.sizes() == DimVec({int64_t(expect.size())}));
        for (size_t i = 0; i < expect.size(); ++i) REQUIRE(item_at(sel, int64_t(i)) == expect[i]);

        Tensor f = contiguous ? clone(x) : transpose(clone(transpose(x, 0, 1)), 0, 1);
        masked_fill_(f, m, 1);
        for (int64_t i = 0; i < x.numel(); ++i)
          REQUIRE(item_at(f, i) == (item_at(m, i) != 0 ? 1.0 : item_at(x, i)));
      }
    }
  }
}

TEST_CASE("masks broadcast (PyTorch) or match the element count (Torch7)", "[index][mask]") {
  Tensor x = filled({3, 4}, DType::f32);
  Tensor row = empty({4}, DType::u8);  // broadcasts over rows
  for (int i = 0; i < 4; ++i) row.data<uint8_t>()[i] = i % 2;
  Tensor f = masked_fill(x, row, 9);
  for_each_index({3, 4}, [&](const DimVec& p) { CHECK(at(f, p) == (p[1] % 2 ? 9 : at(x, p))); });
  CHECK(masked_select(x, row).numel() == 6);
  // Same number of elements, other shape: Torch7's rule, the mask read in row-major order.
  Tensor flat = random_mask({12}, DType::u8, 5);
  Tensor g = masked_fill(x, flat, 7);
  for (int64_t i = 0; i < 12; ++i) CHECK(item_at(g, i) == (item_at(flat, i) ? 7 : item_at(x, i)));
  // maskedSelect broadcasts both ways: a 3x1 tensor with a 1x4 mask selects from 3x4.
  Tensor col = filled({3, 1}, DType::f64);
  Tensor s = masked_select(col, row);
  REQUIRE(s.numel() == 6);
  CHECK(item_at(s, 0) == item_at(col, 0));
  CHECK(item_at(s, 2) == item_at(col, 1));
  // A value that does not fit the dtype's category is converted (Bool: non-zero is true).
  Tensor b = masked_fill(zeros({2}, DType::b8), full({2}, 1, DType::b8), 3);
  CHECK(item_at(b, 0) == 1);
}

TEST_CASE("maskedCopy consumes source elements in order", "[index][mask]") {
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    Tensor x = strided({4, 5}, dt);
    Tensor m = random_mask({4, 5}, DType::b8, 3);
    Tensor src = filled({30}, dt, 8);
    Tensor r = masked_copy(x, m, src);
    int64_t k = 0;
    for (int64_t i = 0; i < 20; ++i) {
      double want = item_at(m, i) ? item_at(src, k++) : item_at(x, i);
      REQUIRE(item_at(r, i) == want);
    }
  }
  // The source may be of another dtype and shape; it needs at least as many elements as true ones.
  Tensor x = zeros({2, 3}, DType::f32);
  Tensor all = ones({2, 3}, DType::u8);
  masked_copy_(x, all, filled({3, 2}, DType::i64));
  check_same(x, to_dtype(view(filled({3, 2}, DType::i64), {2, 3}), DType::f32));
  CHECK_THROWS_WITH(masked_copy_(x, all, ones({5}, DType::f32)),
                    "[maskedCopy] mask has 6 true elements but src has only 5 (size 5)");
  // Copying a tensor into itself through a mask reads the original values.
  Tensor y = filled({6}, DType::f64);
  Tensor y0 = clone(y);
  masked_copy_(y, ones({6}, DType::u8), y);
  check_same(y, y0);
}

TEST_CASE("mask scans span several chunks", "[index][mask]") {
  const int64_t n = 300001;  // several scan chunks, the last one short
  Tensor x = empty({n}, DType::f64);
  Tensor m = empty({n}, DType::b8);
  for (int64_t i = 0; i < n; ++i) {
    x.data<double>()[i] = double(i);
    m.data<bool>()[i] = (i % 7) == 3;
  }
  Tensor s = masked_select(x, m);
  REQUIRE(s.numel() == (n - 3 + 6) / 7);
  for (int64_t k = 0; k < s.numel(); ++k) REQUIRE(s.data<double>()[k] == double(7 * k + 3));
  Tensor nz = nonzero(m, 1);
  REQUIRE(nz.sizes() == DimVec({s.numel(), 1}));
  for (int64_t k = 0; k < s.numel(); ++k) REQUIRE(nz.data<int64_t>()[k] == 7 * k + 4);
  Tensor src = empty({s.numel()}, DType::f64);
  for (int64_t k = 0; k < s.numel(); ++k) src.data<double>()[k] = -double(k);
  masked_copy_(x, m, src);
  for (int64_t i = 0; i < n; ++i) REQUIRE(x.data<double>()[i] == (i % 7 == 3 ? -double(i / 7) : double(i)));
}

TEST_CASE("nonzero lists coordinates in row-major order", "[index][mask]") {
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    Tensor x = strided({4, 3, 2}, dt, 21);
    Tensor nz = nonzero(x, 0);
    std::vector<DimVec> expect;
    for_each_index(x.sizes(), [&](const DimVec& p) { if (at(x, p) != 0) expect.push_back(p); });
    REQUIRE(nz.dtype() == DType::i64);
    REQUIRE(nz.sizes() == DimVec({int64_t(expect.size()), 3}));
    for (size_t r = 0; r < expect.size(); ++r)
      for (int d = 0; d < 3; ++d) REQUIRE(nz.data<int64_t>()[r * 3 + size_t(d)] == expect[r][d]);
  }
  Tensor nan = full({2, 2}, NAN, DType::f32);  // NaN is non-zero
  CHECK(nonzero(nan, 0).size(0) == 4);
  CHECK(nonzero(zeros({3, 0}, DType::f32), 1).sizes() == DimVec({0, 2}));
  CHECK(nonzero(zeros({2, 2}, DType::f32), 1).sizes() == DimVec({0, 2}));
  CHECK(nonzero(full({}, 5, DType::f32), 1).sizes() == DimVec({1, 0}));
  Tensor out = empty({1}, DType::i64);
  nonzero_out(out, longs({0, 3, 0, 4}), 1);
  check_same(out, longs({2, 4}, {2, 1}));
  CHECK_THROWS_WITH(nonzero_out(empty({1}, DType::f32), out, 1),
                    "[nonzero] result must be a torch.LongTensor, got a torch.FloatTensor");
}

TEST_CASE("mask ops reject bad masks with clear messages", "[index][mask]") {
  Tensor x = filled({2, 3}, DType::f32);
  CHECK_THROWS_WITH(masked_fill(x, ones({2, 3}, DType::f32), 1),
                    "[maskedFill] mask must be a torch.ByteTensor or torch.BoolTensor, got a torch.FloatTensor");
  CHECK_THROWS_WITH(masked_fill(x, ones({4}, DType::u8), 1),
                    "[maskedFill] mask of size 4 does not broadcast to the tensor's size 2x3 and has a different "
                    "number of elements (4 vs 6)");
  CHECK_THROWS_WITH(masked_select(x, ones({5}, DType::b8)), Catch::Contains("[maskedSelect] mask of size 5"));
  CHECK_THROWS_WITH(masked_copy(x, ones({2, 3}, DType::i64), x), Catch::Contains("[maskedCopy] mask must be"));
}

// Note [Branch-free selects]: every mask byte that is not 0 selects (2, 128, 255 too), on long
// stride-1 rows (the vector loops), with one side a broadcast value, and on strided rows.
TEST_CASE("where and maskedFill select by any non-zero mask byte", "[index][mask]") {
  const uint8_t bytes[] = {0, 1, 2, 0, 128, 255, 0, 0, 7};
  for (DType dt : all_dtypes()) {
    INFO(dtype_name(dt));
    Tensor m = empty({3, 301}, DType::u8);
    for (int64_t i = 0; i < m.numel(); ++i) m.data<uint8_t>()[i] = bytes[(i * 7) % 9];
    Tensor a = filled({3, 301}, dt, 3), b = filled({3, 301}, dt, 4);
    Tensor one = expand(full({1, 1}, 1, dt), {3, 301});
    Tensor mt = transpose(clone(transpose(m, 0, 1)), 0, 1);  // the same mask, strided
    for (const Tensor& mask : {m, mt}) {
      Tensor w = where(mask, a, b), w1 = where(mask, one, b), w2 = where(mask, a, one);
      Tensor f = masked_fill(a, mask, 1);
      for (int64_t i = 0; i < m.numel(); ++i) {
        const bool c = item_at(m, i) != 0;
        REQUIRE(item_at(w, i) == (c ? item_at(a, i) : item_at(b, i)));
        REQUIRE(item_at(w1, i) == (c ? 1.0 : item_at(b, i)));
        REQUIRE(item_at(w2, i) == (c ? item_at(a, i) : 1.0));
        REQUIRE(item_at(f, i) == (c ? 1.0 : item_at(a, i)));
      }
    }
  }
}

// Note [Branch-free compaction]: every element is written at its chunk's next place and the place
// advances by the mask; random masks over several chunks (the last element of a chunk often
// false) in ranks 1-5 (the unrolled coordinate loops and the generic one) against naive loops.
TEST_CASE("nonzero, maskedSelect and maskedCopy compact random masks across chunks", "[index][mask]") {
  const std::vector<DimVec> shapes = {{70001}, {300, 701}, {7, 50, 41}, {3, 5, 40, 35}, {2, 3, 5, 40, 35}};
  uint32_t seed = 3;
  for (const DimVec& shape : shapes) {
    INFO(shape_str(shape));
    Tensor m = random_mask(shape, DType::u8, ++seed);
    Tensor x = filled(shape, DType::f32, seed);
    Tensor nz = nonzero(m, 1), sel = masked_select(x, m);
    const int nd = int(shape.size());
    std::vector<int64_t> coords;
    std::vector<double> values;
    for_each_index(shape, [&](const DimVec& p) {
      if (at(m, p) == 0) return;
      for (int d = 0; d < nd; ++d) coords.push_back(p[d] + 1);
      values.push_back(at(x, p));
    });
    REQUIRE(nz.sizes() == DimVec({int64_t(values.size()), nd}));
    REQUIRE(sel.numel() == int64_t(values.size()));
    for (size_t i = 0; i < coords.size(); ++i) REQUIRE(nz.data<int64_t>()[i] == coords[i]);
    for (size_t i = 0; i < values.size(); ++i) REQUIRE(sel.data<float>()[i] == values[i]);
    // maskedCopy takes the source in order: the k-th set byte gets -(k + 1).
    Tensor src = empty({int64_t(values.size()) + 3}, DType::f32);
    for (int64_t k = 0; k < src.numel(); ++k) src.data<float>()[k] = -float(k + 1);
    Tensor y = clone(x);
    masked_copy_(y, m, src);
    int64_t k = 0;
    for (int64_t i = 0; i < y.numel(); ++i)
      REQUIRE(item_at(y, i) == (item_at(m, i) != 0 ? -double(++k) : item_at(x, i)));
  }
}

// Notes [Branch-free selects] and [Branch-free compaction]: maskedFill and maskedCopy rewrite the
// unmasked elements with themselves only where no two elements share memory. An asStrided view
// whose row 1 is row 0 shifted by one (check_writable accepts it) takes the masked elements only,
// in order, on one thread: at two threads a rewrite of row 0 could undo row 1's writes.
TEST_CASE("maskedFill and maskedCopy of overlapping views write only the masked elements", "[index][mask]") {
  const int64_t n = 1 << 20;
  Tensor rows1 = zeros({2, n}, DType::u8), both = zeros({2, n}, DType::u8), src = empty({2 * n}, DType::f32);
  for (int64_t i = 0; i < 2 * n; ++i) {
    rows1.data<uint8_t>()[i] = i >= n;
    both.data<uint8_t>()[i] = 1;
    src.data<float>()[i] = float(i + 1);
  }
  const int saved = tocha_get_num_threads();
  tocha_set_num_threads(std::max(2, saved));
  for (int rep = 0; rep < 3; ++rep) {
    Tensor x = zeros({n + 1}, DType::f32), y = zeros({n + 1}, DType::f32), z = zeros({n + 1}, DType::f32);
    masked_fill_(as_strided(x, {2, n}, {1, 1}, 0), rows1, 5);
    masked_copy_(as_strided(y, {2, n}, {1, 1}, 0), rows1, src);
    masked_copy_(as_strided(z, {2, n}, {1, 1}, 0), both, src);  // row 1's values written last
    int64_t bad = 0;
    for (int64_t i = 0; i <= n; ++i) {
      bad += x.data<float>()[i] != (i == 0 ? 0.0f : 5.0f);
      bad += y.data<float>()[i] != (i == 0 ? 0.0f : float(i));
      bad += z.data<float>()[i] != (i == 0 ? 1.0f : float(n + i));
    }
    CHECK(bad == 0);
  }
  tocha_set_num_threads(saved);
}
