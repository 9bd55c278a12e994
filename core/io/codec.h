// Element codecs of Torch7 files: values of a file element kind (Torch7's Byte/Char/Short/Int/
// Long/Float/Double/Half, plus bf16 and bool for safetensors) written raw (binary, little-endian
// hosts) or as Torch7's ascii text, converted from and to tensor dtypes.
#pragma once
#include <cstddef>
#include <cstdint>
#include "core/io/stream.h"
#include "core/tensor.h"

namespace tocha {
namespace io {

// The order is part of the C ABI (TOCHA_IO_* in bindings/tocha_serialize.h).
enum class Kind : int { u8 = 0, i8, i16, i32, i64, f32, f64, f16, bf16, b8, COUNT };
constexpr int kNumKinds = int(Kind::COUNT);

Kind arg_kind(int k, const char* op);
size_t kind_size(Kind k);
// The kind that holds dtype t's values bit for bit.
Kind native_kind(DType t);

struct Format {
  bool ascii = false;
  bool autospace = true;  // ascii: a space between values and a newline after each call (Torch7)
};

// Writes n values of kind k stored at src.
void write_values(Stream& s, const void* src, Kind k, size_t n, Format f);
// Reads up to n values of kind k into dst; returns how many were read (fewer: end of file or,
// in ascii, text that is not a number).
size_t read_values(Stream& s, void* dst, Kind k, size_t n, Format f);
// Writes t's elements (any dtype, strides or device) in row-major order as values of kind k.
void write_tensor_values(Stream& s, const Tensor& t, Kind k, Format f);
// Reads values of kind k into contiguous CPU tensor t (converted to its dtype); returns the count.
size_t read_tensor_values(Stream& s, const Tensor& t, Kind k, Format f);
// A new 1D CPU tensor of dtype dt holding the next n values of kind k; the size is checked
// against the bytes left in the stream before anything is allocated.
Tensor read_storage(Stream& s, int64_t n, Kind k, DType dt, Format f);

}  // namespace io
}  // namespace tocha
