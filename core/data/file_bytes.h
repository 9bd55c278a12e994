// Whole-file reads for the dataset readers: plain or gzip-compressed (detected by the magic
// bytes, so "train-images-idx3-ubyte" and "...ubyte.gz" read alike); errors name the file.
#pragma once
#include <string>

namespace tocha {
namespace data {

// The file's bytes, decompressed when it is gzip. *gzip (optional) tells which. A missing file,
// a read error or a truncated/corrupt gzip stream is an Error "[op] path: ...".
std::string read_file_bytes(const std::string& path, const char* op, bool* gzip = nullptr);

}  // namespace data
}  // namespace tocha
