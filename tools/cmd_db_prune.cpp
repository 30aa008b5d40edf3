// `gemmtune db prune`: drops the sweeps (with their results and baselines) that are older than a
// number of days, or that were measured with kernel templates other than this build's.
#include "db_commands.hpp"
#include "gemmtune/kernel.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct PruneOptions {
  std::string db;
  std::optional<double> older_than_days;
  bool stale_templates = false;
};

void run_prune(const PruneOptions& o) {
  if (!o.older_than_days && !o.stale_templates) {
    throw usage_error("say what to prune: --older-than DAYS and/or --stale-templates");
  }
  const std::string path = database_path(o.db);
  db::Database db(path, db::OpenMode::read_write);
  db::PruneOptions options;
  options.older_than_days = o.older_than_days;
  if (o.stale_templates) options.keep_template_hash = template_hash();
  const db::PruneStats s = db.prune(options);
  if (s.sweeps == 0) {
    print("nothing to prune in " + path + "\n");
    return;
  }
  print(format("pruned %s: %lld sweeps, %lld results, %lld baselines\n", path.c_str(), (long long)s.sweeps,
               (long long)s.results, (long long)s.baselines));
}

void add_db_prune(CLI::App& db) {
  auto o = std::make_shared<PruneOptions>();
  auto* cmd = db.add_subcommand(
      "prune", "Drop old sweeps, or sweeps of outdated templates, with their results");
  add_db_option(cmd, o->db);
  cmd->add_option("--older-than", o->older_than_days, "Drop sweeps started more than DAYS days ago")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--stale-templates", o->stale_templates,
                "Drop sweeps whose kernel templates differ from this build's (template hash " + template_hash() + ")");
  cmd->callback([o] { run_prune(*o); });
}

const DbRegistration kRegistration("prune", add_db_prune);

}  // namespace
}  // namespace gemmtune::cli
