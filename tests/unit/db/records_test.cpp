// The typed API: natural keys, results, the best view, lookups for the dispatcher and for resume.
#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

class Records : public OneGpuDbTest {
 protected:
  void SetUp() override {
    OneGpuDbTest::SetUp();
    sweep_ = db_->begin_sweep(sweep_info(gpu_, "gemmtune sweep"));
  }
  Id sweep_ = 0;
};

TEST_F(Records, NaturalKeysGiveStableIds) {
  EXPECT_EQ(db_->upsert_gpu_model(sample_gpu()), gpu_);
  EXPECT_NE(db_->upsert_gpu_model(sample_gpu("NVIDIA H100", 132)), gpu_);
  EXPECT_NE(db_->upsert_gpu_model(sample_gpu("NVIDIA H200", 114)), gpu_);  // SM count is key
  const Id p = db_->upsert_problem(sample_problem(512));
  EXPECT_EQ(db_->upsert_problem(sample_problem(512)), p);
  ProblemKey unaligned = sample_problem(512);
  unaligned.alignment = 1;
  EXPECT_NE(db_->upsert_problem(unaligned), p);
  const Id c = db_->upsert_config(sample_config(3));
  EXPECT_EQ(db_->upsert_config(sample_config(3)), c);
  EXPECT_EQ(db_->config(c), sample_config(3));
  EXPECT_EQ(db_->find_problem(sample_problem(512)), p);
  EXPECT_FALSE(db_->find_problem(sample_problem(513)));
  EXPECT_EQ(db_->gpu_models().size(), 3u);
}

TEST_F(Records, ConfigNameWithOtherParametersIsRefused) {
  db_->upsert_config(sample_config(1));
  KernelConfig c = sample_config(1);
  c.knobs["tm"] = 16;
  expect_error([&] { db_->upsert_config(c); }, {c.name, "other parameters"});
}

TEST_F(Records, BadValuesAreRefusedWithTheRule) {
  ProblemKey p = sample_problem(64);
  p.op_a = 'x';
  expect_error([&] { db_->upsert_problem(p); }, {"tuning database", "CHECK constraint", "op_a"});
  Result r;  // ok without a time
  expect_error([&] { db_->record_results(sweep_, std::vector<Result>{r}); }, {"median_ms"});
  expect_error([&] { db_->finish_sweep(999); }, {"no such sweep"});
}

TEST_F(Records, BatchIsAllOrNothing) {
  const Id p = db_->upsert_problem(sample_problem(64));
  const Id c = db_->upsert_config(sample_config(0));
  std::vector<Result> batch{ok_result(p, c, 1.0), ok_result(p, 12345, 2.0)};  // no config 12345
  EXPECT_THROW(db_->record_results(sweep_, batch), DatabaseError);
  EXPECT_FALSE(db_->measured(gpu_, p, c));
  db_->record_results(sweep_, std::span(batch).first(1));
  EXPECT_TRUE(db_->measured(gpu_, p, c));
}

TEST_F(Records, ResultsRoundTripAndRankOkFirst) {
  const Id p = db_->upsert_problem(sample_problem(256));
  std::vector<Id> cfg;
  for (int i = 0; i < 5; ++i) cfg.push_back(db_->upsert_config(sample_config(i)));
  std::vector<Result> batch{
      ok_result(p, cfg[0], 3.0),
      failed_result(p, cfg[1], Status::compile_failed, "ptxas: too many regs"),
      ok_result(p, cfg[2], 1.5), failed_result(p, cfg[3], Status::wrong_result, "rel error 0.3"),
      ok_result(p, cfg[4], 2.0)};
  db_->record_results(sweep_, batch);
  const auto rows = db_->results_for(sample_problem(256), gpu_);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].config.name, sample_config(2).name);
  EXPECT_EQ(rows[1].config.name, sample_config(4).name);
  EXPECT_EQ(rows[2].config.name, sample_config(0).name);
  EXPECT_EQ(rows[3].result.status, Status::compile_failed);
  EXPECT_EQ(rows[3].result.error, "ptxas: too many regs");
  EXPECT_FALSE(rows[3].result.median_ms);
  EXPECT_EQ(rows[4].result.status, Status::wrong_result);
  const Result& r = rows[0].result;
  EXPECT_EQ(r.median_ms, 1.5);
  EXPECT_EQ(r.min_ms, 1.5 * 0.9);
  EXPECT_EQ(r.repetitions, 20);
  EXPECT_EQ(r.registers, 128);
  EXPECT_EQ(r.smem_bytes, 16384);
  EXPECT_EQ(rows[0].sweep_id, sweep_);
  EXPECT_FALSE(rows[0].recorded_at.empty());
  // Another GPU model sees none of them.
  EXPECT_TRUE(db_->results_for(sample_problem(256), gpu_ + 100).empty());
}

TEST_F(Records, RecordingAgainInTheSameSweepReplaces) {
  const Id p = db_->upsert_problem(sample_problem(256));
  const Id c = db_->upsert_config(sample_config(0));
  db_->record_results(sweep_, std::vector<Result>{failed_result(p, c, Status::timeout, "slow")});
  db_->record_results(sweep_, std::vector<Result>{ok_result(p, c, 0.7)});
  const auto rows = db_->results_for(sample_problem(256), gpu_);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].result.status, Status::ok);
  EXPECT_EQ(rows[0].result.error, "");
}

TEST_F(Records, BestViewPicksLowestOkMedianAcrossSweeps) {
  const Id p = db_->upsert_problem(sample_problem(1024));
  const Id c0 = db_->upsert_config(sample_config(0));
  const Id c1 = db_->upsert_config(sample_config(1));
  const Id c2 = db_->upsert_config(sample_config(2));
  // A failure with a (bogus) tiny time must not win; neither must a pruned row.
  Result bogus = failed_result(p, c2, Status::wrong_result, "garbage");
  bogus.median_ms = 0.001;
  Result pruned = failed_result(p, c0, Status::pruned, "");
  pruned.median_ms = 0.002;
  db_->record_results(sweep_,
                      std::vector<Result>{ok_result(p, c0, 2.0), ok_result(p, c1, 1.2), bogus});
  db_->record_baseline(sweep_, cublas(p, 1.8));
  const Id sweep2 = db_->begin_sweep(sweep_info(gpu_));
  db_->record_results(sweep2, std::vector<Result>{ok_result(p, c1, 1.0), pruned});
  db_->record_baseline(sweep2, cublas(p, 1.5));

  auto best = db_->best_for(gpu_, sample_problem(1024));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config_id, c1);
  EXPECT_EQ(best->config, sample_config(1));
  EXPECT_EQ(best->sweep_id, sweep2);
  EXPECT_DOUBLE_EQ(best->median_ms, 1.0);
  ASSERT_TRUE(best->cublas_median_ms);  // the baseline of the same sweep
  EXPECT_DOUBLE_EQ(*best->cublas_median_ms, 1.5);
  EXPECT_DOUBLE_EQ(best->speedup_vs_cublas().value(), 1.5);
  EXPECT_EQ(best->problem, sample_problem(1024));
  EXPECT_EQ(scalar(db_->path(), "SELECT count(*) FROM best_results"), 1);

  // Only failures: no best.
  const Id q = db_->upsert_problem(sample_problem(2048));
  db_->record_results(sweep_,
                      std::vector<Result>{failed_result(q, c0, Status::launch_failed, "x")});
  EXPECT_FALSE(db_->best_for(gpu_, sample_problem(2048)));
  EXPECT_FALSE(db_->best_for(gpu_, sample_problem(4096)));  // unknown problem
}

TEST_F(Records, BestsAndMostCommonBestPerModel) {
  const Id other_gpu = db_->upsert_gpu_model(sample_gpu("NVIDIA A100", 108));
  const Id other_sweep = db_->begin_sweep(sweep_info(other_gpu));
  const Id c0 = db_->upsert_config(sample_config(0));
  const Id c1 = db_->upsert_config(sample_config(1));
  for (int i = 1; i <= 3; ++i) {
    const Id p = db_->upsert_problem(sample_problem(256 * i));
    // c1 wins problems 1 and 2 on our GPU, c0 wins 3; on the other GPU c0 wins all.
    db_->record_results(
        sweep_, std::vector<Result>{ok_result(p, c0, i == 3 ? 1.0 : 2.0), ok_result(p, c1, 1.5)});
    db_->record_results(other_sweep,
                        std::vector<Result>{ok_result(p, c0, 1.0), ok_result(p, c1, 2.0)});
  }
  EXPECT_EQ(db_->bests().size(), 6u);
  const auto ours = db_->bests(gpu_);
  ASSERT_EQ(ours.size(), 3u);
  EXPECT_EQ(ours[0].problem.m, 256);
  EXPECT_EQ(ours[0].config_id, c1);
  EXPECT_EQ(ours[2].config_id, c0);
  const auto common = db_->most_common_best(gpu_);
  ASSERT_TRUE(common);
  EXPECT_EQ(common->config_id, c1);
  EXPECT_EQ(common->problems, 2);
  EXPECT_EQ(db_->most_common_best(other_gpu)->config_id, c0);
  EXPECT_FALSE(db_->most_common_best(gpu_ + 100));
}

TEST_F(Records, TopConfigsPerProblemTakeEachConfigsBestResult) {
  const Id other_gpu = db_->upsert_gpu_model(sample_gpu("NVIDIA A100", 108));
  const Id c0 = db_->upsert_config(sample_config(0));
  const Id c1 = db_->upsert_config(sample_config(1));
  const Id c2 = db_->upsert_config(sample_config(2));
  const Id p = db_->upsert_problem(sample_problem(512));
  const Id q = db_->upsert_problem(sample_problem(1024));
  // c0 measured twice (its faster result counts once), a failure that ranks nowhere, another
  // GPU's faster result that must not leak in.
  db_->record_results(sweep_, std::vector<Result>{ok_result(p, c0, 3.0), ok_result(p, c1, 2.0),
                                                  ok_result(p, c0, 1.0), ok_result(p, c2, 2.5),
                                                  failed_result(p, c2, Status::launch_failed, "x"),
                                                  ok_result(q, c2, 4.0)});
  db_->record_results(db_->begin_sweep(sweep_info(other_gpu)),
                      std::vector<Result>{ok_result(p, c2, 0.1)});
  const auto top = db_->top_configs(gpu_, 2);
  ASSERT_EQ(top.size(), 3u);  // two of p, the only one of q
  EXPECT_EQ(top[0].config_id, c0);
  EXPECT_DOUBLE_EQ(top[0].median_ms, 1.0);
  EXPECT_EQ(top[0].config, sample_config(0));
  EXPECT_EQ(top[0].problem, sample_problem(512));
  EXPECT_EQ(top[1].config_id, c1);
  EXPECT_EQ(top[2].config_id, c2);
  EXPECT_EQ(top[2].problem, sample_problem(1024));
  EXPECT_EQ(db_->top_configs(gpu_, 1).size(), 2u);  // the bests
  EXPECT_EQ(db_->top_configs(gpu_, 1)[0].config_id,
            db_->best_for(gpu_, sample_problem(512))->config_id);
}

TEST_F(Records, MeasuredIsPerGpuModelForResume) {
  const Id p = db_->upsert_problem(sample_problem(64));
  const Id c = db_->upsert_config(sample_config(0));
  const Id other_gpu = db_->upsert_gpu_model(sample_gpu("NVIDIA A100", 108));
  EXPECT_FALSE(db_->measured(gpu_, p, c));
  db_->record_results(sweep_, std::vector<Result>{failed_result(p, c, Status::invalid, "smem")});
  EXPECT_TRUE(db_->measured(gpu_, p, c));
  EXPECT_FALSE(db_->measured(other_gpu, p, c));
}

TEST_F(Records, SweepEnvironmentIsStored) {
  SweepInfo info = sweep_info(gpu_, "gemmtune sweep --strategy=random");
  info.driver_version = info.runtime_version = info.nvrtc_version = "13.0";
  info.gemmtune_version = "0.1.0";
  info.strategy = "random";
  info.template_hash = "abc123";
  info.hostname = "node7";
  const Id s = db_->begin_sweep(info);
  auto rows = db_->sweeps(gpu_);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].id, s);
  EXPECT_EQ(rows[1].info.nvrtc_version, "13.0");
  EXPECT_EQ(rows[1].info.template_hash, "abc123");
  EXPECT_EQ(rows[1].info.hostname, "node7");
  EXPECT_EQ(rows[1].uid.size(), 32u);
  EXPECT_NE(rows[1].uid, rows[0].uid);
  EXPECT_FALSE(rows[1].finished_at);
  EXPECT_EQ(rows[1].started_at.size(), 24u);  // 2025-01-01T00:00:00.000Z
  db_->finish_sweep(s);
  rows = db_->sweeps(gpu_);
  ASSERT_TRUE(rows[1].finished_at);
  EXPECT_GE(*rows[1].finished_at, rows[1].started_at);
}

TEST_F(Records, TextWithQuotesNewlinesAndNonUtf8RoundTrips) {
  const std::string nasty = std::string("it's \"quoted\", a\nnewline, \r\n, a tab\t, a NUL ") +
                            std::string(1, '\0') + " and bytes \xff\xfe\x80 and ok UTF-8 \xc3\xa9";
  SweepInfo info = sweep_info(gpu_, nasty);
  info.hostname = nasty;
  const Id s = db_->begin_sweep(info);
  const Id p = db_->upsert_problem(sample_problem(64));
  const Id c = db_->upsert_config(sample_config(0));
  db_->record_results(s, std::vector<Result>{failed_result(p, c, Status::compile_failed, nasty)});
  const std::string file = db_->path();
  db_.reset();  // through the file, not a cache
  Database db(file, OpenMode::read_only);
  const auto sweeps = db.sweeps();
  EXPECT_EQ(sweeps.back().info.command_line, nasty);
  EXPECT_EQ(sweeps.back().info.hostname, nasty);
  const auto rows = db.results_for(sample_problem(64), gpu_);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].result.error, nasty);
  EXPECT_EQ(rows[0].result.error.size(), nasty.size());
}

}  // namespace
}  // namespace gemmtune::db::test
