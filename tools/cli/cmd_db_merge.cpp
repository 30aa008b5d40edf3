// `gemmtune db merge OTHER.db...`: copies into the database what the other files have and it lacks
// (GPU models, sweeps, problems, configs, results, baselines; cached binaries with
// --copy-binaries), one file at a time. Merging twice adds nothing, so a merge that failed part
// way is simply run again.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>

#include "db_commands.hpp"
#include "file_output.hpp"
#include "gemmtune/db/error.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct MergeOptions {
  std::string db;
  std::vector<std::string> others;
  bool copy_binaries = false;
};

std::int64_t total_rows(const db::MergeStats& s) {
  return s.gpu_models + s.sweeps + s.problems + s.configs + s.results + s.baselines + s.binaries +
         s.ceilings;
}

std::string describe(const db::MergeStats& s) {
  std::string text = format(
      "%lld GPU models, %lld sweeps, %lld problems, %lld configs, %lld results, "
      "%lld baselines, %lld binaries",
      (long long)s.gpu_models, (long long)s.sweeps, (long long)s.problems, (long long)s.configs,
      (long long)s.results, (long long)s.baselines, (long long)s.binaries);
  if (s.ceilings > 0)
    text += format(", measured ceilings of %lld GPU models", (long long)s.ceilings);
  if (s.binaries_dropped > 0)
    text += format(
        " (%lld cached binaries left out: they are code; each machine compiles its own, and "
        "--copy-binaries copies them from files you trust)",
        (long long)s.binaries_dropped);
  return text;
}

// Merges one file into `target` (in one transaction: all of it or nothing) and says what came in.
db::MergeStats merge_one(db::Database& target, const std::string& path, const std::string& other,
                         db::ForeignBinaries binaries) {
  const db::MergeStats s = target.merge_from(other, binaries);
  if (total_rows(s) == 0)
    print("nothing new in " + other + ": " + path + " already holds all of it\n");
  else
    print("merged " + other + " into " + path + ": " + describe(s) + "\n");
  return s;
}

// Replaces every `from` in `text` by `to`; whether there was one.
bool replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from == to || from.empty()) return false;
  bool any = false;
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
    any = true;
  }
  return any;
}

// What merging the files in one by one gave.
struct Merged {
  db::MergeStats sum;
  std::vector<std::string> failed;
  std::exception_ptr last_error;
};

// Merges each of `others` into `target` on its own: one that fails (damaged, a conflict) is
// reported and the others still come in; rerunning the whole merge later adds only what is
// missing. `shown` is the target's name in messages.
Merged merge_each(db::Database& target, const std::string& shown,
                  const std::vector<std::string>& others, db::ForeignBinaries binaries) {
  Merged m;
  for (const std::string& other : others) {
    try {
      const db::MergeStats s = merge_one(target, shown, other, binaries);
      m.sum.gpu_models += s.gpu_models, m.sum.sweeps += s.sweeps, m.sum.problems += s.problems;
      m.sum.configs += s.configs, m.sum.results += s.results, m.sum.baselines += s.baselines;
      m.sum.binaries += s.binaries, m.sum.binaries_dropped += s.binaries_dropped;
    } catch (const std::exception& e) {
      // SQLite's messages name the file under its temporary name (merge_into_new): say the
      // target's.
      std::string message = e.what();
      const bool renamed = replace_all(message, target.path(), shown);
      if (others.size() > 1) std::fprintf(stderr, "gemmtune: %s\n", message.c_str());
      m.failed.push_back(other);
      m.last_error =
          renamed ? std::make_exception_ptr(db::DatabaseError(message)) : std::current_exception();
    }
  }
  return m;
}

// Removes a database file this command made under a name of its own, with SQLite's files beside it.
void remove_own_database(const std::string& file) {
  std::error_code ignored;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"})
    std::filesystem::remove(file + suffix, ignored);
}

// A target that does not exist yet is built under a name only this merge knows, beside it, and
// put in place only once something came in: a merge never removes a file at the target's path,
// which another merge may have created and filled meanwhile (two jobs merging into one new
// file, a retried array task). When that happened, the new file is merged into that one.
Merged merge_into_new(const std::string& path, const std::vector<std::string>& others,
                      bool default_path, db::ForeignBinaries binaries) {
  if (default_path) {  // gemmtune's own default location is created, as a sweep creates it
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
  }
  std::string temp;
  const int fd = create_file_beside(path, "merge", 0666, temp);
  if (fd < 0)
    throw Error(Status::kDatabaseError, "cannot create tuning database '" + path +
                                            "': " + std::strerror(errno) +
                                            "; check that its directory exists and is writable");
  ::close(fd);  // an empty file: SQLite makes it a new database
  Merged m;
  try {
    {
      db::Database target(temp, db::OpenMode::read_write, kernel_families());
      m = merge_each(target, path, others, binaries);
    }  // closed: the file is self-contained (no -wal) before it is put in place
    if (m.failed.size() < others.size() && ::link(temp.c_str(), path.c_str()) != 0) {
      // Another process created the target meanwhile (or the file system has no hard links).
      // Its binaries are the ones this merge took (none without --copy-binaries).
      db::Database(path, db::OpenMode::read_write, kernel_families())
          .merge_from(temp, db::ForeignBinaries::copy);
    }
  } catch (...) {
    remove_own_database(temp);
    throw;
  }
  remove_own_database(temp);
  return m;
}

void run_merge(const MergeOptions& o) {
  const std::string path = database_path(o.db);
  // Every file is checked before the target is created or touched: the database itself is not
  // one to merge, and one that is not a tuning database is refused.
  for (const std::string& other : o.others) {
    if (same_file(path, other)) {
      throw usage_error("'" + other + "' is the database itself (" + path +
                        "); merge another file");
    }
    require_database_file(other, "merge");
    db::Database(other, db::OpenMode::read_only, kernel_families());
  }
  const auto binaries = o.copy_binaries ? db::ForeignBinaries::copy : db::ForeignBinaries::drop;
  std::error_code ec;
  Merged m;
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec))) {
    db::Database target(path, db::OpenMode::read_write, kernel_families());
    m = merge_each(target, path, o.others, binaries);
  } else {
    m = merge_into_new(path, o.others, o.db.empty(), binaries);
  }
  if (m.failed.size() == o.others.size() && o.others.size() == 1)
    std::rethrow_exception(m.last_error);
  if (o.others.size() > 1)
    print(format("%zu of %zu files merged into %s: %s in all\n", o.others.size() - m.failed.size(),
                 o.others.size(), path.c_str(), describe(m.sum).c_str()));
  if (!m.failed.empty()) {
    std::string names;
    for (const auto& f : m.failed) names += (names.empty() ? "" : " ") + f;
    throw Error(Status::kDatabaseError,
                std::to_string(m.failed.size()) + " of " + std::to_string(o.others.size()) +
                    " files not merged (" + names +
                    "); the others are in. Fix or rerun what made them, then run the "
                    "same merge again: what is in already is skipped");
  }
}

void add_db_merge(CLI::App& db) {
  auto o = std::make_shared<MergeOptions>();
  auto* cmd =
      db.add_subcommand("merge", "Copy in what other tuning databases have and this one lacks");
  cmd->add_option(
         "other", o->others,
         "The tuning databases to merge in, one or more (read, never changed); merging one again "
         "adds nothing")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag(
      "--copy-binaries", o->copy_binaries,
      "Also copy the files' cached kernel binaries. They are code every program using the database "
      "may load onto its GPU: only for files you trust as you trust a shared library (without it, "
      "each machine compiles its own)");
  add_db_option(cmd, o->db);
  cmd->callback([o] { run_merge(*o); });
}

const DbRegistration kRegistration("merge", add_db_merge);

}  // namespace
}  // namespace gemmtune::cli
