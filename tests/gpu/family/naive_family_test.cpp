// The naive family (tests/support/naive_family), registered at run time, end to end on a GPU:
// the tuner's sweep of the family (SweepOptions::family) compiles, verifies against the float64
// reference and times each of its candidates and records them in a SQLite database, the best of
// which a dispatcher opened on that file then runs for the exact problem through the family
// interface, from the binary the sweep stored, right on poisoned output (beta 0) and with C read
// (beta 0.5). A config outside the candidates is measured by CandidateRunner directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/tuner/candidate_runner.hpp"
#include "gemmtune/tuner/cublas_baseline.hpp"
#include "gemmtune/tuner/sweep.hpp"
#include "gpu/dispatch/dispatch_check.hpp"
#include "support/gpu_env.hpp"
#include "support/naive_family/naive_family.hpp"
#include "support/scratch.hpp"

namespace gemmtune::test {
namespace {

using tuner::CandidateRunner;

// A sweep of one problem into `db` made by hand: its row, its bench, and a runner that records
// into them, for configs outside the family's candidates (the `_tf32` ones).
struct OneProblemSweep {
  OneProblemSweep(db::Database& db, const DeviceInfo& dev, const tuner::ProblemSpec& spec,
                  ReferenceGemm& reference)
      : gpu(db.upsert_gpu_model(to_db(dev))),
        sweep(db.begin_sweep(info(gpu))),
        bench(spec, reference, nullptr, 7),
        pool(dev.limits.arch(), "", 1),
        runner({&db, sweep, db.upsert_problem(to_db(spec.problem())), dev.limits.arch()}, dev,
               bench, pool, timer, options) {}
  static db::SweepInfo info(db::Id gpu) {
    db::SweepInfo i;
    i.gpu_model_id = gpu;
    i.strategy = "exhaustive";
    i.template_hash = template_hash();
    i.command_line = "naive_family_test";
    return i;
  }
  db::Id gpu, sweep;
  tuner::ProblemBench bench;
  tuner::GpuTimer timer;
  tuner::CompilePool pool;
  const tuner::RunnerOptions options;
  CandidateRunner runner;  // last: it holds references to the members above
};

TEST(NaiveFamilyGpu, IsTunedStoredAndDispatchedFromTheDatabase) {
  GEMMTUNE_REQUIRE_GPU();
  register_naive_family();
  const KernelFamily& naive = naive_kernel_family();
  const DeviceInfo dev = device_info(0);
  GEMMTUNE_CUDA(cudaSetDevice(0));
  const std::string arch = dev.limits.arch();
  const std::string file = (scratch_dir("naive_family") / "tuning.db").string();
  const tuner::ProblemSpec spec{Op::N, Op::T, 96, 80, 64, 1};
  ReferenceGemm reference(arch);

  // Tune: the sweep of the naive family (SweepOptions::family, as `gemmtune sweep --family naive`)
  // measures every candidate of the family and records it.
  std::string best;
  {
    const std::vector<std::string> names = naive.candidate_configs(dev.limits, spec.problem());
    ASSERT_EQ(names.size(), 3u);
    tuner::SweepOptions o;
    o.family = "naive";
    o.strategy.kind = tuner::StrategyKind::exhaustive;
    o.problems = {spec};
    o.db_path = file;
    o.devices = {0};
    o.seed = 7;
    o.command_line = "naive_family_test";
    std::ostringstream progress;
    o.out = &progress;
    const tuner::SweepReport report = tuner::run_sweep(o);
    ASSERT_TRUE(report.errors.empty()) << report.errors.front() << "\n" << progress.str();
    EXPECT_FALSE(report.interrupted);
    EXPECT_GE(report.measurements, names.size()) << progress.str();  // the leaders once more
    EXPECT_EQ(report.times.compiles.compiled, names.size());
    ASSERT_EQ(report.rows.size(), 1u);
    const tuner::SummaryRow& row = report.rows.front();
    best = row.config;
    ASSERT_TRUE(row.ms) << "no candidate succeeded: see the results of " << file << "\n"
                        << progress.str();
    EXPECT_GT(*row.ms, 0);
    EXPECT_TRUE(row.cublas_ms);
    ASSERT_TRUE(row.compiles);
    EXPECT_EQ(row.compiles->compiled, names.size());
    EXPECT_NE(progress.str().find("family naive"), std::string::npos) << progress.str();
    EXPECT_NE(progress.str().find("best " + best), std::string::npos) << progress.str();

    // Stored: an ok result per candidate, the best a naive config with its knob, its binary.
    db::Database db(file, db::OpenMode::read_only, kernel_families());
    const std::optional<db::Id> gpu = db.find_gpu_model(to_db(dev));
    ASSERT_TRUE(gpu);
    const auto results = db.results_for(to_db(spec.problem()), *gpu);
    ASSERT_EQ(results.size(), 3u);
    for (const auto& r : results) {
      EXPECT_EQ(r.result.status, db::Status::ok) << r.config.name << ": " << r.result.error;
      EXPECT_EQ(r.config.family, "naive");
      EXPECT_NE(std::find(names.begin(), names.end(), r.config.name), names.end()) << r.config.name;
      ASSERT_TRUE(r.result.rel_error);
      EXPECT_LE(*r.result.rel_error, fp32_tolerance(spec.k));
    }
    const std::optional<db::BestRow> stored = db.best_for(*gpu, to_db(spec.problem()));
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->config.name, best);
    EXPECT_EQ(stored->median_ms, *row.ms);
    EXPECT_EQ(stored->config, *naive.db_row(best));
    EXPECT_TRUE(db.get_binary(naive.binary_key(*naive.parse(best), arch)).binary);

    // Swept again: every candidate was measured before, so nothing is.
    const tuner::SweepReport again = tuner::run_sweep(o);
    ASSERT_TRUE(again.errors.empty()) << again.errors.front();
    EXPECT_EQ(again.measurements, 0u);
    ASSERT_EQ(again.rows.size(), 1u);
    EXPECT_EQ(again.rows.front().config, best);
    EXPECT_EQ(again.rows.front().note, "measured before");
  }

  // Dispatch: the exact problem runs the stored best, loaded from the stored binary.
  DispatcherOptions o;
  o.db_path = file;
  Dispatcher d(o);
  std::mt19937_64 rng(11);
  for (const float beta : {0.f, 0.5f}) {
    SCOPED_TRACE("beta " + std::to_string(beta));
    ProblemData data(shape(spec.op_a, spec.op_b, spec.m, spec.n, spec.k, 1, 1.25f, beta), 0, 0,
                     rng);
    ASSERT_EQ(data.p.alignment(), 4);
    const Explanation e = d.explain(data.p);
    EXPECT_EQ(e.config, best) << e.to_string();
    EXPECT_EQ(e.source, ChoiceSource::exact);
    if (beta == 0.f) {
      EXPECT_EQ(d.prepare(data.p), KernelOrigin::database);
    }
    const double error = dispatch_error(d, data, reference);  // C poisoned when beta is 0
    EXPECT_LE(error, fp32_tolerance(spec.k)) << describe(data.p);
  }
  // Another shape of the layout has no tuned data of its own: it borrows the tuned naive config
  // (the nearest step), which runs it right; a shape of another layout gets the sgemm chain's.
  ProblemData near(shape(spec.op_a, spec.op_b, 128, 128, 128, 1, 1.25f, 0.f), 0, 0, rng);
  const Explanation borrowed = d.explain(near.p);
  EXPECT_EQ(borrowed.config, best) << borrowed.to_string();
  EXPECT_EQ(borrowed.source, ChoiceSource::nearest);
  EXPECT_LE(dispatch_error(d, near, reference), fp32_tolerance(128)) << describe(near.p);
  const Explanation other = d.explain(shape(Op::N, Op::N, 128, 128, 128));
  EXPECT_EQ(other.config.rfind("sgemm_", 0), 0u) << other.to_string();
}

// A family's config is verified at its own precision class's tolerance: the naive `_tf32` config
// (operands cut to TF32) passes at TF32's, with an error FP32's would have refused.
TEST(NaiveFamilyGpu, AConfigIsVerifiedAtItsFamilysPrecision) {
  GEMMTUNE_REQUIRE_GPU();
  register_naive_family();
  const DeviceInfo dev = device_info(0);
  GEMMTUNE_CUDA(cudaSetDevice(0));
  const std::string file = (scratch_dir("naive_family_tf32") / "tuning.db").string();
  const tuner::ProblemSpec spec{Op::N, Op::N, 64, 48, 2048, 1};
  ReferenceGemm reference(dev.limits.arch());
  db::Database db(file, db::OpenMode::read_write, kernel_families());
  OneProblemSweep run(db, dev, spec, reference);
  for (const bool tf32 : {false, true}) {
    const std::string name = naive_config_name(Op::N, Op::N, 128, tf32);
    EXPECT_TRUE(run.runner.measure(name, tuner::Effort::quick)) << name;
  }
  db.finish_sweep(run.sweep);
  const auto results = db.results_for(to_db(spec.problem()), run.gpu);
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) {
    SCOPED_TRACE(r.config.name);
    EXPECT_EQ(r.result.status, db::Status::ok) << r.result.error;
    ASSERT_TRUE(r.result.rel_error);
    const bool tf32 = r.config.knobs.at("naive_tf32") == 1;
    EXPECT_EQ(*r.result.rel_error > fp32_tolerance(spec.k), tf32) << *r.result.rel_error;
    EXPECT_LE(*r.result.rel_error,
              precision_tolerance(tf32 ? Precision::tf32 : Precision::ieee, spec.k));
  }
}

}  // namespace
}  // namespace gemmtune::test
