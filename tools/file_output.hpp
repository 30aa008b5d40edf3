#pragma once
// Files the commands write (exports, --json results): checked before the work that fills them,
// and written through a temporary file, so that a failed run leaves what was there as it was.
// Header-only: tools/CMakeLists.txt compiles cmd_*.cpp only.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "gemmtune/error.hpp"

namespace gemmtune::cli {

/// Throws a usage error unless `path` can be written: a writable device or pipe, or a file in a
/// directory that exists and is writable. For options whose file is written only after long work.
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
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec) || ::access(dir.c_str(), W_OK) != 0)
    throw Error(Status::kInvalidArgument,
                "cannot write '" + path + "': check that its directory exists and is writable");
}

/// Writes `path` through a temporary file beside it, renamed over `path` once complete: a failed
/// write leaves the file that was there as it was. A device or pipe (/dev/stdout, a FIFO) is
/// written directly: it has no contents to keep, and cannot be renamed over.
inline void write_replacing(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  auto failed = [](const std::string& message) { return Error(Status::kInvalidArgument, message); };
  std::error_code ec;
  fs::path target = fs::weakly_canonical(path, ec);  // through a symlink: the file it names
  if (ec) target = path;
  const bool direct = fs::exists(target, ec) && !fs::is_regular_file(target, ec);
  const fs::path temp =
      direct ? target : fs::path(target.string() + ".tmp-" + std::to_string(::getpid()));
  std::ofstream file(temp, std::ios::binary | std::ios::trunc);
  if (!file) throw failed("cannot write '" + path + "': check that its directory exists and is writable");
  try {
    write(file);
    file.close();
    if (!file) throw failed("writing '" + path + "' failed: " + std::strerror(errno));
    if (!direct) fs::rename(temp, target);
  } catch (const fs::filesystem_error& e) {
    fs::remove(temp, ec);
    throw failed("cannot replace '" + path + "': " + e.code().message());
  } catch (...) {
    if (!direct) fs::remove(temp, ec);
    throw;
  }
}

}  // namespace gemmtune::cli
