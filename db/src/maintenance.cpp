// Maintenance: prune stale sweeps and slow results, compact and check the file.
#include <sqlite3.h>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db/error.hpp"
#include "gemmtune/db/schema.hpp"
#include "rows.hpp"

namespace gemmtune::db {
namespace {

// The CHECK constraints a read-only connection's integrity_check leaves out (SQLite does not
// parse them for a read-only file), checked on a private copy of the file in memory: lines of
// "CHECK constraint failed in <table>". Nothing when the copy cannot be made (the integrity
// check reports why).
std::vector<std::string> failed_check_constraints(Connection& conn) {
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(conn.handle(), "main", &size, 0);
  if (!bytes) return {};
  if (size >= 20) bytes[18] = bytes[19] = 1;  // a rollback-journal file: memory has no WAL
  sqlite3* copy = nullptr;
  std::vector<std::string> failed;
  if (sqlite3_open_v2(":memory:", &copy, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_free(bytes);
  } else if (sqlite3_deserialize(copy, "main", bytes, size, size, SQLITE_DESERIALIZE_FREEONCLOSE) ==
             SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(copy, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW) {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
        const std::string line = text ? text : "";
        if (line.rfind("CHECK constraint failed", 0) == 0) failed.push_back(line);
      }
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(copy);
  return failed;
}

// Sweeps PruneOptions selects: ?1 days (or NULL), ?2 template hash to keep (or NULL).
constexpr const char* kSelected =
    "((?1 IS NOT NULL AND julianday(started_at) < julianday('now') - ?1)"
    " OR (?2 IS NOT NULL AND template_hash <> ?2))";
// Of those, the ones that may go: a sweep with no end time may still be running, and its next
// write would fail; it goes only on request (?3), once older than ?4 days.
constexpr const char* kMayGo =
    "(finished_at IS NOT NULL OR (?3 AND julianday(started_at) < julianday('now') - ?4))";

// Binds ?1 to ?4 of the statements below, and ?5 (keep_top) in those that name it
// (left_out_by_keep_top).
void bind(Statement& st, const PruneOptions& o, bool keep_top = false) {
  st.bind_real(1, o.older_than_days);
  if (o.keep_template_hash) st.bind_text(2, *o.keep_template_hash);
  st.bind_int(3, o.include_unfinished ? 1 : 0);
  st.bind_real(4, kUnfinishedSweepMinAgeDays);
  if (keep_top && o.keep_top) st.bind_int(5, std::int64_t(*o.keep_top));
}

std::int64_t count(Connection& conn, const std::string& sql, const PruneOptions& o,
                   bool keep_top = false) {
  Statement st(conn, sql);
  bind(st, o, keep_top);
  return st.step() ? st.get_int(0) : 0;
}

std::int64_t run(Connection& conn, const std::string& sql, const PruneOptions& o,
                 bool keep_top = false) {
  Statement st(conn, sql);
  bind(st, o, keep_top);
  st.run();
  return conn.changes();
}

// Rows of `table` whose sweep prune() drops.
std::string in_pruned_sweeps(const std::string& table) {
  return "SELECT count(*) FROM " + table + " WHERE sweep_id IN (SELECT id FROM sweeps WHERE " +
         kSelected + " AND " + kMayGo + ")";
}

// The results keep_top (?5) leaves out, of the sweeps the sweep criteria keep: failures, the
// slower configs of a problem (within each precision class `families` declare), a config's slower
// repeats. ?5 NULL: none.
std::string left_out_by_keep_top(std::span<const FamilySchema> families) {
  const std::string kept_sweeps = std::string("sweep_id NOT IN (SELECT id FROM sweeps WHERE ") +
                                  kSelected + " AND " + kMayGo + ")";
  return "?5 IS NOT NULL AND " + kept_sweeps + " AND id NOT IN (WITH " +
         detail::ranked_configs_cte("r." + kept_sweeps, families) +
         " SELECT result_id FROM ranked WHERE place <= ?5)";
}

// The configs no result names once `gone` (a condition on results) are gone.
std::string configs_left_unused(const std::string& gone) {
  return "NOT EXISTS (SELECT 1 FROM results AS r WHERE r.config_id = configs.id AND NOT (" + gone +
         "))";
}

}  // namespace

PruneStats Database::prune(const PruneOptions& o) {
  if (!o.dry_run) require_writable("prune");
  if (o.keep_top && *o.keep_top < 1)
    throw DatabaseError("prune: keep the fastest 1 or more configs of each problem, not " +
                        std::to_string(*o.keep_top));
  PruneStats stats;
  Transaction tx(conn_, o.dry_run ? TransactionKind::deferred : TransactionKind::immediate);
  Statement list(conn_, std::string("SELECT id, started_at FROM sweeps WHERE ") + kSelected +
                            " AND " + kMayGo + " ORDER BY started_at, id");
  bind(list, o);
  while (list.step()) stats.dropped.emplace_back(list.get_int(0), list.get_text(1));
  stats.results = count(conn_, in_pruned_sweeps("results"), o);
  stats.baselines = count(conn_, in_pruned_sweeps("baselines"), o);
  stats.unfinished_kept = count(
      conn_, std::string("SELECT count(*) FROM sweeps WHERE ") + kSelected + " AND NOT " + kMayGo,
      o);
  const std::string left_out = left_out_by_keep_top(families_);
  const std::string in_pruned =
      std::string("sweep_id IN (SELECT id FROM sweeps WHERE ") + kSelected + " AND " + kMayGo + ")";
  if (o.keep_top) {
    stats.results += count(conn_, "SELECT count(*) FROM results WHERE " + left_out, o, true);
    stats.configs = count(conn_,
                          "SELECT count(*) FROM configs WHERE " +
                              configs_left_unused("(" + in_pruned + ") OR (" + left_out + ")"),
                          o, true);
  }
  if (o.drop_binaries) {
    Statement binaries(conn_, "SELECT count(*) FROM binaries");
    stats.binaries = binaries.step() ? binaries.get_int(0) : 0;
  }
  if (o.dry_run) {
    stats.sweeps = std::int64_t(stats.dropped.size());
    return stats;  // the transaction rolls back: nothing was written anyway
  }
  // Results and baselines go with their sweep (ON DELETE CASCADE).
  stats.sweeps =
      run(conn_, std::string("DELETE FROM sweeps WHERE ") + kSelected + " AND " + kMayGo, o);
  if (o.keep_top) {
    run(conn_, "DELETE FROM results WHERE " + left_out, o, true);
    Statement unused(conn_, "DELETE FROM configs WHERE " + configs_left_unused("0"));
    unused.run();
  }
  if (o.drop_binaries) Statement(conn_, "DELETE FROM binaries").run();
  tx.commit();
  return stats;
}

std::pair<std::int64_t, std::int64_t> Database::vacuum() {
  require_writable("vacuum");
  auto size = [this] {
    Statement st(conn_,
                 "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()");
    return st.step() ? st.get_int(0) : 0;
  };
  const std::int64_t before = size();
  conn_.exec("VACUUM");
  return {before, size()};
}

CheckReport Database::check() const {
  CheckReport report;
  report.schema_version = schema_version(conn_);
  // An older version this build reads is no damage (the open refuses the others; a writable
  // one migrated the file).
  if (report.schema_version < kOldestReadableVersion || report.schema_version > kSchemaVersion) {
    report.problems.push_back("schema version " + std::to_string(report.schema_version) +
                              ", expected " + std::to_string(kSchemaVersion));
  }
  Statement integrity(conn_, "PRAGMA integrity_check");
  while (integrity.step()) {
    const std::string line = integrity.get_text(0);
    if (line != "ok") report.problems.push_back("integrity: " + line);
  }
  if (conn_.mode() == OpenMode::read_only)
    for (const std::string& line : failed_check_constraints(conn_))
      report.problems.push_back("constraint: " + line);
  Statement fk(conn_, "PRAGMA foreign_key_check");
  while (fk.step()) {
    report.problems.push_back("foreign key: " + fk.get_text(0) + " row " + fk.get_text(1) +
                              " refers to a missing row of " + fk.get_text(2));
  }
  Statement keys(conn_, "SELECT key FROM binaries ORDER BY id");
  while (keys.step()) {
    const BinaryLookup hit = get_binary(keys.get_text(0));
    if (!hit.corrupt.empty()) report.problems.push_back(hit.corrupt);
  }
  return report;
}

}  // namespace gemmtune::db
