// `gemmtune db check`: SQLite's integrity and foreign-key checks, the schema version, and every
// cached binary re-hashed. Exit 1 when anything is wrong.
#include "db_commands.hpp"
#include "gemmtune/db/reports.hpp"
#include "gemmtune/db/schema.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct CheckOptions {
  std::string db;
};

void run_check(const CheckOptions& o) {
  const std::string path = database_path(o.db);
  require_database_file(path, "check");
  db::Database db(path, db::OpenMode::read_only);
  const db::CheckReport report = db.check();
  std::string out = path + "\n";
  out += format("  schema version %d (this build: %d%s)\n", report.schema_version, db::kSchemaVersion,
                report.schema_version < db::kSchemaVersion ? "; read as it; `gemmtune db migrate` updates it" : "");
  const db::RowCounts rows = db::row_counts(db);
  out += format(
      "  %lld GPU models, %lld sweeps, %lld problems, %lld configs, %lld results, %lld binaries\n",
      (long long)rows.gpu_models, (long long)rows.sweeps, (long long)rows.problems,
      (long long)rows.configs, (long long)rows.results, (long long)rows.binaries);
  if (report.ok()) {
    out += "  ok: integrity, foreign keys and binary hashes\n";
    print(out);
    return;
  }
  out += format("  %zu problems:\n", report.problems.size());
  for (const auto& p : report.problems) out += "  - " + p + "\n";
  print(out);
  exit_status() = 1;
}

void add_db_check(CLI::App& db) {
  auto o = std::make_shared<CheckOptions>();
  auto* cmd = db.add_subcommand("check",
                                "Check integrity, foreign keys, schema version and cached binaries");
  add_db_option(cmd, o->db);
  cmd->callback([o] { run_check(*o); });
}

const DbRegistration kRegistration("check", add_db_check);

}  // namespace
}  // namespace gemmtune::cli
