// kill -9 during `gemmtune sweep` (the CLI in a child process): once three results are in the
// database, the sweep is killed. `db check` then passes, every result seen before the kill is still
// there, a dry run counts them as measured before, and running the same sweep again completes it.
#include <gtest/gtest.h>
#include <signal.h>

#include <regex>

#include "gpu/tuner/tuner_fixture.hpp"
#include "support/cli.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

namespace gemmtune::tuner::test {
namespace {

using SweepKill = ::gemmtune::test::ScratchDirTest;

// "M measured before" of the dry run's line for `label`, or -1.
int measured_before(const std::string& dry_run, const std::string& label) {
  const std::regex line("  " + label + " +[0-9]+ candidates, +([0-9]+) measured before");
  std::smatch m;
  return std::regex_search(dry_run, m, line) ? std::stoi(m[1]) : -1;
}

TEST_F(SweepKill, AKilledSweepLosesNothingItCommittedAndResumes) {
  GEMMTUNE_REQUIRE_GPU();
  const std::string db = path("tuning.db");
  std::vector<std::string> args = {"sweep", "--strategy", "exhaustive", "--seed", "5", "--db", db};
  const std::vector<ProblemSpec> problems = interruptible_problems();
  for (const std::string& arg : shape_args(problems)) args.push_back(arg);
  const std::vector<std::string> configs = tiny_space(8);
  ASSERT_EQ(configs.size(), 8u);
  for (const std::string& name : configs) args.insert(args.end(), {"--config", name});
  const std::size_t total = problems.size() * configs.size();

  // Killed once its third result is committed: the sweep sends itself the signal
  // (GEMMTUNE_TEST_RAISE_AFTER, tuner/src/candidate_runner.cpp), so that it lands part-way however
  // fast the GPU and the compiler are.
  const ::gemmtune::test::CliRun killed = ::gemmtune::test::run_program(
      ::gemmtune::test::cli_argv(args),
      {.set_env = {{"GEMMTUNE_TEST_RAISE_AFTER", "3:" + std::to_string(SIGKILL)}},
       .merge_stderr = true});
  ASSERT_EQ(killed.status, 128 + SIGKILL) << "the sweep ended before the kill:\n" << killed.out;
  const std::set<std::string> seen = recorded_results(db, /*ok_only=*/false, problems);
  ASSERT_EQ(seen.size(), 3u) << "every result committed before the kill is there\n" << killed.out;

  const ::gemmtune::test::CliRun check = ::gemmtune::test::run_cli({"db", "check", "--db", db});
  EXPECT_EQ(check.status, 0) << check.out << check.err;
  const std::set<std::string> after_kill = recorded_results(db, /*ok_only=*/false, problems);
  EXPECT_EQ(after_kill, seen) << "db check changed nothing";
  {
    db::Database d(db, db::OpenMode::read_only, kernel_families());
    ASSERT_EQ(d.sweeps().size(), 1u);
    EXPECT_FALSE(d.sweeps()[0].finished_at) << "a killed sweep has no end time";
  }

  // A rerun skips what is there: the dry run says so, problem by problem.
  std::vector<std::string> dry = args;
  dry.push_back("--dry-run");
  const ::gemmtune::test::CliRun plan = ::gemmtune::test::run_cli(dry);
  ASSERT_EQ(plan.status, 0) << plan.err;
  std::size_t before = 0;
  for (const ProblemSpec& p : problems) {
    const int n = measured_before(plan.out, problem_label(p));
    EXPECT_GE(n, 0) << plan.out;
    before += std::size_t(std::max(n, 0));
  }
  EXPECT_EQ(before, after_kill.size()) << plan.out;

  const ::gemmtune::test::CliRun rerun =
      ::gemmtune::test::run_program(::gemmtune::test::cli_argv(args), {.merge_stderr = true});
  ASSERT_EQ(rerun.status, 0) << rerun.out;
  const std::set<std::string> done = recorded_results(db, /*ok_only=*/false, problems);
  for (const std::string& r : after_kill) EXPECT_TRUE(done.count(r)) << "lost " << r;
  EXPECT_EQ(done.size(), total) << "every config has a result on every problem";
  const ::gemmtune::test::CliRun final_check =
      ::gemmtune::test::run_cli({"db", "check", "--db", db});
  EXPECT_EQ(final_check.status, 0) << final_check.out << final_check.err;
  std::cout << "[ info     ] killed after " << seen.size() << " of " << total << " results ("
            << after_kill.size() << " committed); the rerun measured the rest\n";
}

}  // namespace
}  // namespace gemmtune::tuner::test
