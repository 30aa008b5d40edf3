#include "file_checks.hpp"

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gemmtune/db/error.hpp"

namespace gemmtune::db::detail {
namespace fs = std::filesystem;
namespace {

constexpr char kMagic[] = "SQLite format 3";  // 16 bytes with its NUL
constexpr std::size_t kHeaderSize = 100;

std::uint32_t big_endian(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

[[noreturn]] void fail(const std::string& path, const std::string& cause) {
  throw DatabaseError("cannot open tuning database '" + path + "': " + cause);
}

bool non_empty_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && fs::file_size(path, ec) > 0 && !ec;
}

// The header tells the page size and count; a shorter file lost its tail. Only meaningful when no
// WAL or rollback journal holds pages that recovery would write back.
void check_header(const std::string& path, std::uintmax_t size) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail(path, std::string("cannot read it: ") + std::strerror(errno) + "; check its permissions");
  std::array<unsigned char, kHeaderSize> h{};
  in.read(reinterpret_cast<char*>(h.data()), h.size());
  const auto got = static_cast<std::size_t>(in.gcount());
  const std::size_t magic_len = sizeof(kMagic);
  if (std::memcmp(h.data(), kMagic, std::min(got, magic_len)) != 0) {
    fail(path,
         "it is not an SQLite database (it does not begin with the SQLite header); move it "
         "away or point GEMMTUNE_DB at a tuning database");
  }
  if (got < kHeaderSize) {
    fail(path, "the file is truncated (" + std::to_string(size) +
                   " bytes, shorter than the 100-byte SQLite header); restore it from a backup or "
                   "move it away and re-run the sweep");
  }
  std::uint64_t page_size = big_endian(&h[16], 2);
  if (page_size == 1) page_size = 65536;
  const std::uint32_t pages = big_endian(&h[28], 4);
  const bool count_valid = big_endian(&h[24], 4) == big_endian(&h[92], 4);
  const bool journaled = has_wal_content(path) || non_empty_file(path + "-journal");
  if (count_valid && !journaled && pages > 0 && size < page_size * pages) {
    fail(path, "the file is truncated (" + std::to_string(size) + " bytes, its header says " +
                   std::to_string(page_size * pages) +
                   "); restore it from a backup or move it away and re-run the sweep");
  }
}

}  // namespace

bool has_wal_content(const std::string& path) { return non_empty_file(path + "-wal"); }

void check_file_before_open(const std::string& path, OpenMode mode) {
  if (path.empty()) {
    throw DatabaseError("tuning database path is empty; give a file path or set GEMMTUNE_DB");
  }
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::is_directory(st)) {
    fail(path, "it is a directory; give a file path such as '" +
                   (fs::path(path) / "tuning.db").string() + "'");
  }
  if (!fs::exists(st)) {
    if (mode == OpenMode::read_only) {
      fail(path,
           "the file does not exist; run `gemmtune sweep` to create it or set GEMMTUNE_DB to "
           "an existing database");
    }
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    if (!fs::is_directory(dir, ec)) {
      fail(path, "directory '" + dir.string() + "' does not exist; create it or set GEMMTUNE_DB");
    }
    return;
  }
  if (!fs::is_regular_file(st)) fail(path, "it is not a regular file");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) fail(path, "cannot read its size: " + ec.message());
  if (size > 0) check_header(path, size);  // an empty file is a new database
}

std::string file_uri(const std::string& path, const std::string& query) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char ch : path) {
    if (ch == '?' || ch == '#' || ch == '%' || ch <= 0x20 || ch >= 0x7f) {
      uri += '%';
      uri += kHex[ch >> 4];
      uri += kHex[ch & 15];
    } else {
      uri += static_cast<char>(ch);
    }
  }
  return uri + "?" + query;
}

}  // namespace gemmtune::db::detail
