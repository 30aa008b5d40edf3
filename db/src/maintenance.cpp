// Maintenance: prune stale sweeps, check the file.
#include "gemmtune/db/database.hpp"
#include "gemmtune/db/schema.hpp"

namespace gemmtune::db {
namespace {

// Sweeps selected by PruneOptions: ?1 days (or NULL), ?2 template hash to keep (or NULL).
constexpr const char* kPrunedSweeps =
    "SELECT id FROM sweeps WHERE (?1 IS NOT NULL AND julianday(started_at) < julianday('now') - ?1)"
    " OR (?2 IS NOT NULL AND template_hash <> ?2)";

std::int64_t count(Connection& conn, const std::string& table, const PruneOptions& o) {
  Statement st(conn,
               "SELECT count(*) FROM " + table + " WHERE sweep_id IN (" + kPrunedSweeps + ")");
  st.bind_real(1, o.older_than_days);
  if (o.keep_template_hash) st.bind_text(2, *o.keep_template_hash);
  return st.step() ? st.get_int(0) : 0;
}

}  // namespace

PruneStats Database::prune(const PruneOptions& o) {
  require_writable("prune");
  PruneStats stats;
  Transaction tx(conn_);
  stats.results = count(conn_, "results", o);
  stats.baselines = count(conn_, "baselines", o);
  // Results and baselines go with their sweep (ON DELETE CASCADE).
  Statement del(conn_, std::string("DELETE FROM sweeps WHERE id IN (") + kPrunedSweeps + ")");
  del.bind_real(1, o.older_than_days);
  if (o.keep_template_hash) del.bind_text(2, *o.keep_template_hash);
  del.run();
  stats.sweeps = conn_.changes();
  tx.commit();
  return stats;
}

CheckReport Database::check() const {
  CheckReport report;
  report.schema_version = schema_version(conn_);
  if (report.schema_version != kSchemaVersion) {
    report.problems.push_back("schema version " + std::to_string(report.schema_version) +
                              ", expected " + std::to_string(kSchemaVersion));
  }
  Statement integrity(conn_, "PRAGMA integrity_check");
  while (integrity.step()) {
    const std::string line = integrity.get_text(0);
    if (line != "ok") report.problems.push_back("integrity: " + line);
  }
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
