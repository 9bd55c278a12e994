// Dataset file codecs in core/data: IDX decoding (types, big-endian values, truncation and
// trailing bytes) and PNG/JPEG encoding and decoding (round trips, truncated data as errors).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <string>
#include "core/data/idx.h"
#include "core/data/image.h"
#include "core/error.h"

using namespace tocha;

static std::string idx(int code, std::initializer_list<uint32_t> sizes, const std::string& body) {
  std::string s = {'\0', '\0', char(code), char(sizes.size())};
  for (uint32_t n : sizes)
    for (int shift = 24; shift >= 0; shift -= 8) s += char((n >> shift) & 0xff);
  return s + body;
}

TEST_CASE("IDX arrays decode with their sizes and big-endian values", "[data]") {
  Tensor t = data::decode_idx(idx(0x08, {2, 3}, "abcdef"), "x");
  REQUIRE(t.dim() == 2);
  CHECK(t.size(0) == 2);
  CHECK(t.data<uint8_t>()[5] == 'f');
  Tensor s = data::decode_idx(idx(0x0B, {2}, std::string("\xff\xfe\x01\x00", 4)), "s");
  CHECK(s.dtype() == DType::i16);
  CHECK(s.data<int16_t>()[0] == -2);
  CHECK(s.data<int16_t>()[1] == 256);
  Tensor c = data::decode_idx(idx(0x09, {2}, std::string("\xfe\x7f", 2)), "c");
  CHECK(c.dtype() == DType::i8);
  CHECK(c.data<int8_t>()[0] == -2);
  CHECK(c.data<int8_t>()[1] == 127);
  Tensor d = data::decode_idx(idx(0x0E, {1}, std::string("\x3f\xf8\0\0\0\0\0\0", 8)), "d");
  CHECK(d.data<double>()[0] == 1.5);
}

TEST_CASE("bad IDX files are errors naming the file and offset", "[data]") {
  CHECK_THROWS_WITH(data::decode_idx(idx(0x08, {4, 2}, "abc"), "f.idx"),
                    Catch::Contains("f.idx: truncated: a 4x2 array of unsigned bytes needs 20 bytes, the data ends at "
                                    "byte 15 (in item 2 of 4)"));
  CHECK_THROWS_WITH(data::decode_idx(idx(0x08, {1}, "ab"), "f.idx"), Catch::Contains("1 unexpected byte after"));
  CHECK_THROWS_WITH(data::decode_idx("\x01\x02", "f.idx"), Catch::Contains("shorter than the 4-byte IDX magic"));
  CHECK_THROWS_WITH(data::decode_idx(std::string("\0\0\x08\0", 4), "f.idx"), Catch::Contains("0 dimensions at byte 3"));
  CHECK_THROWS_WITH(data::read_idx("/nonexistent/dir/t.idx"), Catch::Contains("cannot open"));
}

static Tensor pattern(int64_t h, int64_t w, int64_t c) {
  Tensor t = empty(DimVec{h, w, c}, DType::u8);
  auto* p = t.data<uint8_t>();
  for (int64_t i = 0; i < h * w * c; ++i) p[i] = uint8_t((i / c) % w * 8 + (i / c) / w * 4 + (i % c) * 40);
  return t;
}

TEST_CASE("PNG round trips exactly and JPEG closely", "[data]") {
  for (int c : {1, 3, 4}) {
    Tensor img = pattern(9, 13, c);
    Tensor back = data::decode_image(data::encode_png(img), "p.png", 0);
    REQUIRE(back.size(2) == c);
    CHECK(std::equal(img.data<uint8_t>(), img.data<uint8_t>() + img.numel(), back.data<uint8_t>()));
  }
  Tensor rgb = pattern(16, 16, 3);
  std::string jpg = data::encode_jpeg(rgb, 100);
  Tensor back = data::decode_image(jpg, "p.jpg", 3);
  double err = 0;
  for (int64_t i = 0; i < rgb.numel(); ++i) err += std::abs(int(rgb.data<uint8_t>()[i]) - int(back.data<uint8_t>()[i]));
  CHECK(err / double(rgb.numel()) < 8);
  CHECK(data::decode_image(jpg, "p.jpg", 1).size(2) == 1);
}

TEST_CASE("truncated images are errors, not gray pixels", "[data]") {
  std::string jpg = data::encode_jpeg(pattern(32, 32, 3), 90);
  CHECK_THROWS_WITH(data::decode_image(jpg.substr(0, jpg.size() / 2), "cut.jpg", 0),
                    Catch::Contains("cut.jpg: corrupt or truncated JPEG"));
  std::string png = data::encode_png(pattern(32, 32, 3));
  CHECK_THROWS_WITH(data::decode_image(png.substr(0, png.size() - 20), "cut.png", 0),
                    Catch::Contains("cut.png: corrupt or truncated PNG"));
  CHECK_THROWS_WITH(data::decode_image("GIF89a....", "x.gif", 0), Catch::Contains("not a PNG or JPEG"));
  CHECK_THROWS_WITH(data::encode_jpeg(pattern(4, 4, 4), 90), Catch::Contains("1 or 3 channels"));
}
