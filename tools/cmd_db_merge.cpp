// `gemmtune db merge OTHER.db`: copies into the database what OTHER.db has and it lacks (GPU models,
// sweeps, problems, configs, results, baselines, cached binaries). Merging twice adds nothing.
#include <filesystem>

#include "db_commands.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct MergeOptions {
  std::string db;
  std::string other;
};

void run_merge(const MergeOptions& o) {
  const std::string path = database_path(o.db);
  if (same_file(path, o.other)) {
    throw usage_error("'" + o.other + "' is the database itself (" + path + "); merge another file");
  }
  // Open the other file read-only first, so that a file that is not a tuning database is refused
  // before the target is created or touched.
  require_database_file(o.other, "merge");
  db::Database(o.other, db::OpenMode::read_only);
  const bool target_existed = std::filesystem::exists(path);
  db::MergeStats s;
  try {
    db::Database target(path, db::OpenMode::read_write);
    s = target.merge_from(o.other);
  } catch (...) {
    // A target this command created holds nothing but the schema: leave no file behind.
    if (!target_existed) {
      std::error_code ignored;
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ignored);
    }
    throw;
  }
  const std::int64_t total = s.gpu_models + s.sweeps + s.problems + s.configs + s.results + s.baselines + s.binaries;
  if (total == 0) {
    print("nothing new in " + o.other + ": " + path + " already holds all of it\n");
    return;
  }
  print(format("merged %s into %s: %lld GPU models, %lld sweeps, %lld problems, %lld configs, %lld results, "
               "%lld baselines, %lld binaries\n",
               o.other.c_str(), path.c_str(), (long long)s.gpu_models, (long long)s.sweeps, (long long)s.problems,
               (long long)s.configs, (long long)s.results, (long long)s.baselines, (long long)s.binaries));
}

void add_db_merge(CLI::App& db) {
  auto o = std::make_shared<MergeOptions>();
  auto* cmd = db.add_subcommand("merge", "Copy in what another tuning database has and this one lacks");
  cmd->add_option("other", o->other, "The tuning database to merge in (read, never changed)")
      ->required()
      ->check(CLI::ExistingFile);
  add_db_option(cmd, o->db);
  cmd->callback([o] { run_merge(*o); });
}

const DbRegistration kRegistration("merge", add_db_merge);

}  // namespace
}  // namespace gemmtune::cli
