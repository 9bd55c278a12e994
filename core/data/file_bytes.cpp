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
  // zlib's messages start with the path; keep only what follows it.
  if (detail.compare(0, path.size() + 2, path + ": ") == 0) detail = detail.substr(path.size() + 2);
  if (n < 0 && err == Z_ERRNO) fail(op, path, ": read error: ", io::errno_str(errno));
  if (err == Z_BUF_ERROR || close_rc == Z_BUF_ERROR)
    fail(op, path, ": truncated gzip file: the compressed data ends after ", out.size(), " decompressed bytes");
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END))
    fail(op, path, ": corrupt gzip data after ", out.size(), " decompressed bytes: ", detail);
  if (gzip) *gzip = !direct;
  return out;
}

}  // namespace data
}  // namespace tocha
