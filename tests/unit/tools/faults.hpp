#pragma once
// What the fault-injection tests share (fault_matrix_test.cpp, merge_kill_test.cpp,
// full_disk_test.cpp): the commands that read or write a tuning database, the checks every run of
// them must pass, running them as nobody, a process that holds a database in an open write
// transaction, and a large database to merge.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>

#include "support/child.hpp"
#include "support/sha256.hpp"
#include "unit/tools/tools_fixture.hpp"

namespace gemmtune::tools_test {

using ::gemmtune::test::file_sha256;

/// The real sweep of four problems (tests/fixtures; 528 pages of 1 KiB), migrated to this build's
/// schema once per process: the fixture predates two knob columns, which a write would add first.
inline fs::path intact_database() {
  static const fs::path path = [] {
    const fs::path p = ::gemmtune::test::scratch_dir("intact") / "tuning.db";
    fs::copy_file(fs::path(GEMMTUNE_TEST_FIXTURES) / "h200-halving-4-problems.db", p);
    db::Database(p.string(), db::OpenMode::read_write, kernel_families());
    return p;
  }();
  return path;
}

/// One command of the matrix, run on the file under test.
struct Command {
  enum Role { reads, writes, merges_from };  ///< what it does to the file under test
  std::string name;
  Role role;
  std::vector<std::string> args;
};

/// Every command that reads or writes a database without a GPU, on the file `file`; `source` is
/// a healthy database to merge into it, `target` a new file to merge it into.
inline std::vector<Command> db_commands(const std::string& file, const std::string& source,
                                        const std::string& target) {
  return {
      {"db check", Command::reads, {"db", "check", "--db", file}},
      {"db best", Command::reads, {"db", "best", "--db", file}},
      {"db export",
       Command::reads,
       {"db", "export", "--what", "results", "--format", "json", "--db", file}},
      {"db replay", Command::reads, {"db", "replay", "--db", file}},
      {"explain",
       Command::reads,
       {"explain", "--shape", "1024x1024x2048", "--arch", "sm_90", "--gpu-model", "NVIDIA H200",
        "--db", file}},
      {"sweep --dry-run",
       Command::reads,
       {"sweep", "--dry-run", "--arch", "sm_90", "--shape", "100x100x100", "--db", file}},
      {"db merge (source)", Command::merges_from, {"db", "merge", file, "--db", target}},
      {"db merge (target)", Command::writes, {"db", "merge", source, "--db", file}},
      {"db prune", Command::writes, {"db", "prune", "--older-than", "0", "--db", file}},
  };
}

/// SHA-256 of a file with its header's change counter (bytes 24-27) and the copy of it in bytes
/// 92-95 left out: opening a file for writing ticks them (the journal mode switches to WAL and
/// back) even when the command then writes nothing.
inline std::string content_sha256(const fs::path& file) {
  std::string bytes = ::gemmtune::test::file_bytes(file);
  if (bytes.size() >= 100) {
    bytes.replace(24, 4, 4, '\0');
    bytes.replace(92, 4, 4, '\0');
  }
  return ::gemmtune::test::sha256(bytes);
}

/// A run ended by itself with status 0 or 1 (never a signal, never a sanitizer report), and a
/// failure says so in one "gemmtune: " line naming `file` (`db check` lists what it found).
inline void expect_clean_end(const CliRun& r, const std::string& file) {
  EXPECT_TRUE(r.status == 0 || r.status == 1) << "status " << r.status << "\n" << r.err;
  EXPECT_EQ(r.err.find("Sanitizer"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("runtime error"), std::string::npos) << r.err;
  if (r.status != 0 && r.err.empty()) {
    EXPECT_EQ(r.out.rfind(file + "\n", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("problems:\n  - "), std::string::npos) << r.out;
  } else if (r.status != 0) {
    EXPECT_EQ(r.err.rfind("gemmtune: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(file), std::string::npos)
        << "the error does not name " << file << ": " << r.err;
  }
}

/// `gemmtune db check` of `file` passes.
inline ::testing::AssertionResult check_passes(const fs::path& file) {
  const CliRun r = ::gemmtune::test::run_cli({"db", "check", "--db", file.string()});
  if (r.status == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "db check " << file << ": status " << r.status << "\n"
                                       << r.out << r.err;
}

/// `r` as text that unpack() reads back: for runs in a forked child.
inline std::string pack(const CliRun& r) {
  return std::to_string(r.status) + ' ' + std::to_string(r.out.size()) + ' ' +
         std::to_string(r.err.size()) + '\n' + r.out + r.err;
}

/// The next run pack() wrote to `in`; false when there is none.
inline bool unpack(std::istream& in, CliRun& r) {
  std::size_t out_size = 0, err_size = 0;
  if (!(in >> r.status >> out_size >> err_size) || in.get() != '\n') return false;
  r.out.resize(out_size);
  r.err.resize(err_size);
  in.read(r.out.data(), std::streamsize(out_size));
  in.read(r.err.data(), std::streamsize(err_size));
  return bool(in);
}

/// A run of a command as nobody, with the SHA-256 of a file right after it.
struct UnprivilegedRun {
  CliRun run;
  std::string file_sha256;
};

/// Runs each command in turn in a child that is nobody (root ignores permissions), hashing
/// `file` after each.
inline std::vector<UnprivilegedRun> run_unprivileged(const std::vector<Command>& commands,
                                                     const fs::path& file) {
  const std::string packed = ::gemmtune::test::run_in_child(
      [&] {
        std::ostringstream out;
        for (const Command& c : commands) {
          out << pack(::gemmtune::test::run_cli(c.args)) << file_sha256(file) << '\n';
        }
        return out.str();
      },
      /*unprivileged=*/true);
  std::istringstream in(packed);
  std::vector<UnprivilegedRun> runs;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    UnprivilegedRun u;
    if (!unpack(in, u.run)) break;
    std::getline(in, u.file_sha256);
    runs.push_back(u);
  }
  EXPECT_EQ(runs.size(), commands.size()) << "the unprivileged child said: " << packed;
  return runs;
}

/// A database of one sweep (on an H100) with `problems` x 300 ok results, the configs named as
/// the family names them: a merge of it into intact_database() writes every row.
inline void make_large_source(const fs::path& file, int problems) {
  Database db(file.string(), OpenMode::read_write, kernel_families());
  SweepInfo info;
  info.gpu_model_id = db.upsert_gpu_model(h100());
  info.command_line = "gemmtune sweep (a large source to merge)";
  info.strategy = "exhaustive";
  info.template_hash = current_template_hash();
  const Id sweep = db.begin_sweep(info);
  std::vector<Id> configs;
  for (int bm : {16, 32, 64, 128, 256})
    for (int bn : {16, 32, 64, 128, 256})
      for (int bk : {8, 16, 32})
        for (int stages : {1, 2, 3, 4})
          configs.push_back(
              db.upsert_config(make_config("nn", bm, bn, bk, bm / 2, bn / 2, 4, 4, stages)));
  for (int p = 0; p < problems; ++p) {
    const Id problem = db.upsert_problem(make_problem(64 + p, 4096, 1024));
    std::vector<Result> batch;
    for (std::size_t c = 0; c < configs.size(); ++c)
      batch.push_back(
          ok(problem, configs[c], 1.0 + 0.01 * double(c), 2.0 * (64 + p) * 4096 * 1024));
    db.record_results(sweep, batch);
  }
  db.finish_sweep(sweep);
}

/// The row counts line of `db check` (GPU models, sweeps, problems, configs, results, binaries),
/// after checking that it passes.
inline std::string checked_counts(const fs::path& file) {
  const CliRun r = ::gemmtune::test::run_cli({"db", "check", "--db", file.string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const auto from = r.out.find("  ", r.out.find('\n', r.out.find("schema version")));
  return from == std::string::npos ? r.out : r.out.substr(from, r.out.find('\n', from) - from);
}

/// A process holding a database in an open write transaction, in WAL mode, as a sweep or a merge
/// does while it writes, until release() (then it rolls back: the data stays as it was).
class WriteLockHolder {
 public:
  explicit WriteLockHolder(const fs::path& file) {
    int ready[2], release[2];
    // Close-on-exec: a command started meanwhile must not hold the release pipe open.
    if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(release, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      close(release[1]);
      bool held = false;
      try {
        db::Connection c(file.string(), db::OpenMode::read_write);
        c.enable_wal();
        c.exec("BEGIN IMMEDIATE");
        c.exec("UPDATE sweeps SET hostname = hostname || ' (held)'");
        held = write(ready[1], "h", 1) == 1;
        char byte;
        while (read(release[0], &byte, 1) > 0) {
        }
        c.exec("ROLLBACK");
      } catch (const std::exception& e) {
        std::fprintf(stderr, "lock holder: %s\n", e.what());
      }
      _exit(held ? 0 : 1);  // after the connection closed (it puts the file back out of WAL)
    }
    close(ready[1]);
    close(release[0]);
    release_ = release[1];
    char byte;
    held_ = read(ready[0], &byte, 1) == 1;
    close(ready[0]);
  }
  WriteLockHolder(const WriteLockHolder&) = delete;
  WriteLockHolder& operator=(const WriteLockHolder&) = delete;
  ~WriteLockHolder() { release(); }

  /// Whether it holds the lock.
  bool held() const { return held_; }
  /// Rolls back, closes and ends the holder; true when it ended cleanly.
  bool release() {
    if (pid_ <= 0) return false;
    close(release_);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }

 private:
  pid_t pid_ = -1;
  int release_ = -1;
  bool held_ = false;
};

}  // namespace gemmtune::tools_test
