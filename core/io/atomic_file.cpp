// Temp-file-and-rename writes. See atomic_file.h.
#include "core/io/atomic_file.h"
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"

namespace tocha {
namespace io {

std::string errno_str(int err) {
  char buf[256];
  // GNU strerror_r returns a char* that may or may not be buf.
  return std::string(strerror_r(err, buf, sizeof buf));
}

namespace {

[[noreturn]] void fail_errno(const std::string& path, const char* what, int err) {
  throw Error(str_cat("[io] ", path, ": ", what, ": ", errno_str(err)));
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Writing through a symlink replaces the file it points to, not the link itself.
std::string resolve_target(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    char buf[PATH_MAX];
    if (realpath(path.c_str(), buf)) return buf;
  }
  return path;
}

}  // namespace

TempFile open_temp_beside(const std::string& path) {
  TOCHA_CHECK(!path.empty(), "io", "empty file name");
  TempFile f;
  f.final_path = resolve_target(path);
  struct stat st;
  if (stat(f.final_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error(str_cat("[io] ", path, ": is a directory"));
  std::string dir = dir_of(f.final_path), base = base_of(f.final_path);
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    f.temp_path = str_cat(dir == "/" ? "" : dir, "/.", base, ".", getpid(), ".", counter.fetch_add(1), ".tmp");
    // O_EXCL: never reuse a file someone else created; 0666 lets the umask apply as for fopen.
    f.fd = ::open(f.temp_path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f.fd >= 0) break;
    if (errno != EEXIST) fail_errno(path, "cannot create a temporary file in its directory", errno);
  }
  if (f.fd < 0) fail_errno(path, "cannot create a temporary file in its directory", EEXIST);
  // Replacing a file keeps its permissions.
  if (stat(f.final_path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) (void)fchmod(f.fd, st.st_mode & 07777);
  return f;
}

void commit_temp(TempFile& f) {
  TOCHA_ASSERT(f.fd >= 0);
  int fd = f.fd;
  f.fd = -1;
  if (fsync(fd) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(f.temp_path.c_str());
    fail_errno(f.final_path, "fsync failed", err);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(f.temp_path.c_str());
    fail_errno(f.final_path, "close failed", err);
  }
  if (::rename(f.temp_path.c_str(), f.final_path.c_str()) != 0) {
    int err = errno;
    ::unlink(f.temp_path.c_str());
    fail_errno(f.final_path, "cannot replace the file", err);
  }
  // The rename itself is durable only once the directory entry is flushed.
  int dfd = ::open(dir_of(f.final_path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd);
    ::close(dfd);
  }
}

void discard_temp(TempFile& f) noexcept {
  if (f.fd < 0) return;
  ::close(f.fd);
  f.fd = -1;
  ::unlink(f.temp_path.c_str());
}

}  // namespace io
}  // namespace tocha
