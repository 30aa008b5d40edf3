// kill -9 during `gemmtune db merge`, and merges that race: a large source merged into the real
// sweep's database, the merge killed at random moments. The target then holds the merge fully or
// not at all (its row counts are those before or after a whole merge, and `db check` passes), the
// source keeps its SHA-256, and merging again completes it.
#include <signal.h>

#include <chrono>
#include <random>
#include <thread>

#include "unit/tools/faults.hpp"

namespace gemmtune::tools_test {
namespace {

using Clock = std::chrono::steady_clock;
using MergeKill = ::gemmtune::test::ScratchDirTest;

// The source: kProblems x 300 results; merging them takes about half a second on a 2-core machine.
constexpr int kProblems = 150;

TEST_F(MergeKill, AKilledMergeLeavesAllOrNothing) {
  const fs::path source = dir_ / "source.db", target = dir_ / "target.db",
                 whole = dir_ / "whole.db";
  make_large_source(source, kProblems);
  const std::string source_sha = file_sha256(source);
  auto fresh_target = [&](const fs::path& p) {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
    fs::copy_file(intact_database(), p);
  };
  const std::vector<std::string> merge = {"db", "merge", source.string(), "--db", target.string()};

  // The uninterrupted merge: how long it takes, and what the target holds before and after.
  fresh_target(target);
  const std::string before = checked_counts(target);
  const auto start = Clock::now();
  const CliRun full = ::gemmtune::test::run_cli(merge);
  const auto merge_time = Clock::now() - start;
  ASSERT_EQ(full.status, 0) << full.err;
  const std::string after = checked_counts(target);
  ASSERT_NE(before, after);

  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> moment(0.05, 0.75);  // of the uninterrupted merge's time
  int killed = 0, finished = 0, mid_write = 0;
  const int kills = 8;
  for (int i = 0; i < kills; ++i) {
    fresh_target(target);
    const auto delay =
        std::chrono::duration_cast<std::chrono::microseconds>(merge_time * moment(rng));
    SCOPED_TRACE("seed " + std::to_string(seed) + ", kill " + std::to_string(i) + " after " +
                 std::to_string(delay.count()) + " us");
    ::gemmtune::test::ChildProcess run(::gemmtune::test::cli_argv(merge));
    std::this_thread::sleep_for(delay);
    run.send(SIGKILL);
    const CliRun r = run.wait();
    ASSERT_TRUE(r.status == 128 + SIGKILL || r.status == 0) << r.status << ": " << r.err;
    (r.status == 0 ? finished : killed) += 1;
    // Pages of the merge's transaction in the WAL file: the kill landed while it wrote.
    std::error_code ec;
    mid_write += r.status != 0 && fs::file_size(target.string() + "-wal", ec) > 0 && !ec;
    EXPECT_EQ(file_sha256(source), source_sha) << "the source changed";
    const std::string counts = checked_counts(target);
    EXPECT_TRUE(counts == before || counts == after)
        << "a partial merge: " << counts << "\n  before: " << before << "\n  after:  " << after;
    if (r.status == 0) {
      EXPECT_EQ(counts, after);
    }
    // Merging again completes it.
    const CliRun again = ::gemmtune::test::run_cli(merge);
    EXPECT_EQ(again.status, 0) << again.err;
    EXPECT_EQ(checked_counts(target), after);
  }
  std::cout << "[ info     ] merge of " << kProblems * 300 << " results took "
            << std::chrono::duration_cast<std::chrono::milliseconds>(merge_time).count() << " ms; "
            << kills << " kills (seed " << seed << "): " << killed << " before the end ("
            << mid_write << " while it wrote), " << finished << " after it\n";
  EXPECT_GE(killed, kills / 2) << "too few kills landed during the merge to test anything";
}

// A merge that fails never removes the target when another process created and filled it
// meanwhile (two jobs merging into one new file, a retried array task). The failing merge's only
// source holds, as its last result, a status no tuning database allows: it fails only after
// copying the other 14,999 results. While it runs, this process merges a healthy file into the
// same new target.
TEST_F(MergeKill, AFailedMergeKeepsATargetAnotherMergeFilled) {
  const fs::path bad = dir_ / "bad.db", target = dir_ / "target.db";
  make_large_source(bad, kProblems / 3);
  {
    db::Connection c(bad.string(), db::OpenMode::read_write);
    c.exec("PRAGMA ignore_check_constraints = 1");
    c.exec("UPDATE results SET status = 'unheard_of' WHERE id = (SELECT max(id) FROM results)");
  }
  ::gemmtune::test::ChildProcess failing(
      ::gemmtune::test::cli_argv({"db", "merge", bad.string(), "--db", target.string()}));
  // Once the target is there (when the failing merge made it in place), or the merge has ended.
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while (!fs::exists(target) && failing.running() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  db::MergeStats merged;
  {
    db::Database other(target.string(), db::OpenMode::read_write, kernel_families());
    merged = other.merge_from(intact_database().string());  // waits for the failing merge's lock
  }
  const CliRun r = failing.wait();
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("cannot merge '" + bad.string() + "' into tuning database '" +
                       target.string() + "'"),
            std::string::npos)
      << r.err;
  EXPECT_GT(merged.results, 0);
  ASSERT_TRUE(fs::exists(target)) << "the failed merge removed the file another merge filled";
  EXPECT_EQ(checked_counts(target), checked_counts(intact_database()));
  for (const std::string& name : ::gemmtune::test::list_dir(dir_))  // no temporary file left behind
    EXPECT_TRUE(name == "bad.db" || name == "target.db") << name;
}

}  // namespace
}  // namespace gemmtune::tools_test
