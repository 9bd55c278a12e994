// Buffered file streams: "r" (reads, mmap of regions), "w" (an atomic replacement that appears
// at the path on close; abandoned writes leave the old file), "rw" (in place, like fopen r+).
#pragma once
#include <memory>
#include "core/io/atomic_file.h"
#include "core/io/file_mapping.h"
#include "core/io/stream.h"

namespace tocha {
namespace io {

class FileStream : public Stream {
 public:
  enum class Mode { read, write_atomic, read_write };
  FileStream(const std::string& path, Mode mode);
  ~FileStream() override;

  size_t read(void* dst, size_t n) override;
  void write(const void* src, size_t n) override;
  int peek() override;
  void seek(uint64_t pos) override;
  uint64_t tell() const override { return file_pos_ + buf_pos_; }
  uint64_t size() const override;
  void flush() override;
  void close() override;
  bool is_open() const override { return fd_ >= 0; }
  Ref<Storage> map(uint64_t offset, uint64_t nbytes) override;

 private:
  static constexpr size_t kBufSize = 1 << 16;
  void flush_writes();
  void drop_reads();
  bool fill();
  void pwrite_all(const char* p, size_t n, uint64_t at);
  size_t pread_some(char* p, size_t n, uint64_t at);

  Mode mode_;
  int fd_ = -1;
  TempFile temp_;  // write_atomic only
  std::unique_ptr<char[]> buf_;
  // The buffer holds either bytes read from [file_pos_, file_pos_ + buf_len_) with the cursor
  // at buf_pos_, or (writing_) buf_pos_ pending bytes that belong at file_pos_.
  uint64_t file_pos_ = 0;
  size_t buf_pos_ = 0, buf_len_ = 0;
  bool writing_ = false;
  uint64_t size_ = 0;  // bytes in the file, pending writes excluded
  Ref<FileMapping> mapping_;
};

}  // namespace io
}  // namespace tocha
