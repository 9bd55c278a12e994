// Whole-file reads through zlib's gz* functions, which pass plain files through unchanged.
#include "core/data/file_bytes.h"
#include <cerrno>
#include <zlib.h>
#include "core/error.h"
#include "core/io/atomic_file.h"

namespace tocha {
namespace data {

std::string read_file_bytes(const std::string& path, const char* op, bool* gzip) {
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) fail(op, path, ": cannot open: ", errno ? io::errno_str(errno) : std::string("out of memory"));
  gzbuffer(f, 1 << 17);
  std::string out;
  char chunk[1 << 16];
  int n;
  while ((n = gzread(f, chunk, sizeof chunk)) > 0) out.append(chunk, size_t(n));
  int err = Z_OK;
  const char* msg = gzerror(f, &err);
  bool direct = gzdirect(f) != 0;
  std::string detail = msg ? msg : "";
  int close_rc = gzclose_r(f);
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
    if (err == Z_ERRNO) detail = io::errno_str(errno);
    fail(op, path, ": ", direct ? "read error: " : "corrupt gzip data after ", direct ? detail : std::to_string(out.size()),
         direct ? "" : " decompressed bytes: ", direct ? "" : detail);
  }
  if (close_rc == Z_BUF_ERROR)
    fail(op, path, ": truncated gzip file: the compressed data ends after ", out.size(), " decompressed bytes");
  if (gzip) *gzip = !direct;
  return out;
}

}  // namespace data
}  // namespace tocha
