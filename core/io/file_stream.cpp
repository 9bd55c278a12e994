// Buffered positional I/O over a file descriptor. See file_stream.h.
#include "core/io/file_stream.h"
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"

namespace tocha {
namespace io {

FileStream::FileStream(const std::string& path, Mode mode)
    : Stream(path, mode != Mode::write_atomic, mode != Mode::read), mode_(mode), buf_(new char[kBufSize]) {
  if (mode == Mode::write_atomic) {
    temp_ = open_temp_beside(path);
    fd_ = temp_.fd;
    return;
  }
  int flags = (mode == Mode::read ? O_RDONLY : O_RDWR | O_CREAT) | O_CLOEXEC;
  fd_ = ::open(path.c_str(), flags, 0666);
  if (fd_ < 0) {
    int err = errno;
    fail(str_cat("cannot open for ", mode == Mode::read ? "reading" : "reading and writing", ": ", errno_str(err)));
  }
  struct stat st;
  if (fstat(fd_, &st) != 0 || S_ISDIR(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    fail("is a directory or cannot be inspected");
  }
  size_ = uint64_t(st.st_size);
}

FileStream::~FileStream() {
  if (fd_ < 0) return;
  if (mode_ == Mode::write_atomic) {
    discard_temp(temp_);  // never completed: the previous file stays
    return;
  }
  try {
    flush_writes();
  } catch (...) {
  }
  ::close(fd_);
}

size_t FileStream::pread_some(char* p, size_t n, uint64_t at) {
  for (;;) {
    ssize_t r = ::pread(fd_, p, n, off_t(at));
    if (r >= 0) return size_t(r);
    if (errno != EINTR) fail(str_cat("read failed: ", errno_str(errno)));
  }
}

void FileStream::pwrite_all(const char* p, size_t n, uint64_t at) {
  while (n > 0) {
    ssize_t r = ::pwrite(fd_, p, n, off_t(at));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(str_cat("write failed: ", errno_str(errno)));
    }
    p += r;
    n -= size_t(r);
    at += uint64_t(r);
  }
}

void FileStream::flush_writes() {
  if (!writing_) return;
  if (buf_pos_) pwrite_all(buf_.get(), buf_pos_, file_pos_);
  file_pos_ += buf_pos_;
  size_ = std::max(size_, file_pos_);
  buf_pos_ = 0;
  writing_ = false;
}

void FileStream::drop_reads() {
  if (writing_) return;
  file_pos_ += buf_pos_;
  buf_pos_ = buf_len_ = 0;
}

bool FileStream::fill() {
  drop_reads();
  buf_len_ = pread_some(buf_.get(), kBufSize, file_pos_);
  return buf_len_ > 0;
}

size_t FileStream::read(void* dst, size_t n) {
  check_readable();
  flush_writes();
  char* out = static_cast<char*>(dst);
  size_t done = 0;
  while (done < n) {
    if (buf_pos_ < buf_len_) {
      size_t k = std::min(n - done, buf_len_ - buf_pos_);
      std::memcpy(out + done, buf_.get() + buf_pos_, k);
      buf_pos_ += k;
      done += k;
    } else if (n - done >= kBufSize) {
      drop_reads();  // large reads (tensor data) bypass the buffer
      size_t r = pread_some(out + done, n - done, file_pos_);
      if (r == 0) break;
      file_pos_ += r;
      done += r;
    } else if (!fill()) {
      break;
    }
  }
  return done;
}

int FileStream::peek() {
  check_readable();
  flush_writes();
  if (buf_pos_ >= buf_len_ && !fill()) return -1;
  return static_cast<unsigned char>(buf_[buf_pos_]);
}

void FileStream::write(const void* src, size_t n) {
  check_writable();
  drop_reads();
  writing_ = true;
  const char* p = static_cast<const char*>(src);
  if (buf_pos_ + n > kBufSize) {
    flush_writes();
    writing_ = true;
    if (n >= kBufSize) {  // large writes go straight to the file
      pwrite_all(p, n, file_pos_);
      file_pos_ += n;
      size_ = std::max(size_, file_pos_);
      return;
    }
  }
  std::memcpy(buf_.get() + buf_pos_, p, n);
  buf_pos_ += n;
}

void FileStream::seek(uint64_t pos) {
  check_open();
  flush_writes();
  if (pos > size_) fail(str_cat("cannot seek to position ", pos, " past the end (size ", size_, ")"));
  if (!writing_ && pos >= file_pos_ && pos <= file_pos_ + buf_len_) {  // inside the read buffer
    buf_pos_ = size_t(pos - file_pos_);
    return;
  }
  file_pos_ = pos;
  buf_pos_ = buf_len_ = 0;
}

uint64_t FileStream::size() const {
  return writing_ ? std::max(size_, file_pos_ + buf_pos_) : size_;
}

void FileStream::flush() {
  check_open();
  flush_writes();
}

void FileStream::close() {
  if (fd_ < 0) return;
  try {
    flush_writes();
  } catch (...) {
    if (mode_ == Mode::write_atomic) discard_temp(temp_);
    else ::close(fd_);
    fd_ = -1;
    throw;
  }
  if (mode_ == Mode::write_atomic) {
    fd_ = -1;
    commit_temp(temp_);
  } else {
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(str_cat("close failed: ", errno_str(errno)));
  }
}

Ref<Storage> FileStream::map(uint64_t offset, uint64_t nbytes) {
  if (mode_ != Mode::read || !is_open() || size_ == 0) return {};
  if (!mapping_) mapping_ = FileMapping::map_fd(fd_, size_t(size_), name());
  return mapping_->storage(offset, nbytes);
}

}  // namespace io
}  // namespace tocha
