// A sweep of a family whose search space is its own (SweepOptions::family; tuner/family_sweep.hpp)
// without a GPU: the option names a registered family or is refused with the registered ones
// listed, takes the exhaustive strategy alone and no named configs; the candidates are the
// family's candidate_configs that the GPU allows (none: the problem is planned with none); resume
// and the summary read the family's own results; a dry run plans them. The GPU sweep itself:
// tests/gpu/family.
#include <gtest/gtest.h>

#include <string>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/family_sweep.hpp"
#include "gemmtune/tuner/sweep.hpp"
#include "support/naive_family/naive_family.hpp"
#include "support/refusal.hpp"
#include "support/scratch.hpp"

namespace gemmtune::test {
namespace {

using tuner::StrategyKind;
using tuner::SweepOptions;

const tuner::ProblemSpec kSpec{Op::N, Op::T, 96, 80, 64, 1};

// The device a dry run plans for, as the database knows it.
DeviceInfo planning_device() {
  DeviceInfo dev;
  dev.name = "Test GPU";
  dev.limits = DeviceLimits::for_arch("sm_90");
  dev.sm_count = 132;
  return dev;
}

SweepOptions naive_sweep() {
  SweepOptions o;
  o.family = "naive";
  o.strategy.kind = StrategyKind::exhaustive;
  o.problems = {kSpec};
  return o;
}

class SweepFamily : public ::testing::Test {
 protected:
  void SetUp() override { register_naive_family(); }
};

TEST_F(SweepFamily, TheOptionNamesARegisteredFamily) {
  SweepOptions o;
  EXPECT_EQ(o.family, "sgemm");  // the default: the sweep's own space and strategies
  EXPECT_EQ(tuner::sweep_family(o), nullptr);
  o.strategy.kind = StrategyKind::model;  // sgemm takes every strategy
  EXPECT_EQ(tuner::sweep_family(o), nullptr);
  EXPECT_EQ(tuner::sweep_family(naive_sweep()), &naive_kernel_family());
  EXPECT_EQ(tuner::family_names(), "sgemm, naive");

  o.family = "nosuch";
  const std::string unknown = refusal([&] { tuner::sweep_family(o); });
  EXPECT_NE(unknown.find("no kernel family 'nosuch'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("sgemm, naive"), std::string::npos) << unknown;
  // Refused before any GPU work: this machine need not have one.
  EXPECT_NE(refusal([&] { tuner::run_sweep(o); }).find("'nosuch'"), std::string::npos);
  EXPECT_NE(refusal([&] { tuner::plan_sweep(o, planning_device()); }).find("'nosuch'"),
            std::string::npos);
  o.family = "naivegemm";  // a prefix is no name
  EXPECT_NE(refusal([&] { tuner::sweep_family(o); }), "");
}

TEST_F(SweepFamily, AnotherFamilyTakesTheExhaustiveStrategyAndNoNamedConfigs) {
  for (const StrategyKind kind :
       {StrategyKind::random, StrategyKind::halving, StrategyKind::model}) {
    SweepOptions o = naive_sweep();
    o.strategy.kind = kind;
    const std::string why = refusal([&] { tuner::sweep_family(o); });
    EXPECT_NE(why.find(std::string("--strategy ") + tuner::strategy_name(kind)), std::string::npos)
        << why;
    EXPECT_NE(why.find("--strategy exhaustive"), std::string::npos) << why;
  }
  SweepOptions o = naive_sweep();
  o.only_configs = {"sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8"};
  EXPECT_NE(refusal([&] { tuner::sweep_family(o); }).find("--config"), std::string::npos);
}

TEST_F(SweepFamily, TheCandidatesAreTheFamilysThatTheGpuAllows) {
  const SweepOptions o = naive_sweep();
  const Problem p = kSpec.problem();
  DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  EXPECT_EQ(tuner::family_candidates(o, naive_kernel_family(), limits, p),
            naive_kernel_family().candidate_configs(limits, p));
  EXPECT_EQ(
      tuner::family_candidates(o, naive_kernel_family(), limits, p),
      (std::vector<std::string>{"naivegemm_nt_b64", "naivegemm_nt_b128", "naivegemm_nt_b256"}));
  limits.max_threads_per_block = 32;  // no block size of the family fits: no candidate
  EXPECT_TRUE(tuner::family_candidates(o, naive_kernel_family(), limits, p).empty());
}

// Results stored for the problem: a naive config ok, one failed, and a faster sgemm config. Resume
// knows the ok one and drops the failed one; the summary's best is the family's own; a dry run
// counts both as measured before.
TEST_F(SweepFamily, ResumeTheSummaryAndTheDryRunReadTheFamilysResults) {
  const std::string file = (scratch_dir("sweep_family") / "tuning.db").string();
  const DeviceInfo dev = planning_device();
  const Problem p = kSpec.problem();
  SweepOptions o = naive_sweep();
  o.db_path = file;
  {
    const std::vector<tuner::PlanRow> rows = tuner::plan_sweep(o, dev);  // no database yet
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].candidates, 3u);
    EXPECT_EQ(rows[0].measured, 0u);
  }
  db::Database db(file, db::OpenMode::read_write, kernel_families());
  const db::Id gpu = db.upsert_gpu_model(to_db(dev));
  db::SweepInfo info;
  info.gpu_model_id = gpu;
  info.template_hash = template_hash();
  const db::Id sweep = db.begin_sweep(info);
  const db::Id problem = db.upsert_problem(to_db(p));
  const auto result = [&](const db::KernelConfig& row, double ms, db::Status status) {
    db::Result r;
    r.problem_id = problem;
    r.config_id = db.upsert_config(row);
    r.status = status;
    if (status == db::Status::ok) {
      r.median_ms = r.min_ms = r.max_ms = ms;
      r.repetitions = 5;
      r.rel_error = 1e-7;
    } else {
      r.error = "wrong";
    }
    return r;
  };
  const KernelFamily& naive = naive_kernel_family();
  const std::vector<db::Result> results{
      result(*naive.db_row("naivegemm_nt_b128"), 0.20, db::Status::ok),
      result(*naive.db_row("naivegemm_nt_b256"), 0, db::Status::wrong_result),
      result(to_db(*parse_config_name("sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8")), 0.10,
             db::Status::ok)};
  db.record_results(sweep, results);
  db.finish_sweep(sweep);

  const std::vector<std::string> all = tuner::family_candidates(o, naive, dev.limits, p);
  const tuner::FamilyResumeState rs = tuner::load_family_resume_state(db, gpu, p, all, false);
  EXPECT_EQ(rs.candidates, (std::vector<std::string>{"naivegemm_nt_b64", "naivegemm_nt_b128"}));
  EXPECT_EQ(rs.known, (std::map<std::size_t, double>{{1, 0.20}}));
  EXPECT_EQ(rs.failed_before, 1u);
  EXPECT_EQ(rs.fresh(), 1u);
  const tuner::FamilyResumeState forced = tuner::load_family_resume_state(db, gpu, p, all, true);
  EXPECT_EQ(forced.candidates, all);
  EXPECT_EQ(forced.fresh(), 3u);

  const tuner::SummaryRow row =
      tuner::family_summary_row(db, gpu, dev, naive, kSpec, std::nullopt, "measured before");
  EXPECT_EQ(row.config, "naivegemm_nt_b128");  // not the faster sgemm config
  ASSERT_TRUE(row.ms);
  EXPECT_DOUBLE_EQ(*row.ms, 0.20);
  EXPECT_EQ(row.note, "measured before");
  EXPECT_EQ(row.problem, tuner::problem_label(kSpec));

  const std::vector<tuner::PlanRow> rows = tuner::plan_sweep(o, dev);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].candidates, 3u);
  EXPECT_EQ(rows[0].measured, 2u);
}

}  // namespace
}  // namespace gemmtune::test
