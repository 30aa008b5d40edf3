#pragma once
// The dispatcher's side of the tuning database (private: db types stay out of public headers).
// One connection per dispatcher, serialised by a mutex; only the slow path (creation, the first
// call of a problem class, explain) touches it. A database that cannot be opened degrades to
// "none" with one warning per process.
#include <mutex>
#include <optional>
#include <string>

#include "gemmtune/choice.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/gemmtune.hpp"

namespace gemmtune::detail {

/// What the tuning data of one GPU model in an open database is.
TuningSnapshot load_tuning_snapshot(const db::Database& database, const GpuIdentity& gpu);

/// The tuned-best row as the chooser sees it.
TunedBest to_tuned_best(const db::BestRow& row);

/// A dispatcher's database connection: opened per DbAccess, binary-cache reads and writes.
class TuningStore {
 public:
  /// Opens `path` (empty: the default path) as `access` asks; never throws for database
  /// problems: the store is then closed and one warning is printed per process.
  TuningStore(const std::string& path, DbAccess access, bool verbose);

  /// Whether a database is open.
  bool is_open() const { return db_.has_value(); }
  /// Whether compiled kernels are stored.
  bool writable() const;
  /// The path of the open database; empty when none.
  const std::string& path() const { return path_; }
  /// Why no database is open (empty when one is).
  const std::string& why_closed() const { return why_closed_; }

  /// The tuning data of `gpu` (empty with a note when closed).
  TuningSnapshot snapshot(const GpuIdentity& gpu);
  /// The cached binary under `key`; a corrupt entry is a miss and a logged warning.
  std::optional<db::Binary> get_binary(const std::string& key);
  /// Stores a binary when writable; a failure is a warning (the kernel still runs).
  void put_binary(const db::Binary& binary);

 private:
  std::mutex mutex_;
  std::optional<db::Database> db_;
  std::string path_;
  std::string why_closed_;
  bool verbose_ = false;
};

}  // namespace gemmtune::detail
