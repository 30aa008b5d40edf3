// Opening a tuning database: the default path, schema checks, WAL, migration.
#include "gemmtune/db/database.hpp"

#include <cstdlib>
#include <filesystem>

#include "gemmtune/db/error.hpp"
#include "gemmtune/db/schema.hpp"
#include "rows.hpp"

namespace gemmtune::db {
namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The XDG Base Directory cache: $XDG_CACHE_HOME/gemmtune/tuning.db when that is set to an
// absolute path (the specification says to ignore a relative one), else
// $HOME/.cache/gemmtune/tuning.db; empty without either.
std::string cache_default_path() {
  const std::string xdg = env("XDG_CACHE_HOME");
  if (!xdg.empty() && fs::path(xdg).is_absolute())
    return (fs::path(xdg) / "gemmtune" / "tuning.db").string();
  const std::string home = env("HOME");
  return home.empty() ? "" : (fs::path(home) / ".cache" / "gemmtune" / "tuning.db").string();
}

Connection open_connection(const std::string& path, OpenMode mode,
                           std::span<const FamilySchema> families) {
  // Only gemmtune's own default location is created; a path someone typed must already have its
  // directory, or a typo would silently scatter databases.
  if (mode == OpenMode::read_write && !path.empty() && path == cache_default_path()) {
    std::error_code ec;
    fs::create_directories(fs::path(path).parent_path(), ec);
    if (ec) {
      throw DatabaseError("cannot create the directory of tuning database '" + path +
                          "': " + ec.message() + "; create it or set GEMMTUNE_DB");
    }
  }
  Connection conn(path, mode);
  // Before anything could write to a file we must not alter.
  check_schema_compatible(conn, families);
  if (mode == OpenMode::read_write) {
    // WAL lets several sweeps write while readers read; NORMAL sync loses no committed
    // transaction when a process dies (only, at worst, the last ones on power loss).
    conn.enable_wal();
    conn.exec("PRAGMA synchronous = NORMAL");
    migrate(conn, kSchemaVersion, families);
  }
  return conn;
}

}  // namespace

std::string default_database_path() {
  std::string path = env("GEMMTUNE_DB");
  if (!path.empty()) return path;
  path = cache_default_path();
  if (path.empty()) {
    throw DatabaseError(
        "no tuning database path: none of GEMMTUNE_DB, XDG_CACHE_HOME and HOME is set; set "
        "GEMMTUNE_DB to the database file");
  }
  return path;
}

Database::Database(const std::string& path, OpenMode mode, std::span<const FamilySchema> families)
    : conn_(open_connection(path, mode, families)),
      families_(families.begin(), families.end()),
      knob_columns_(detail::knob_columns(conn_, "configs")) {}

Database Database::open_default(OpenMode mode, std::span<const FamilySchema> families) {
  return Database(default_database_path(), mode, families);
}

void Database::require_writable(const char* action) const {
  if (conn_.mode() != OpenMode::read_write) {
    throw DatabaseError("cannot " + std::string(action) + " in tuning database '" + conn_.path() +
                        "': it was opened read-only; open it read-write");
  }
}

}  // namespace gemmtune::db
