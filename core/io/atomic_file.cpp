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

// Writing through a symlink replaces the file it points to, not the link itself; a dangling link
// gets its target created, as fopen would (realpath fails on those, so the links are followed by
// hand, at most 40 deep like the kernel).
std::string resolve_target(const std::string& path) {
  std::string p = path;
  for (int depth = 0; depth < 40; ++depth) {
    struct stat st;
    if (lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    char buf[PATH_MAX];
    ssize_t n = readlink(p.c_str(), buf, sizeof buf - 1);
    if (n <= 0) return p;
    std::string target(buf, size_t(n));
    p = target[0] == '/' ? target : str_cat(dir_of(p), "/", target);
  }
  throw Error(str_cat("[io] ", path, ": too many levels of symbolic links"));
}

}  // namespace

TempFile open_temp_beside(const std::string& path) {
  TOCHA_CHECK(!path.empty(), "io", "empty file name");
  TempFile f;
  f.final_path = resolve_target(path);
  struct stat st;
  const bool exists = stat(f.final_path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw Error(str_cat("[io] ", path, ": is a directory"));
  // Note [Saving to special files]: the temp file renamed over the target would replace a FIFO,
  // socket or device by a regular file (as root, saving to /dev/null destroyed /dev/null). A
  // device is written in place, as Torch7's fopen did (no atomicity to keep there); a FIFO or
  // socket cannot take positional writes and is refused. A target the user may not write is
  // refused like fopen's "Permission denied" rather than silently replaced through the directory.
  if (exists && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
    throw Error(str_cat("[io] ", path, ": is a FIFO or socket; torch.save writes regular files and devices"));
  if (exists && access(f.final_path.c_str(), W_OK) != 0) fail_errno(path, "cannot open for writing", errno);
  if (exists && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
    f.fd = ::open(f.final_path.c_str(), O_WRONLY | O_CLOEXEC);
    if (f.fd < 0) fail_errno(path, "cannot open for writing", errno);
    f.direct = true;
    return f;
  }
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
  if (f.direct) {  // a device written in place: nothing to rename
    if (::close(fd) != 0) fail_errno(f.final_path, "close failed", errno);
    return;
  }
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
  if (!f.direct) ::unlink(f.temp_path.c_str());
}

}  // namespace io
}  // namespace tocha
