// Stream helpers and the in-memory stream (torch.serialize, torch.MemoryFile). See stream.h.
#include "core/io/stream.h"
#include <algorithm>
#include <cstring>
#include "core/error.h"

namespace tocha {
namespace io {

void Stream::fail(const std::string& msg) const { throw Error("[io] " + name_ + ": " + msg); }

void Stream::check_open() const {
  if (!is_open()) fail("attempt to use a closed file");
}
void Stream::check_readable() const {
  check_open();
  if (!readable_) fail("attempt to read in a write-only file");
}
void Stream::check_writable() const {
  check_open();
  if (!writable_) fail("attempt to write in a read-only file");
}

void Stream::read_exact(void* dst, size_t n, const char* what) {
  uint64_t at = tell();
  size_t got = read(dst, n);
  if (got != n)
    fail(str_cat("unexpected end of file reading ", what, ": needed ", n, " bytes at offset ", at, " but only ",
                 got, " remain (the file is truncated or corrupt)"));
}

MemoryStream::MemoryStream(const void* data, size_t n) : Stream("<memory>", true, true) {
  if (data && n) {
    reserve(n);
    std::memcpy(buf_.get(), data, n);
    size_ = n;
  }
}

MemoryStream::MemoryStream(const void* borrowed, size_t n, bool)
    : Stream("<memory>", true, false), borrowed_(static_cast<const char*>(borrowed)), size_(n) {
  static const char empty = 0;
  if (!borrowed_) borrowed_ = &empty;
}

std::unique_ptr<MemoryStream> MemoryStream::borrow(const void* data, size_t n) {
  return std::unique_ptr<MemoryStream>(new MemoryStream(data, n, true));
}

void MemoryStream::reserve(size_t need) {
  if (need <= cap_) return;
  size_t cap = std::max<size_t>(need, cap_ < 4096 ? 4096 : cap_ * 2);
  std::unique_ptr<char[]> fresh(new char[cap]);
  if (size_) std::memcpy(fresh.get(), buf_.get(), size_);
  buf_ = std::move(fresh);
  cap_ = cap;
}

size_t MemoryStream::read(void* dst, size_t n) {
  check_readable();
  size_t k = std::min(n, size_ - pos_);
  if (k) std::memcpy(dst, data() + pos_, k);
  pos_ += k;
  return k;
}

void MemoryStream::write(const void* src, size_t n) {
  check_writable();
  if (n == 0) return;
  if (pos_ + n < pos_) fail("write too large");
  reserve(pos_ + n);
  std::memcpy(buf_.get() + pos_, src, n);
  pos_ += n;
  size_ = std::max(size_, pos_);
}

int MemoryStream::peek() {
  check_readable();
  return pos_ < size_ ? static_cast<unsigned char>(data()[pos_]) : -1;
}

void MemoryStream::seek(uint64_t pos) {
  check_open();
  if (pos > size_) fail(str_cat("cannot seek to position ", pos, " past the end (size ", size_, ")"));
  pos_ = size_t(pos);
}

}  // namespace io
}  // namespace tocha
