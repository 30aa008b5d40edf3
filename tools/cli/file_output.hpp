#pragma once
// Files the commands write (exports, --json results, merged databases): checked before the work
// that fills them, and written through a temporary file made exclusively beside the target, so
// that a failed run leaves what was there as it was and a link planted by another user is never
// followed. Header-only: tools/cli/CMakeLists.txt compiles cmd_*.cpp only.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <ostream>
#include <random>
#include <stdexcept>
#include <streambuf>
#include <string>

#include "gemmtune/error.hpp"

namespace gemmtune::cli {

/// Writing an output file failed after its checks passed (a full disk, an I/O error): a failure
/// (exit status 1), not a usage error.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Throws a usage error unless `path` can be written: a writable device or pipe, or a file in a
/// directory that exists and is writable. A symbolic link to anything but a device or pipe is
/// refused (write_replacing does not write through links). For options whose file is written
/// only after long work.
inline void check_writable(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw Error(Status::kInvalidArgument, "'" + path + "' is a directory: name a file in it");
  // A device or pipe is written directly (write_replacing): it need only be writable itself.
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) {
    if (::access(path.c_str(), W_OK) != 0)
      throw Error(Status::kInvalidArgument, "cannot write '" + path + "': " + std::strerror(errno));
    return;
  }
  if (fs::is_symlink(fs::symlink_status(path, ec)))
    throw Error(Status::kInvalidArgument,
                "'" + path +
                    "' is a symbolic link: gemmtune does not write files through links; "
                    "name the file it points to, or remove the link");
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
    throw Error(Status::kInvalidArgument,
                "cannot write '" + path + "': check that its directory exists and is writable");
}

/// A new file beside `path` (same directory), named `<path>.<tag>-<random>`, created exclusively
/// (O_CREAT | O_EXCL | O_NOFOLLOW: never a file or link someone else put there) with `mode` less
/// the umask. Returns the open descriptor and sets `name`; returns -1 with errno set on failure.
inline int create_file_beside(const std::string& path, const char* tag, mode_t mode,
                              std::string& name) {
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(random()));
    name = path + "." + tag + "-" + suffix;
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;  // errno is EEXIST
}

namespace detail {

// An output stream buffer on a file descriptor: the temporary file is written through the
// descriptor that created it, never reopened by name.
class FdBuffer : public std::streambuf {
 public:
  explicit FdBuffer(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  /// errno of the first failed write, or 0.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(fd_, p, pptr() - p);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return -1;
      }
      p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return 0;
  }

 private:
  int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

}  // namespace detail

/// Writes `path` through a temporary file beside it (create_file_beside), renamed over `path`
/// once complete: a failed write leaves the file that was there as it was, and an existing file
/// keeps its permission bits. A device or pipe (/dev/stdout, a FIFO) is written directly: it has
/// no contents to keep, and cannot be renamed over. A symbolic link at `path` to anything else is
/// refused: writing through it would replace a file that another user may have chosen. Throws
/// Error (exit status 2) when `path` cannot be written at all, OutputError (1) when writing fails.
inline void write_replacing(const std::string& path,
                            const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  auto refused = [](const std::string& message) {
    return Error(Status::kInvalidArgument, message);
  };
  struct stat link {};
  struct stat target {};
  const bool exists = ::lstat(path.c_str(), &link) == 0;
  const bool resolves = ::stat(path.c_str(), &target) == 0;
  if (resolves && S_ISDIR(target.st_mode))
    throw refused("'" + path + "' is a directory: name a file in it");
  if (resolves &&
      !S_ISREG(target.st_mode)) {  // a device or pipe, maybe through a link (/dev/stdout)
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw refused("cannot write '" + path + "': " + std::strerror(errno));
    detail::FdBuffer buffer(fd);
    std::ostream out(&buffer);
    write(out);
    out.flush();
    const int error = buffer.error();
    ::close(fd);
    if (!out || error)
      throw OutputError("writing '" + path + "' failed: " + std::strerror(error ? error : EIO));
    return;
  }
  if (exists && S_ISLNK(link.st_mode))
    throw refused("'" + path +
                  "' is a symbolic link: gemmtune does not write files through links; name the "
                  "file it points to, or remove the link");
  std::string temp;
  const int fd = create_file_beside(path, "tmp", exists ? (link.st_mode & 07777) : 0666, temp);
  if (fd < 0)
    throw refused("cannot write '" + path + "': " + std::strerror(errno) +
                  " (check that its directory exists and is writable)");
  std::error_code ignored;
  bool closed = false;
  try {
    // The umask applied at creation; an existing file's bits are kept as they were.
    if (exists && ::fchmod(fd, link.st_mode & 07777) != 0)
      throw OutputError("cannot keep the permissions of '" + path + "': " + std::strerror(errno));
    detail::FdBuffer buffer(fd);
    std::ostream out(&buffer);
    write(out);
    out.flush();
    if (!out || buffer.error())
      throw OutputError("writing '" + path +
                        "' failed: " + std::strerror(buffer.error() ? buffer.error() : EIO));
    if (::fsync(fd) != 0)
      throw OutputError("writing '" + path + "' failed: " + std::strerror(errno));
    closed = true;
    if (::close(fd) != 0)
      throw OutputError("writing '" + path + "' failed: " + std::strerror(errno));
  } catch (...) {
    if (!closed) ::close(fd);
    fs::remove(temp, ignored);
    throw;
  }
  // rename() replaces whatever is at `path` then, a link included, and never follows one.
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    fs::remove(temp, ignored);
    throw OutputError("cannot replace '" + path + "': " + std::strerror(error));
  }
}

}  // namespace gemmtune::cli
