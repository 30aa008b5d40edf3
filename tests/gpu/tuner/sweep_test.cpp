// The sweep end to end on a GPU: a tiny exhaustive sweep fills the database and a rerun measures
// nothing new; a second problem reuses the first's binaries; a kernel made wrong on purpose is
// caught by the real verification; a sweep interrupted with SIGINT (the CLI in a child process) and
// resumed ends like an uninterrupted one.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/sgemm/tuning/candidates.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gemmtune/tuner/sweep.hpp"
#include "gpu/tuner/tuner_fixture.hpp"
#include "support/cli.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

namespace fs = std::filesystem;

class Sweep : public gemmtune::test::ScratchDirTest {
 protected:
  std::vector<ProblemSpec> problems() const { return tuner::test::tiny_problems(); }
  std::vector<std::string> tiny_space(std::size_t n) const { return tuner::test::tiny_space(n); }

  SweepOptions options(const std::string& db, std::size_t configs = 8) const {
    SweepOptions o;
    o.problems = problems();
    o.db_path = db;
    o.strategy.kind = StrategyKind::exhaustive;
    o.only_configs = tiny_space(configs);
    o.out = &log_;
    o.seed = 11;
    return o;
  }

  static db::Id gpu_id(const db::Database& db) { return tuner::test::gpu_id(db); }

  mutable std::ostringstream log_;
};

std::size_t ok_results(const std::string& db_path, const std::vector<ProblemSpec>& problems) {
  return tuner::test::recorded_results(db_path, /*ok_only=*/true, problems).size();
}

}  // namespace

TEST_F(Sweep, TinyExhaustiveSweepFillsTheDatabaseAndResumesToNothing) {
  GEMMTUNE_REQUIRE_GPU();
  SweepOptions o = options(path("t.db"));
  ASSERT_EQ(o.only_configs.size(), 8u);
  SweepReport r = run_sweep(o);
  EXPECT_TRUE(r.errors.empty()) << log_.str();
  EXPECT_FALSE(r.interrupted);
  ASSERT_EQ(r.rows.size(), 2u);
  EXPECT_GE(r.measurements, 2 * 8u);
  db::Database db(o.db_path, db::OpenMode::read_only, kernel_families());
  db::Id gpu = gpu_id(db);
  for (const auto& spec : o.problems) {
    auto key = to_db(spec.problem());
    auto results = db.results_for(key, gpu);
    EXPECT_EQ(results.size(), 8u) << problem_label(spec);
    for (const auto& row : results)
      EXPECT_TRUE(row.result.status == db::Status::ok || row.result.status == db::Status::pruned)
          << row.config.name << ": " << row.result.error;
    auto best = db.best_for(gpu, key);
    ASSERT_TRUE(best) << problem_label(spec);
    EXPECT_TRUE(best->cublas_median_ms) << "cuBLAS baseline recorded in the same sweep";
    EXPECT_GT(best->median_ms, 0);
  }
  for (const auto& row : r.rows) {
    EXPECT_FALSE(row.config.empty());
    EXPECT_TRUE(row.speedup());
    EXPECT_TRUE(row.peak_percent);
  }
  EXPECT_EQ(db.sweeps().size(), 1u);
  EXPECT_TRUE(db.sweeps()[0].finished_at);

  // The same sweep again measures nothing new.
  log_.str("");
  SweepReport again = run_sweep(o);
  EXPECT_EQ(again.measurements, 0u) << log_.str();
  EXPECT_NE(log_.str().find("nothing new to measure"), std::string::npos) << log_.str();
  for (const auto& spec : o.problems)
    EXPECT_EQ(db.results_for(to_db(spec.problem()), gpu).size(), 8u);
  ASSERT_EQ(again.rows.size(), 2u);
  EXPECT_EQ(again.rows[0].config, r.rows[0].config);

  // --force measures again (as a new sweep).
  o.force = true;
  SweepReport forced = run_sweep(o);
  EXPECT_GE(forced.measurements, 2 * 8u);
}

// Each binary is compiled once a sweep: the second tiny problem, with the same eight configs,
// compiles nothing and reuses the first's binaries, and the summary rows and lines say so.
TEST_F(Sweep, TheSecondProblemReusesTheFirstsBinaries) {
  GEMMTUNE_REQUIRE_GPU();
  SweepOptions o = options(path("t.db"));
  SweepReport r = run_sweep(o);
  ASSERT_TRUE(r.errors.empty()) << log_.str();
  ASSERT_EQ(r.rows.size(), 2u);
  ASSERT_TRUE(r.rows[0].compiles && r.rows[1].compiles) << log_.str();
  EXPECT_EQ(*r.rows[0].compiles, (CompileCounts{8, 0, 0})) << log_.str();  // an empty cache
  EXPECT_EQ(*r.rows[1].compiles, (CompileCounts{0, 0, 8})) << log_.str();
  EXPECT_GT(r.rows[0].compile_wait_s, 0);
  EXPECT_EQ(r.compile_pool.compiles, 8u);  // none twice, none ahead in vain
  EXPECT_EQ(r.times.compiles, (CompileCounts{8, 0, 8}));
  EXPECT_NE(log_.str().find("compiles 8 compiled, 0 cached, 0 reused"), std::string::npos)
      << log_.str();
  EXPECT_NE(format_summary(r.rows).find("0/0/8"), std::string::npos);
}

TEST_F(Sweep, WrongResultIsCaughtAndNeverWins) {
  GEMMTUNE_REQUIRE_GPU();
  SweepOptions o = options(path("t.db"), 4);
  ASSERT_EQ(o.only_configs.size(), 4u);
  std::string honest = o.only_configs[2];
  o.runner.corrupt_output = [&](const GemmConfig& c) { return config_name(c) != honest; };
  SweepReport r = run_sweep(o);
  EXPECT_TRUE(r.errors.empty()) << log_.str();
  db::Database db(o.db_path, db::OpenMode::read_only, kernel_families());
  db::Id gpu = gpu_id(db);
  for (const auto& spec : o.problems) {
    auto key = to_db(spec.problem());
    std::size_t wrong = 0;
    for (const auto& row : db.results_for(key, gpu)) {
      if (row.config.name == honest) continue;
      EXPECT_EQ(row.result.status, db::Status::wrong_result) << row.config.name;
      EXPECT_NE(row.result.error.find("exceeds the tolerance"), std::string::npos)
          << row.result.error;
      ASSERT_TRUE(row.result.rel_error);
      EXPECT_GT(*row.result.rel_error, fp32_tolerance(spec.k));
      ++wrong;
    }
    EXPECT_EQ(wrong, 3u);
    auto best = db.best_for(gpu, key);
    ASSERT_TRUE(best);
    EXPECT_EQ(best->config.name, honest);
  }
}

// The errors a sweep stores: an ieee sweep none on wide-range inputs; a later fp32 sweep each
// 3xTF32 candidate's on both inputs and, filled into its earlier result without timing it again,
// the wide-range error of the problem's fastest FP32 FMA config (the fp32 policy's bar), and no
// other FMA config's.
TEST_F(Sweep, Fp32SweepStoresWideRangeErrors) {
  GEMMTUNE_REQUIRE_GPU();
  SweepOptions o = options(path("wide.db"), 4);
  o.problems = {problems()[0]};
  const Problem p = o.problems[0].problem();
  const auto key = to_db(p);
  SweepReport ieee = run_sweep(o);
  ASSERT_TRUE(ieee.errors.empty()) << log_.str();
  {
    db::Database db(o.db_path, db::OpenMode::read_only, kernel_families());
    for (const auto& row : db.results_for(key, gpu_id(db)))
      EXPECT_FALSE(row.result.wide_error) << row.config.name;
  }

  DeviceInfo dev = device_info(0);
  std::size_t tensor_core = 0;
  for (const auto& c : candidate_configs(valid_space(dev.limits, Op::N, Op::N), p, dev.sm_count,
                                         SpaceKind::reduced, Precision::fp32))
    if (c.split_k == 1 && tensor_core < 3) o.only_configs.push_back(config_name(c)), ++tensor_core;
  ASSERT_EQ(tensor_core, 3u);
  o.precision = Precision::fp32;
  SweepReport fp32 = run_sweep(o);
  ASSERT_TRUE(fp32.errors.empty()) << log_.str();

  db::Database db(o.db_path, db::OpenMode::read_only, kernel_families());
  std::size_t fma_rows = 0, tensor_core_ok = 0;
  bool fastest_fma = true;  // results_for lists ok results fastest first
  for (const auto& row : db.results_for(key, gpu_id(db))) {
    const auto c = parse_config_name(row.config.name);
    ASSERT_TRUE(c) << row.config.name;
    if (c->uses_tensor_cores()) {
      if (row.result.status != db::Status::ok) continue;
      ++tensor_core_ok;
      ASSERT_TRUE(row.result.rel_error && row.result.wide_error) << row.config.name;
      EXPECT_LE(*row.result.wide_error, fp32_tolerance(p.k)) << row.config.name;
      continue;
    }
    ++fma_rows;
    if (row.result.status == db::Status::ok && fastest_fma) {
      fastest_fma = false;
      ASSERT_TRUE(row.result.wide_error) << row.config.name << " is the fastest FMA config\n"
                                         << log_.str();
      EXPECT_GT(*row.result.wide_error, 0);
      EXPECT_LT(*row.result.wide_error, 1e-4);
      EXPECT_EQ(row.sweep_id, db.sweeps().front().id) << "filled into the ieee sweep's result";
    } else {
      EXPECT_FALSE(row.result.wide_error) << row.config.name;
    }
  }
  EXPECT_EQ(fma_rows, 4u) << "the fp32 sweep measured no FMA config again";
  EXPECT_GE(tensor_core_ok, 1u) << log_.str();
  // The bar is the same when the sweep runs again: nothing new to measure or to verify.
  log_.str("");
  EXPECT_EQ(run_sweep(o).measurements, 0u) << log_.str();
}

// A spent budget still measures the first round of compiles: one config per compile thread.
TEST_F(Sweep, BudgetStopsStartingCandidates) {
  GEMMTUNE_REQUIRE_GPU();
  for (unsigned threads : {1u, 3u}) {
    SweepOptions o = options(path("t" + std::to_string(threads) + ".db"));
    o.strategy.budget_s = 1e-6;  // spent by the first candidate
    o.compile_threads = threads;
    SweepReport r = run_sweep(o);
    EXPECT_EQ(r.measurements, 2u * threads) << log_.str();  // per problem
    ASSERT_EQ(r.rows.size(), 2u);
    EXPECT_EQ(r.rows[0].note, "budget spent");
  }
}

TEST_F(Sweep, InterruptedCliSweepResumesToTheSameBest) {
  GEMMTUNE_REQUIRE_GPU();
  const std::vector<ProblemSpec> specs = tuner::test::interruptible_problems();
  std::vector<std::string> args = {"sweep", "--strategy", "exhaustive", "--seed", "5"};
  for (const std::string& arg : tuner::test::shape_args(specs)) args.push_back(arg);
  for (const auto& name : tiny_space(8)) args.insert(args.end(), {"--config", name});
  // The CLI sweeping into `db`; stdout and stderr together.
  auto sweep = [&](const std::string& db, const gemmtune::test::RunOptions& options) {
    auto a = args;
    a.insert(a.end(), {"--db", db});
    return gemmtune::test::run_program(gemmtune::test::cli_argv(a), options);
  };
  // Uninterrupted.
  gemmtune::test::CliRun run = sweep(path("whole.db"), {.merge_stderr = true});
  ASSERT_EQ(run.status, 0) << run.out;
  // Interrupted once its first result is committed (Ctrl-C as the sweep sends it to itself:
  // GEMMTUNE_TEST_RAISE_AFTER, tuner/src/candidate_runner.cpp), then resumed.
  run = sweep(path("parts.db"),
              {.set_env = {{"GEMMTUNE_TEST_RAISE_AFTER", "1:" + std::to_string(SIGINT)}},
               .merge_stderr = true});
  EXPECT_EQ(run.status, 130) << "130 when interrupted\n" << run.out;
  const std::size_t after_interrupt = ok_results(path("parts.db"), specs);
  EXPECT_LT(after_interrupt, specs.size() * 8u) << run.out;
  run = sweep(path("parts.db"), {.merge_stderr = true});
  ASSERT_EQ(run.status, 0) << run.out;

  db::Database whole(path("whole.db"), db::OpenMode::read_only, kernel_families()),
      parts(path("parts.db"), db::OpenMode::read_only, kernel_families());
  for (const auto& spec : specs) {
    auto key = to_db(spec.problem());
    auto a = whole.best_for(gpu_id(whole), key), b = parts.best_for(gpu_id(parts), key);
    ASSERT_TRUE(a && b);
    // Same winner, unless two configs are within timing noise of each other.
    if (a->config.name != b->config.name) {
      EXPECT_NEAR(a->median_ms, b->median_ms, 0.05 * a->median_ms)
          << a->config.name << " vs " << b->config.name;
    }
    std::set<std::string>
        configs;  // leaders of the first part are re-timed by the second: count names
    for (const auto& row : parts.results_for(key, gpu_id(parts))) configs.insert(row.config.name);
    EXPECT_EQ(configs.size(), 8u) << "nothing lost";
  }
  for (const auto& s : parts.sweeps())
    EXPECT_TRUE(s.finished_at) << "the interrupted sweep was finished cleanly";
}

TEST_F(Sweep, HungKernelIsRecordedAsTimeoutAndStopsTheDevice) {
  GEMMTUNE_REQUIRE_GPU();
  SweepOptions o = options(path("t.db"), 2);
  o.problems = {{Op::N, Op::N, 4096, 4096, 4096, 1}, {Op::N, Op::N, 256, 256, 256, 1}};
  o.runner.hang_timeout_s =
      0;  // every verification run "hangs": the kernel is still running when polled
  SweepReport r = run_sweep(o);
  EXPECT_TRUE(r.device_hung) << log_.str();
  ASSERT_EQ(r.errors.size(), 1u) << log_.str();
  EXPECT_NE(r.errors[0].find("CUDA context unusable"), std::string::npos) << r.errors[0];
  EXPECT_NE(log_.str().find("stopped"), std::string::npos) << log_.str();
  cudaDeviceSynchronize();  // not really hung: let it finish before reading
  db::Database db(o.db_path, db::OpenMode::read_only, kernel_families());
  auto results = db.results_for(to_db(o.problems[0].problem()), gpu_id(db));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].result.status, db::Status::timeout);
  EXPECT_NE(results[0].result.error.find("did not finish"), std::string::npos);
  EXPECT_FALSE(db.find_problem(to_db(o.problems[1].problem())))
      << "the sweep of the device stopped";
  ASSERT_EQ(db.sweeps().size(), 1u);
  EXPECT_TRUE(db.sweeps()[0].finished_at);
}
