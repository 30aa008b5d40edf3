// `gemmtune db merge OTHER.db...`: copies into the database what the other files have and it lacks
// (GPU models, sweeps, problems, configs, results, baselines, cached binaries), one file at a
// time. Merging twice adds nothing, so a merge that failed part way is simply run again.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>

#include "db_commands.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct MergeOptions {
  std::string db;
  std::vector<std::string> others;
};

std::int64_t total_rows(const db::MergeStats& s) {
  return s.gpu_models + s.sweeps + s.problems + s.configs + s.results + s.baselines + s.binaries;
}

std::string describe(const db::MergeStats& s) {
  return format("%lld GPU models, %lld sweeps, %lld problems, %lld configs, %lld results, %lld baselines, "
                "%lld binaries",
                (long long)s.gpu_models, (long long)s.sweeps, (long long)s.problems, (long long)s.configs,
                (long long)s.results, (long long)s.baselines, (long long)s.binaries);
}

// Merges one file into `target` (in one transaction: all of it or nothing) and says what came in.
db::MergeStats merge_one(db::Database& target, const std::string& path, const std::string& other) {
  const db::MergeStats s = target.merge_from(other);
  if (total_rows(s) == 0)
    print("nothing new in " + other + ": " + path + " already holds all of it\n");
  else
    print("merged " + other + " into " + path + ": " + describe(s) + "\n");
  return s;
}

void run_merge(const MergeOptions& o) {
  const std::string path = database_path(o.db);
  // Every file is checked before the target is created or touched: the database itself is not
  // one to merge, and one that is not a tuning database is refused.
  for (const std::string& other : o.others) {
    if (same_file(path, other)) {
      throw usage_error("'" + other + "' is the database itself (" + path + "); merge another file");
    }
    require_database_file(other, "merge");
    db::Database(other, db::OpenMode::read_only);
  }
  const bool target_existed = std::filesystem::exists(path);
  // A target this command created holds nothing but the schema when nothing came in: leave no
  // file behind.
  const auto remove_new_target = [&] {
    if (target_existed) return;
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ignored);
  };
  // Each file is merged on its own: one that fails (damaged, a conflict) is reported and the
  // others still come in; rerunning the whole merge later adds only what is missing.
  db::MergeStats sum;
  std::vector<std::string> failed;
  std::exception_ptr last_error;
  {
    std::optional<db::Database> target;
    try {
      target.emplace(path, db::OpenMode::read_write);
    } catch (...) {
      remove_new_target();
      throw;
    }
    for (const std::string& other : o.others) {
      try {
        const db::MergeStats s = merge_one(*target, path, other);
        sum.gpu_models += s.gpu_models, sum.sweeps += s.sweeps, sum.problems += s.problems;
        sum.configs += s.configs, sum.results += s.results, sum.baselines += s.baselines;
        sum.binaries += s.binaries;
      } catch (const std::exception& e) {
        if (o.others.size() > 1) std::fprintf(stderr, "gemmtune: %s\n", e.what());
        failed.push_back(other);
        last_error = std::current_exception();
      }
    }
  }
  if (failed.size() == o.others.size()) {
    remove_new_target();
    if (o.others.size() == 1) std::rethrow_exception(last_error);
  }
  if (o.others.size() > 1)
    print(format("%zu of %zu files merged into %s: %s in all\n", o.others.size() - failed.size(), o.others.size(),
                 path.c_str(), describe(sum).c_str()));
  if (!failed.empty()) {
    std::string names;
    for (const auto& f : failed) names += (names.empty() ? "" : " ") + f;
    throw Error(Status::kDatabaseError, std::to_string(failed.size()) + " of " + std::to_string(o.others.size()) +
                                            " files not merged (" + names +
                                            "); the others are in. Fix or rerun what made them, then run the "
                                            "same merge again: what is in already is skipped");
  }
}

void add_db_merge(CLI::App& db) {
  auto o = std::make_shared<MergeOptions>();
  auto* cmd = db.add_subcommand("merge", "Copy in what other tuning databases have and this one lacks");
  cmd->add_option("other", o->others,
                  "The tuning databases to merge in, one or more (read, never changed); merging one again "
                  "adds nothing")
      ->required()
      ->check(CLI::ExistingFile);
  add_db_option(cmd, o->db);
  cmd->callback([o] { run_merge(*o); });
}

const DbRegistration kRegistration("merge", add_db_merge);

}  // namespace
}  // namespace gemmtune::cli
