// Whole-file private mappings shared by storages. See file_mapping.h.
#include "core/io/file_mapping.h"
#include <cerrno>
#include <sys/mman.h>
#include "core/error.h"
#include "core/io/atomic_file.h"

namespace tocha {
namespace io {

Ref<FileMapping> FileMapping::map_fd(int fd, size_t length, const std::string& name) {
  TOCHA_CHECK(length > 0, "io", name, ": cannot map an empty file");
  // MAP_PRIVATE: tensors stay writable (copy-on-write) and the file is never modified.
  void* p = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) throw Error(str_cat("[io] ", name, ": mmap failed: ", errno_str(errno)));
  return Ref<FileMapping>::adopt(new FileMapping(static_cast<char*>(p), length));
}

FileMapping::~FileMapping() { munmap(base_, length_); }

Ref<Storage> FileMapping::storage(uint64_t offset, uint64_t nbytes) {
  TOCHA_CHECK(offset <= length_ && nbytes <= length_ - offset, "io", "mapped region [", offset, ", ",
              offset + nbytes, ") is outside the file (", length_, " bytes)");
  retain();  // released by the storage's deleter
  auto release = [](void*, void* ctx) { destroy_ref(static_cast<FileMapping*>(ctx)); };
  return Storage::from_blob(base_ + offset, size_t(nbytes), Device{}, release, this);
}

}  // namespace io
}  // namespace tocha
