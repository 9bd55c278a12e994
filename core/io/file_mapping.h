// A private, copy-on-write mmap of a whole file, shared by every storage that views it: the
// mapping lives until the last such storage is freed (torch.load(path, {mmap=true})).
#pragma once
#include <cstddef>
#include <cstdint>
#include "core/ref.h"
#include "core/storage.h"

namespace tocha {
namespace io {

class FileMapping : public RefCounted {
 public:
  // Maps the first `length` bytes of fd read/write private (writes never reach the file).
  static Ref<FileMapping> map_fd(int fd, size_t length, const std::string& name);
  // A CPU storage of nbytes at offset inside the mapping; it keeps the mapping alive.
  Ref<Storage> storage(uint64_t offset, uint64_t nbytes);
  size_t length() const { return length_; }
  static void destroy_ref(FileMapping* m) { if (m->release_ref()) delete m; }

 private:
  FileMapping(char* base, size_t length) : base_(base), length_(length) {}
  ~FileMapping();
  char* base_;
  size_t length_;
};

}  // namespace io
}  // namespace tocha
