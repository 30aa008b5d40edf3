// The queries behind `gemmtune db`'s reports: each on rows chosen so that a wrong table, filter,
// order or column gives another answer.
#include "gemmtune/db/reports.hpp"

#include <tuple>

#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

class Reports : public OneGpuDbTest {
 protected:
  Id problem(std::int64_t m, std::int64_t n, std::int64_t k, char op_a = 'n',
             std::int64_t batch = 1, int alignment = 4) {
    ProblemKey p = sample_problem(m, n, k);
    p.op_a = op_a;
    p.batch = batch;
    p.alignment = alignment;
    return db_->upsert_problem(p);
  }
};

TEST_F(Reports, RowCountsCountEachTable) {
  EXPECT_EQ(row_counts(*db_).gpu_models, 1);
  EXPECT_EQ(row_counts(*db_).results, 0);
  db_->upsert_gpu_model(sample_gpu("NVIDIA H100"));
  const Id s1 = db_->begin_sweep(sweep_info(gpu_));
  db_->begin_sweep(sweep_info(gpu_));
  db_->begin_sweep(sweep_info(gpu_));
  const Id p = problem(64, 64, 64);
  for (std::int64_t m : {128, 256, 512}) problem(m, 64, 64);
  std::vector<Result> results;
  for (int i = 0; i < 5; ++i)
    results.push_back(ok_result(p, db_->upsert_config(sample_config(i)), 1.0 + i));
  results.push_back(
      failed_result(p, db_->upsert_config(sample_config(5)), Status::timeout, "slow"));
  db_->record_results(s1, results);
  Binary b;
  b.key = "k";
  b.cubin = {std::byte{1}};
  db_->put_binary(b);

  const RowCounts c = row_counts(*db_);
  EXPECT_EQ(c.gpu_models, 2);
  EXPECT_EQ(c.sweeps, 3);
  EXPECT_EQ(c.problems, 4);
  EXPECT_EQ(c.configs, 6);
  EXPECT_EQ(c.results, 6);
  EXPECT_EQ(c.binaries, 1);
}

TEST_F(Reports, HasResultsCountsFailuresToo) {
  const Id s = db_->begin_sweep(sweep_info(gpu_));
  const Id p = problem(64, 64, 64);
  const Id c = db_->upsert_config(sample_config(0));
  EXPECT_FALSE(has_results(*db_)) << "a sweep, a problem and a config are not results";
  db_->record_results(s, std::vector<Result>{failed_result(p, c, Status::invalid, "smem")});
  EXPECT_TRUE(has_results(*db_));
}

TEST_F(Reports, GpuModelSummaryCountsOnlyThatModel) {
  const Id other = db_->upsert_gpu_model(sample_gpu("NVIDIA H100"));
  const Id idle = db_->upsert_gpu_model(sample_gpu("NVIDIA A100", 108));
  const Id s1 = db_->begin_sweep(sweep_info(gpu_));
  const Id s2 = db_->begin_sweep(sweep_info(gpu_));
  const Id s_other = db_->begin_sweep(sweep_info(other));
  const Id p1 = problem(64, 64, 64), p2 = problem(128, 64, 64), p3 = problem(256, 64, 64);
  const Id c0 = db_->upsert_config(sample_config(0)), c1 = db_->upsert_config(sample_config(1));
  db_->record_results(s1, std::vector<Result>{ok_result(p1, c0, 1.0), ok_result(p1, c1, 2.0),
                                              failed_result(p2, c0, Status::timeout, "slow")});
  db_->record_results(s2, std::vector<Result>{ok_result(p1, c0, 1.1)});
  db_->record_results(s_other, std::vector<Result>{ok_result(p3, c0, 1.0), ok_result(p2, c1, 1.0)});
  // The first sweep started last: the last sweep goes by start time, not by id.
  exec_raw(db_->path(), "UPDATE sweeps SET started_at = '2099-01-01T00:00:00.000Z' WHERE id = " +
                            std::to_string(s1));

  const GpuModelSummary s = gpu_model_summary(*db_, gpu_);
  EXPECT_EQ(s.sweeps, 2);
  EXPECT_EQ(s.problems, 2);
  EXPECT_EQ(s.results, 4);
  EXPECT_EQ(s.failed, 1);
  EXPECT_EQ(s.last_sweep_started_at, "2099-01-01T00:00:00.000Z");

  const GpuModelSummary o = gpu_model_summary(*db_, other);
  EXPECT_EQ(o.sweeps, 1);
  EXPECT_EQ(o.problems, 2);
  EXPECT_EQ(o.results, 2);
  EXPECT_EQ(o.failed, 0);
  EXPECT_EQ(o.last_sweep_started_at, db_->sweeps(other).at(0).started_at);

  const GpuModelSummary none = gpu_model_summary(*db_, idle);
  EXPECT_EQ(none.sweeps, 0);
  EXPECT_EQ(none.results, 0);
  EXPECT_EQ(none.last_sweep_started_at, "");
}

TEST_F(Reports, RunnerUpIsTheFastestOtherOkConfigOfTheSameModelAndProblem) {
  const Id other_gpu = db_->upsert_gpu_model(sample_gpu("NVIDIA H100"));
  const Id s = db_->begin_sweep(sweep_info(gpu_));
  const Id s_other = db_->begin_sweep(sweep_info(other_gpu));
  const Id p = problem(64, 64, 64), q = problem(128, 64, 64);
  std::vector<Id> c;
  for (int i = 0; i < 5; ++i) c.push_back(db_->upsert_config(sample_config(i)));
  Result wrong = ok_result(p, c[3], 0.5);  // fast but wrong: no runner-up
  wrong.status = Status::wrong_result;
  db_->record_results(s,
                      std::vector<Result>{ok_result(p, c[0], 1.0), ok_result(p, c[1], 3.0),
                                          ok_result(p, c[2], 2.0), wrong, ok_result(q, c[4], 1.2)});
  db_->record_results(s_other, std::vector<Result>{ok_result(p, c[4], 1.5)});

  const auto best = db_->best_for(gpu_, sample_problem(64, 64, 64));
  ASSERT_TRUE(best);
  ASSERT_EQ(best->config_id, c[0]);
  EXPECT_EQ(runner_up_ms(*db_, *best), 2.0);

  const auto alone = db_->best_for(gpu_, sample_problem(128, 64, 64));
  ASSERT_TRUE(alone);
  EXPECT_FALSE(runner_up_ms(*db_, *alone)) << "no other config ran it";
}

TEST_F(Reports, ProblemsOfShapeAreEveryVariantOfThatShapeInOrder) {
  problem(64, 64, 64, 't');
  problem(64, 64, 64, 'n', 2, 1);
  problem(64, 64, 64, 'n', 1, 4);
  problem(64, 64, 64, 'n', 1, 2);
  problem(64, 64, 128);
  problem(64, 128, 64);
  problem(128, 64, 64);

  const std::vector<ProblemKey> found = problems_of_shape(*db_, 64, 64, 64);
  ASSERT_EQ(found.size(), 4u);
  for (const auto& p : found) EXPECT_EQ(std::tie(p.m, p.n, p.k), std::make_tuple(64, 64, 64));
  auto variant = [](const ProblemKey& p) { return std::make_tuple(p.op_a, p.batch, p.alignment); };
  EXPECT_EQ(variant(found[0]), std::make_tuple('n', 1, 2));
  EXPECT_EQ(variant(found[1]), std::make_tuple('n', 1, 4));
  EXPECT_EQ(variant(found[2]), std::make_tuple('n', 2, 1));  // batch before alignment
  EXPECT_EQ(variant(found[3]), std::make_tuple('t', 1, 4));
  EXPECT_TRUE(problems_of_shape(*db_, 64, 64, 32).empty());
}

TEST_F(Reports, LargestShapesAreDistinctLargestFirstAndLimited) {
  EXPECT_TRUE(largest_shapes(*db_, 9).empty());
  problem(64, 64, 64);
  problem(4096, 16, 16);  // a larger M than 512^3 but a smaller volume
  problem(512, 512, 512);
  problem(512, 512, 512, 't');  // the same shape in another layout: listed once
  problem(1024, 1024, 1024, 'n', 2);

  const std::vector<ProblemShape> all = largest_shapes(*db_, 9);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(std::tie(all[0].m, all[0].n, all[0].k), std::make_tuple(1024, 1024, 1024));
  EXPECT_EQ(std::tie(all[1].m, all[1].n, all[1].k), std::make_tuple(512, 512, 512));
  EXPECT_EQ(std::tie(all[2].m, all[2].n, all[2].k), std::make_tuple(4096, 16, 16));
  EXPECT_EQ(std::tie(all[3].m, all[3].n, all[3].k), std::make_tuple(64, 64, 64));
  EXPECT_EQ(largest_shapes(*db_, 2).size(), 2u);
}

}  // namespace
}  // namespace gemmtune::db::test
