// `gemmtune db check`: SQLite's integrity and foreign-key checks, the schema version, and every
// cached binary re-hashed and checked against its config. Exit 1 when anything is wrong.
#include "db_commands.hpp"
#include "gemmtune/compiler.hpp"
#include "gemmtune/db/reports.hpp"
#include "gemmtune/db/schema.hpp"
#include "gemmtune/db_rows.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct CheckOptions {
  std::string db;
};

// Cached binaries whose bytes hash right but that no gemmtune would load (from_binary): a config
// name that is none, an entry point that is not the config's kernel (another config's cubin
// planted under its name), a cubin without that entry point.
void check_binaries(const db::Database& db, std::vector<std::string>& problems) {
  for (const std::string& key : db.binary_keys()) {
    const db::BinaryLookup hit = db.get_binary(key);
    if (!hit.binary) continue;  // damage is reported already; an older hash is a miss, no damage
    const db::Binary& b = *hit.binary;
    const std::optional<GemmConfig> config = parse_config_name(b.config_name);
    std::string why;
    if (!config) {
      why = "'" + b.config_name.substr(0, 200) + "' is not a config name";
    } else if (!is_entry_of(*config, b.lowered_name)) {
      why = "its entry point '" + b.lowered_name.substr(0, 200) + "' is not the config's kernel";
    } else {
      const std::vector<char> cubin(reinterpret_cast<const char*>(b.cubin.data()),
                                    reinterpret_cast<const char*>(b.cubin.data()) + b.cubin.size());
      if (cubin_resources(cubin, b.lowered_name).registers < 0)
        why = "its cubin has no such entry point";
    }
    if (!why.empty())
      problems.push_back("cached binary '" + key + "' (config " + b.config_name.substr(0, 200) +
                         ") is never loaded: " + why);
  }
}

void run_check(const CheckOptions& o) {
  const std::string path = database_path(o.db);
  require_database_file(path, "check");
  db::Database db(path, db::OpenMode::read_only, kernel_families());
  db::CheckReport report = db.check();
  check_binaries(db, report.problems);
  std::string out = path + "\n";
  out += format(
      "  schema version %d (this build: %d%s)\n", report.schema_version, db::kSchemaVersion,
      report.schema_version < db::kSchemaVersion ? "; read as it; `gemmtune db migrate` updates it"
                                                 : "");
  const db::RowCounts rows = db::row_counts(db);
  out += format(
      "  %lld GPU models, %lld sweeps, %lld problems, %lld configs, %lld results, %lld binaries\n",
      (long long)rows.gpu_models, (long long)rows.sweeps, (long long)rows.problems,
      (long long)rows.configs, (long long)rows.results, (long long)rows.binaries);
  if (report.ok()) {
    out += "  ok: integrity, constraints, foreign keys and cached binaries\n";
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
  auto* cmd = db.add_subcommand(
      "check", "Check integrity, foreign keys, schema version and cached binaries");
  add_db_option(cmd, o->db);
  cmd->callback([o] { run_check(*o); });
}

const DbRegistration kRegistration("check", add_db_check);

}  // namespace
}  // namespace gemmtune::cli
