// IDX decoding. See idx.h.
#include "core/data/idx.h"
#include <cstring>
#include "core/data/file_bytes.h"
#include "core/error.h"

namespace tocha {
namespace data {

namespace {

uint32_t be32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | uint32_t(p[3]);
}

struct IdxType {
  int code;
  const char* name;
  size_t bytes;
  DType dtype;
};
const IdxType kTypes[] = {{0x08, "unsigned byte", 1, DType::u8}, {0x09, "signed byte", 1, DType::i8},
                          {0x0B, "short", 2, DType::i16},         {0x0C, "int", 4, DType::i32},
                          {0x0D, "float", 4, DType::f32},         {0x0E, "double", 8, DType::f64}};

// Copies n big-endian values of `bytes` each into dst of dtype, converting.
void convert(const unsigned char* src, int64_t n, const IdxType& t, void* dst) {
  switch (t.code) {
    case 0x08: std::memcpy(dst, src, size_t(n)); break;
    case 0x09: for (int64_t i = 0; i < n; ++i) static_cast<int8_t*>(dst)[i] = int8_t(src[i]); break;
    case 0x0B:
      for (int64_t i = 0; i < n; ++i)
        static_cast<int16_t*>(dst)[i] = int16_t(uint16_t((src[2 * i] << 8) | src[2 * i + 1]));
      break;
    case 0x0C: for (int64_t i = 0; i < n; ++i) static_cast<int32_t*>(dst)[i] = int32_t(be32(src + 4 * i)); break;
    case 0x0D:
      for (int64_t i = 0; i < n; ++i) {
        uint32_t u = be32(src + 4 * i);
        std::memcpy(static_cast<float*>(dst) + i, &u, 4);
      }
      break;
    case 0x0E:
      for (int64_t i = 0; i < n; ++i) {
        uint64_t u = (uint64_t(be32(src + 8 * i)) << 32) | be32(src + 8 * i + 4);
        std::memcpy(static_cast<double*>(dst) + i, &u, 8);
      }
      break;
  }
}

}  // namespace

Tensor decode_idx(const std::string& bytes, const std::string& name) {
  const char* op = "idx";
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t size = bytes.size();
  TOCHA_CHECK(size >= 4, op, name, ": truncated: ", size, " bytes, shorter than the 4-byte IDX magic");
  TOCHA_CHECK(p[0] == 0 && p[1] == 0, op, name, ": not an IDX file (byte 0: the magic must start with two zero bytes, got ",
              int(p[0]), " ", int(p[1]), ")");
  const IdxType* type = nullptr;
  for (const IdxType& t : kTypes)
    if (t.code == p[2]) type = &t;
  TOCHA_CHECK(type, op, name, ": unknown IDX type code 0x", std::hex, int(p[2]), " at byte 2");
  int ndim = p[3];
  TOCHA_CHECK(ndim >= 1 && ndim <= kMaxDims, op, name, ": ", ndim, " dimensions at byte 3 (expected 1 to ", kMaxDims, ")");
  size_t header = 4 + 4 * size_t(ndim);
  TOCHA_CHECK(size >= header, op, name, ": truncated: the header needs ", header, " bytes, the file has ", size);
  DimVec sizes;
  uint64_t count = 1;
  std::string shape;
  for (int d = 0; d < ndim; ++d) {
    uint32_t s = be32(p + 4 + 4 * d);
    TOCHA_CHECK(s <= 0x7fffffffu, op, name, ": size ", int32_t(s), " of dimension ", d + 1, " at byte ", 4 + 4 * d, " is negative");
    sizes.push_back(int64_t(s));
    count *= s;
    TOCHA_CHECK(count <= (uint64_t(1) << 40), op, name, ": the sizes in the header describe more than 2^40 values");
    shape += (d ? "x" : "") + std::to_string(s);
  }
  uint64_t expect = header + count * type->bytes;
  if (size < expect) {
    uint64_t per_item = count / uint64_t(sizes[0]);  // count > 0 here, so sizes[0] > 0
    uint64_t item = (size - header) / type->bytes / per_item + 1;
    fail(op, name, ": truncated: a ", shape, " array of ", type->name, "s needs ", expect, " bytes, the data ends at byte ",
         size, " (in item ", item, " of ", sizes[0], ")");
  }
  TOCHA_CHECK(size == expect, op, name, ": ", size - expect, size - expect == 1 ? " unexpected byte" : " unexpected bytes",
              " after the ", shape, " array (byte ", expect, " on)");
  Tensor out = empty(sizes, type->dtype, Device{});
  convert(p + header, int64_t(count), *type, out.raw_data());
  return out;
}

Tensor read_idx(const std::string& path) {
  return decode_idx(read_file_bytes(path, "idx"), path);
}

}  // namespace data
}  // namespace tocha
