// Atomic file replacement (DESIGN.md decision 11): write a temp file in the target's directory,
// fsync it, rename it over the target, fsync the directory. A crash at any point leaves either
// the previous file or the complete new one, never a mix.
#pragma once
#include <string>

namespace tocha {
namespace io {

struct TempFile {
  int fd = -1;
  std::string temp_path;   // ".<name>.<pid>.<n>.tmp" beside the target
  std::string final_path;  // the target (a symlink's destination when the target is a link)
  bool direct = false;     // fd is the target itself (a device), Note [Saving to special files]
};

// Creates a new temp file beside `path` with the target's permissions (or 0666 & ~umask); a
// read-only target is refused as fopen would, and a device is written in place.
TempFile open_temp_beside(const std::string& path);
// Makes the temp file's contents durable and renames it over the target; closes the fd.
void commit_temp(TempFile& f);
// Closes and removes the temp file (an abandoned write); never throws.
void discard_temp(TempFile& f) noexcept;
// strerror(errno) as a std::string, thread-safe.
std::string errno_str(int err);

}  // namespace io
}  // namespace tocha
