// `gemmtune db prune`: drops the sweeps (with their results and baselines) that are older than a
// number of days, or that were measured with kernel templates other than this build's. A sweep
// that never finished may still be running: it is kept unless --include-unfinished is given and
// it started more than a day ago. --keep-top N keeps only what the dispatcher reads of each
// problem (its N fastest configs), --binaries drops the cached kernels, --vacuum shrinks the file
// afterwards (tools/ship-tuning.sh makes the shipped databases so). --dry-run lists what would go
// and changes nothing.
#include <charconv>
#include <cmath>

#include "db_commands.hpp"
#include "gemmtune/choice.hpp"
#include "gemmtune/kernel.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct PruneOptions {
  std::string db;
  std::optional<double> older_than_days;
  bool stale_templates = false;
  bool include_unfinished = false;
  std::optional<int> keep_top;
  bool binaries = false;
  bool vacuum = false;
  bool dry_run = false;
};

// DAYS of --older-than: a finite number, 0 or more (CLI::NonNegativeNumber takes nan).
std::string check_days(std::string& text) {
  double days = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), days);
  if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(days) && days >= 0)
    return "";
  return "'" + text + "' is not a number of days: give one of 0 or more, e.g. 30 or 0.5";
}

void run_prune(const PruneOptions& o) {
  if (!o.older_than_days && !o.stale_templates && !o.keep_top && !o.binaries && !o.vacuum) {
    throw usage_error(
        "say what to prune: --older-than DAYS, --stale-templates, --keep-top N, --binaries "
        "and/or --vacuum");
  }
  const std::string path = database_path(o.db);
  require_database_file(path, "prune");
  db::Database db(path, o.dry_run ? db::OpenMode::read_only : db::OpenMode::read_write,
                  kernel_families());
  db::PruneOptions options;
  options.older_than_days = o.older_than_days;
  if (o.stale_templates) options.keep_template_hash = template_hash();
  options.include_unfinished = o.include_unfinished;
  options.keep_top = o.keep_top;
  options.drop_binaries = o.binaries;
  options.dry_run = o.dry_run;
  const db::PruneStats s = db.prune(options);
  const bool any = s.sweeps + s.results + s.baselines + s.configs + s.binaries > 0;
  if (!any)
    print("nothing to prune in " + path + "\n");
  else
    print(format(
        "%s %s: %lld sweeps, %lld results, %lld baselines, %lld configs, %lld cached "
        "binaries\n",
        o.dry_run ? "would prune" : "pruned", path.c_str(), (long long)s.sweeps,
        (long long)s.results, (long long)s.baselines, (long long)s.configs, (long long)s.binaries));
  for (const auto& [id, started] : s.dropped)
    print(format("  sweep %lld started %s\n", (long long)id, started.c_str()));
  if (o.dry_run && any) print("nothing was deleted (--dry-run)\n");
  if (o.vacuum && !o.dry_run) {
    const auto [before, after] = db.vacuum();
    print(format("vacuumed %s: %lld bytes, was %lld\n", path.c_str(), (long long)after,
                 (long long)before));
  }
  if (s.unfinished_kept > 0) {
    print(format(
        "kept %lld unfinished sweeps: they may still be running%s\n", (long long)s.unfinished_kept,
        o.include_unfinished ? " (started less than a day ago)"
                             : "; --include-unfinished drops those started more than a day ago"));
  }
}

void add_db_prune(CLI::App& db) {
  auto o = std::make_shared<PruneOptions>();
  auto* cmd = db.add_subcommand(
      "prune",
      "Drop old sweeps or sweeps of outdated templates (with their results), slower results or "
      "cached binaries");
  add_db_option(cmd, o->db);
  cmd->add_option("--older-than", o->older_than_days, "Drop sweeps started more than DAYS days ago")
      ->check(CLI::Validator(check_days, "DAYS", "days"));
  cmd->add_flag("--stale-templates", o->stale_templates,
                "Drop sweeps whose kernel templates differ from this build's (template hash " +
                    template_hash() + ")");
  cmd->add_flag("--include-unfinished", o->include_unfinished,
                "Also drop those sweeps that never finished (killed, crashed) if they started more "
                "than a day "
                "ago. Without it a sweep with no end time is kept: it may still be running");
  cmd->add_option("--keep-top", o->keep_top,
                  "Keep only each problem's N fastest configs of each precision class (one result "
                  "each, the best) on each GPU model; alone: " +
                      std::to_string(kTopConfigsPerProblem) +
                      ", what the dispatcher reads. Drops failures, slower results and the configs "
                      "no result names; for a finished database (a sweep run again measures the "
                      "dropped configs again)")
      ->expected(0, 1)
      ->default_str(std::to_string(kTopConfigsPerProblem))
      ->check(CLI::Range(1, 1000000));
  cmd->add_flag("--binaries", o->binaries,
                "Drop every cached kernel binary (they are compiled again on first use)");
  cmd->add_flag("--vacuum", o->vacuum,
                "Afterwards rewrite the file without its free pages, so that it shrinks (needs "
                "room for a copy)");
  cmd->add_flag("--dry-run", o->dry_run,
                "Say which sweeps would be dropped, with their result counts; change nothing");
  cmd->callback([o] { run_prune(*o); });
}

const DbRegistration kRegistration("prune", add_db_prune);

}  // namespace
}  // namespace gemmtune::cli
