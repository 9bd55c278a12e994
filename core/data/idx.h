// IDX files (LeCun's MNIST format, also Fashion-MNIST): a 4-byte magic (two zero bytes, a type
// code, the number of dims), big-endian int32 sizes, then big-endian values.
#pragma once
#include <string>
#include "core/tensor.h"

namespace tocha {
namespace data {

// Decodes an IDX file (gzip or not) into a contiguous CPU tensor: unsigned bytes as u8, signed
// bytes, shorts and ints as i32, floats as f32, doubles as f64. A bad magic, an unknown type, a
// truncated file or trailing bytes are errors naming the file and the byte offset.
Tensor read_idx(const std::string& path);
// The same from bytes already in memory; `name` is used in messages.
Tensor decode_idx(const std::string& bytes, const std::string& name);

}  // namespace data
}  // namespace tocha
