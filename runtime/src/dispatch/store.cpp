// The dispatcher's database connection: opening per DbAccess (degrading, never failing), the
// binary cache.
#include <unistd.h>

#include <filesystem>

#include "gemmtune/db/error.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/logging.hpp"
#include "store.hpp"

namespace gemmtune::detail {

namespace fs = std::filesystem;

namespace {
bool can_write(const std::string& path) {
  // WAL mode writes -wal and -shm files next to the database: its directory must be writable too.
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  return ::access(path.c_str(), W_OK) == 0 && ::access(dir.c_str(), W_OK) == 0;
}
}  // namespace

TuningStore::TuningStore(const std::string& path, DbAccess access, bool verbose)
    : verbose_(verbose) {
  if (access == DbAccess::none) {
    why_closed_ = "no database (DbAccess::none)";
    return;
  }
  std::string file = path;
  std::vector<std::string> failures;
  try {
    if (file.empty()) file = db::default_database_path();
  } catch (const std::exception& e) {
    failures.push_back(e.what());
  }
  auto try_open = [&](db::OpenMode mode) {
    try {
      db_.emplace(file, mode, kernel_families());
      return true;
    } catch (const std::exception& e) {
      failures.push_back(e.what());
      return false;
    }
  };
  if (!file.empty()) {
    std::error_code ec;
    bool exists = fs::exists(file, ec);
    switch (access) {
      case DbAccess::automatic:
        if (!exists) {
          failures.push_back("no tuning database at '" + file +
                             "' (run `gemmtune sweep` to create one, or set GEMMTUNE_DB)");
          break;
        }
        if (can_write(file) && try_open(db::OpenMode::read_write)) break;
        try_open(db::OpenMode::read_only);
        break;
      case DbAccess::read_only: try_open(db::OpenMode::read_only); break;
      case DbAccess::read_write:
        if (!try_open(db::OpenMode::read_write) && exists) try_open(db::OpenMode::read_only);
        break;
      case DbAccess::none: break;
    }
  }
  if (db_) {
    path_ = file;
    if (!failures.empty() && verbose_)
      log(LogLevel::info, "database '" + file + "' opened read-only: " + failures.front());
    if (access == DbAccess::read_write && db_->mode() != db::OpenMode::read_write)
      warn_once("read-only " + file, "tuning database '" + file +
                                         "' could not be opened read-write (" + failures.front() +
                                         "); compiled kernels will not be cached in it");
    return;
  }
  for (size_t i = 0; i < failures.size(); ++i)
    if (i == 0 || failures[i] != failures[i - 1])
      why_closed_ += (why_closed_.empty() ? "" : "; ") + failures[i];
  warn_once("database " + file, why_closed_ + "; using built-in default kernels");
}

bool TuningStore::writable() const { return db_ && db_->mode() == db::OpenMode::read_write; }

TuningSnapshot TuningStore::snapshot(const GpuIdentity& gpu) {
  std::lock_guard lock(mutex_);
  if (!db_) {
    TuningSnapshot s;
    s.notes.push_back(why_closed_);
    return s;
  }
  try {
    return load_tuning_snapshot(*db_, gpu);
  } catch (const std::exception& e) {
    warn_once("read " + path_, "cannot read tuning database '" + path_ + "': " + e.what() +
                                   "; using built-in default kernels");
    TuningSnapshot s;
    s.database = path_;
    s.notes.push_back(std::string("cannot read the tuning database: ") + e.what());
    return s;
  }
}

std::optional<db::Binary> TuningStore::get_binary(const std::string& key) {
  std::lock_guard lock(mutex_);
  if (!db_) return std::nullopt;
  try {
    db::BinaryLookup found = db_->get_binary(key);
    if (!found.corrupt.empty()) log(LogLevel::warning, found.corrupt);
    return std::move(found.binary);
  } catch (const std::exception& e) {
    warn_once("binaries " + path_, "cannot read cached kernels from '" + path_ + "': " + e.what() +
                                       "; compiling them instead");
    return std::nullopt;
  }
}

void TuningStore::put_binary(const db::Binary& binary) {
  std::lock_guard lock(mutex_);
  if (!db_ || db_->mode() != db::OpenMode::read_write) return;
  try {
    db_->put_binary(binary);
  } catch (const std::exception& e) {
    warn_once("store " + path_, "cannot cache compiled kernels in '" + path_ + "': " + e.what());
  }
}

}  // namespace gemmtune::detail
