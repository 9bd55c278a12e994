// Byte streams for serialization: one interface over memory buffers and files (atomic writes,
// buffered reads, mmap of regions), so every format (ours, Torch7 .t7, safetensors) has one
// code path for torch.save/load and torch.serialize/deserialize. Streams are not thread-safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include "core/storage.h"

namespace tocha {
namespace io {

class Stream {
 public:
  virtual ~Stream() = default;
  // Reads up to n bytes; returns the count read (less than n only at the end of the stream).
  virtual size_t read(void* dst, size_t n) = 0;
  virtual void write(const void* src, size_t n) = 0;
  // The next byte without consuming it, or -1 at the end (for ascii parsing).
  virtual int peek() = 0;
  // Moves to absolute byte position pos (at most size()).
  virtual void seek(uint64_t pos) = 0;
  virtual uint64_t tell() const = 0;
  virtual uint64_t size() const = 0;
  virtual void flush() {}
  // Finishes the stream: an atomic file appears at its path. Later calls fail; idempotent.
  virtual void close() = 0;
  virtual bool is_open() const = 0;
  // A CPU storage of nbytes viewing the stream's bytes at offset without copying them, or an
  // empty Ref when the stream cannot map (memory streams, files opened for writing).
  virtual Ref<Storage> map(uint64_t /*offset*/, uint64_t /*nbytes*/) { return {}; }
  bool readable() const { return readable_; }
  bool writable() const { return writable_; }
  // The path, or "<memory>": error messages name it.
  const std::string& name() const { return name_; }
  uint64_t remaining() const { uint64_t p = tell(), s = size(); return s > p ? s - p : 0; }

  // Reads exactly n bytes or throws "unexpected end of file".
  void read_exact(void* dst, size_t n, const char* what);
  // Throws an io error naming the stream: "[io] <name>: <msg>".
  [[noreturn]] void fail(const std::string& msg) const;

 protected:
  Stream(std::string name, bool readable, bool writable)
      : name_(std::move(name)), readable_(readable), writable_(writable) {}
  void check_open() const;
  void check_readable() const;
  void check_writable() const;

 private:
  std::string name_;
  bool readable_, writable_;
};

// A growable buffer, or a read-only view of memory the caller keeps alive (borrowed).
class MemoryStream : public Stream {
 public:
  // A writable (and readable) stream holding a copy of data[0, n) (empty when data is NULL).
  MemoryStream(const void* data, size_t n);
  // A read-only view of data[0, n): no copy; data must outlive the stream.
  static std::unique_ptr<MemoryStream> borrow(const void* data, size_t n);

  size_t read(void* dst, size_t n) override;
  void write(const void* src, size_t n) override;
  int peek() override;
  void seek(uint64_t pos) override;
  uint64_t tell() const override { return pos_; }
  uint64_t size() const override { return size_; }
  void close() override { open_ = false; }
  bool is_open() const override { return open_; }
  // The bytes written so far (valid until the next write).
  const char* data() const { return borrowed_ ? borrowed_ : buf_.get(); }

 private:
  explicit MemoryStream(const void* borrowed, size_t n, bool);
  void reserve(size_t need);
  std::unique_ptr<char[]> buf_;
  const char* borrowed_ = nullptr;
  size_t cap_ = 0, size_ = 0, pos_ = 0;
  bool open_ = true;
};

}  // namespace io
}  // namespace tocha
