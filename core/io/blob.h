// Tensor data blocks: the aligned, checksummed storage blobs of Tocha checkpoints (and the raw
// data regions of safetensors), loaded by copy or by mmap, and the bounds-checked view that
// rebuilds a tensor over loaded data from untrusted sizes and strides.
#pragma once
#include <cstdint>
#include "core/io/stream.h"
#include "core/tensor.h"

namespace tocha {
namespace io {

// zlib's CRC-32, for any length.
uint32_t crc32_update(uint32_t crc, const void* data, size_t n);

struct BlobInfo {
  uint64_t nbytes = 0;  // storage bytes written
  uint64_t padded = 0;  // bytes written including the zero padding
  uint32_t crc = 0;     // over all `padded` bytes
};

// Writes the whole storage under t (from any device), then zeros until the stream position is
// a multiple of `align`.
BlobInfo write_storage_blob(Stream& s, const Tensor& t, uint64_t align);
// Writes zeros until the stream position is a multiple of align; returns how many.
uint64_t write_padding(Stream& s, uint64_t align);
// A 1D CPU tensor of dtype dt over the nbytes at offset: mapped (when mmap and the stream can
// map) or read. When verify, the `padded` bytes from offset must have checksum crc. Offsets and
// sizes are checked against the stream size first, so corrupt values never allocate.
Tensor read_blob(Stream& s, uint64_t offset, uint64_t nbytes, uint64_t padded, DType dt, bool mmap, bool verify,
                 uint32_t crc);
// The view of base's storage at (offset, sizes, strides), refusing negative values, overflow and
// views that reach past the storage, with a message naming `what`.
Tensor checked_view(const Tensor& base, int64_t offset, const DimVec& sizes, const DimVec& strides, const char* what);

}  // namespace io
}  // namespace tocha
