// core/io: memory and file streams (buffering, atomic replacement, in-place read/write), element
// codecs (binary, Torch7 ascii, conversions), checksummed blobs, mmap storages and checked views.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>
#include "core/io/blob.h"
#include "core/io/codec.h"
#include "core/io/file_stream.h"
#include "core/ops/pointwise.h"
#include "core/ops/tensor_ops.h"

using namespace tocha;
using namespace tocha::io;

namespace {

std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TOCHA_TEST_TMP");
  return std::string(dir ? dir : "/tmp") + "/serialize_cpp_" + std::to_string(getpid()) + "_" + name;
}
std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}
std::string contents(MemoryStream& m) { return std::string(m.data(), size_t(m.size())); }
Tensor arange_f32(int64_t n) {
  Tensor t = empty(DimVec{n}, DType::f32);
  for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = float(i);
  return t;
}

}  // namespace

TEST_CASE("serialize: crc32 matches the standard check value", "[serialize]") {
  REQUIRE(crc32_update(0, "123456789", 9) == 0xCBF43926u);
  uint32_t c = crc32_update(0, "1234", 4);
  REQUIRE(crc32_update(c, "56789", 5) == 0xCBF43926u);
}

TEST_CASE("serialize: memory streams read, write, seek and peek", "[serialize]") {
  MemoryStream m(nullptr, 0);
  m.write("hello", 5);
  m.write(" world", 6);
  REQUIRE(m.size() == 11);
  m.seek(6);
  REQUIRE(m.peek() == 'w');
  char buf[16] = {};
  REQUIRE(m.read(buf, 16) == 5);
  REQUIRE(std::string(buf) == "world");
  REQUIRE(m.peek() == -1);
  m.seek(0);
  m.write("J", 1);
  REQUIRE(contents(m) == "Jello world");
  REQUIRE_THROWS_WITH(m.seek(12), Catch::Contains("past the end"));
  auto ro = MemoryStream::borrow("abc", 3);
  REQUIRE_THROWS_WITH(ro->write("x", 1), Catch::Contains("read-only"));
  REQUIRE_THROWS_WITH(ro->read_exact(buf, 4, "a test value"), Catch::Contains("unexpected end of file"));
}

TEST_CASE("serialize: atomic file writes appear only when closed", "[serialize]") {
  std::string path = temp_path("atomic.bin");
  std::remove(path.c_str());
  {
    FileStream f(path, FileStream::Mode::write_atomic);
    f.write("new", 3);
    REQUIRE_FALSE(exists(path));
    f.close();
  }
  REQUIRE(slurp(path) == "new");
  {
    FileStream f(path, FileStream::Mode::write_atomic);
    std::vector<char> big(300000, 'x');
    f.write(big.data(), big.size());  // an abandoned write: never closed
  }
  REQUIRE(slurp(path) == "new");
  chmod(path.c_str(), 0640);
  {
    FileStream f(path, FileStream::Mode::write_atomic);
    f.write("header-placeholder", 18);
    f.seek(0);
    f.write("HEADER", 6);
    f.close();
    REQUIRE_THROWS_WITH(f.write("x", 1), Catch::Contains("closed file"));
  }
  REQUIRE(slurp(path) == "HEADER-placeholder");
  struct stat st;
  stat(path.c_str(), &st);
  REQUIRE((st.st_mode & 0777) == 0640);
  std::remove(path.c_str());
}

TEST_CASE("serialize: file streams buffer reads and mix reads with writes in place", "[serialize]") {
  std::string path = temp_path("rw.bin");
  std::vector<uint32_t> values(100000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = uint32_t(i * 2654435761u);
  {
    FileStream f(path, FileStream::Mode::write_atomic);
    for (uint32_t v : values) f.write(&v, 4);  // small writes through the buffer
    f.close();
  }
  FileStream r(path, FileStream::Mode::read);
  REQUIRE(r.size() == values.size() * 4);
  uint32_t v;
  r.seek(4 * 12345);
  REQUIRE(r.read(&v, 4) == 4);
  REQUIRE(v == values[12345]);
  std::vector<uint32_t> rest(values.size() - 12346);
  REQUIRE(r.read(rest.data(), rest.size() * 4) == rest.size() * 4);  // large read bypassing the buffer
  REQUIRE(rest.back() == values.back());
  REQUIRE(r.peek() == -1);
  REQUIRE(r.read(&v, 4) == 0);
  REQUIRE_THROWS_WITH(r.write(&v, 4), Catch::Contains("read-only"));
  {
    FileStream rw(path, FileStream::Mode::read_write);
    rw.seek(8);
    uint32_t x = 7;
    rw.write(&x, 4);
    rw.seek(4);
    uint32_t got[2];
    REQUIRE(rw.read(got, 8) == 8);
    REQUIRE(got[0] == values[1]);
    REQUIRE(got[1] == 7);
    rw.close();
  }
  FileStream again(path, FileStream::Mode::read);
  again.seek(8);
  REQUIRE(again.read(&v, 4) == 4);
  REQUIRE(v == 7);
  std::remove(path.c_str());
  REQUIRE_THROWS_WITH(FileStream(temp_path("missing"), FileStream::Mode::read), Catch::Contains("No such file"));
}

TEST_CASE("serialize: ascii codecs write Torch7's text and read it back", "[serialize]") {
  MemoryStream m(nullptr, 0);
  Format ascii{true, true};
  int32_t ints[3] = {1, -2, 300};
  write_values(m, ints, Kind::i32, 3, ascii);
  double d = 0.1;
  write_values(m, &d, Kind::f64, 1, ascii);
  float f = 0.1f;
  write_values(m, &f, Kind::f32, 1, ascii);
  write_values(m, "ab", Kind::u8, 2, ascii);
  write_values(m, ints, Kind::i32, 0, ascii);  // nothing at all for zero values
  REQUIRE(contents(m) == "1 -2 300\n0.10000000000000001\n0.100000001\nab\n");
  m.seek(0);
  Tensor t = read_storage(m, 3, Kind::i32, DType::i64, ascii);
  REQUIRE(item_at(t, 2) == 300);
  double back;
  REQUIRE(read_values(m, &back, Kind::f64, 1, ascii) == 1);
  REQUIRE(back == 0.1);
  float fb;
  REQUIRE(read_values(m, &fb, Kind::f32, 1, ascii) == 1);
  REQUIRE(fb == 0.1f);
  char ab[2];
  REQUIRE(read_values(m, ab, Kind::u8, 2, ascii) == 2);
  REQUIRE(m.peek() == -1);  // the newline after the bytes was consumed
  MemoryStream bad("12 x3", 5);
  int32_t two[2];
  REQUIRE(read_values(bad, two, Kind::i32, 2, ascii) == 1);
  MemoryStream inf("inf -nan 1e-3", 13);
  double three[3];
  REQUIRE(read_values(inf, three, Kind::f64, 3, ascii) == 3);
  REQUIRE(std::isinf(three[0]));
  REQUIRE(std::isnan(three[1]));
}

TEST_CASE("serialize: binary codecs convert between file kinds and dtypes", "[serialize]") {
  int8_t chars[3] = {-128, 0, 127};
  MemoryStream m(chars, 3);
  Tensor t = read_storage(m, 3, Kind::i8, DType::i32, Format{});
  REQUIRE(item_at(t, 0) == -128);
  REQUIRE(item_at(t, 2) == 127);
  MemoryStream out(nullptr, 0);
  Tensor b = full(DimVec{2}, 1.5, DType::bf16);
  write_tensor_values(out, b, Kind::f32, Format{});
  float fs[2];
  std::memcpy(fs, out.data(), 8);
  REQUIRE(fs[1] == 1.5f);
  uint8_t bytes[3] = {0, 2, 255};
  MemoryStream bm(bytes, 3);
  Tensor bools = read_storage(bm, 3, Kind::u8, DType::b8, Format{});
  REQUIRE(item_at(bools, 1) == 1);
  MemoryStream short_stream("abc", 3);
  REQUIRE_THROWS_WITH(read_storage(short_stream, 1000000000000, Kind::f64, DType::f64, Format{}),
                      Catch::Contains("declares 1000000000000 elements"));
}

TEST_CASE("serialize: blobs are padded, checksummed and bounds-checked", "[serialize]") {
  MemoryStream m(nullptr, 0);
  m.write("0123456789", 10);
  write_padding(m, 64);
  REQUIRE(m.tell() == 64);
  Tensor t = arange_f32(5);
  BlobInfo info = write_storage_blob(m, t, 64);
  REQUIRE(info.nbytes == 20);
  REQUIRE(info.padded == 64);
  REQUIRE(m.size() == 128);
  Tensor back = read_blob(m, 64, 20, 64, DType::f32, false, true, info.crc);
  REQUIRE(back.numel() == 5);
  REQUIRE(item_at(back, 4) == 4);
  REQUIRE_THROWS_WITH(read_blob(m, 64, 20, 64, DType::f32, false, true, info.crc ^ 1), Catch::Contains("checksum mismatch"));
  REQUIRE_THROWS_WITH(read_blob(m, 64, 1u << 30, 1u << 30, DType::f32, false, false, 0), Catch::Contains("outside the file"));
  REQUIRE_THROWS_WITH(read_blob(m, 64, 6, 64, DType::f32, false, false, 0), Catch::Contains("whole number"));
}

TEST_CASE("serialize: mapped storages outlive their stream", "[serialize]") {
  std::string path = temp_path("map.bin");
  {
    FileStream f(path, FileStream::Mode::write_atomic);
    f.write("pad!", 4);
    Tensor t = arange_f32(1000);
    f.write(t.raw_data(), 4000);
    f.close();
  }
  Tensor mapped;
  {
    FileStream r(path, FileStream::Mode::read);
    mapped = read_blob(r, 4, 4000, 4000, DType::f32, true, false, 0);
  }
  std::remove(path.c_str());  // the mapping keeps the pages
  REQUIRE(mapped.storage()->owns_memory() == false);
  REQUIRE(item_at(mapped, 999) == 999);
  set_item_at(mapped, 0, 5);  // private copy-on-write pages are writable
  REQUIRE(item_at(mapped, 0) == 5);
}

TEST_CASE("serialize: checked views refuse untrusted geometry", "[serialize]") {
  Tensor base = arange_f32(10);
  Tensor v = checked_view(base, 2, DimVec{2, 3}, DimVec{3, 1}, "t");
  REQUIRE(item_at(v, 5) == 7);
  REQUIRE_THROWS_WITH(checked_view(base, 2, DimVec{3, 3}, DimVec{3, 1}, "t"), Catch::Contains("reaches element 11"));
  REQUIRE_THROWS_WITH(checked_view(base, -1, DimVec{1}, DimVec{1}, "t"), Catch::Contains("storage offset"));
  REQUIRE_THROWS_WITH(checked_view(base, 0, DimVec{-2}, DimVec{1}, "t"), Catch::Contains("negative size"));
  REQUIRE_THROWS_WITH(checked_view(base, 0, DimVec{int64_t(1) << 62, 4}, DimVec{4, int64_t(1) << 62}, "t"),
                      Catch::Contains("overflows"));
  REQUIRE(checked_view(base, 0, DimVec{0, int64_t(1) << 62}, DimVec{1, 1}, "t").numel() == 0);
}
