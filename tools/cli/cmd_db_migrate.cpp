// `gemmtune db migrate`: brings a tuning database written by an older gemmtune up to this one's
// schema (new tables and columns, columns of new kernel knobs), as every read-write open does. Read
// commands open the file read-only: they read one from schema version 2 on as if it were migrated
// (temporary views) and refuse an older one with a hint that names this command.
#include "db_commands.hpp"
#include "gemmtune/db/schema.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct MigrateOptions {
  std::string db;
};

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

void run_migrate(const MigrateOptions& o) {
  const std::string path = database_path(o.db);
  require_database_file(path, "migrate");
  db::PendingMigration pending;
  {
    db::Connection peek(path, db::OpenMode::read_only);
    pending = db::pending_migration(peek, kernel_families());
  }
  // An empty file or another SQLite database: a read-only open says which, and changes nothing.
  if (pending.from_version == 0) db::Database(path, db::OpenMode::read_only, kernel_families());
  db::Database(path, db::OpenMode::read_write,
               kernel_families());  // refuses a newer file; migrates an older one
  if (!pending.needed()) {
    print(format("%s is up to date: schema version %d\n", path.c_str(), db::kSchemaVersion));
    return;
  }
  std::string done;
  if (pending.from_version < db::kSchemaVersion)
    done = format("from schema version %d to %d", pending.from_version, db::kSchemaVersion);
  if (!pending.new_knob_columns.empty()) {
    done += std::string(done.empty() ? "" : "; ") + "added the column of kernel knob" +
            (pending.new_knob_columns.size() > 1 ? "s " : " ") + joined(pending.new_knob_columns);
  }
  print("migrated " + path + " " + done + "\n");
}

void add_db_migrate(CLI::App& db) {
  auto o = std::make_shared<MigrateOptions>();
  auto* cmd = db.add_subcommand(
      "migrate",
      "Bring a database of an older gemmtune up to this one's schema (read commands only read)");
  add_db_option(cmd, o->db);
  cmd->callback([o] { run_migrate(*o); });
}

const DbRegistration kRegistration("migrate", add_db_migrate);

}  // namespace
}  // namespace gemmtune::cli
