// Resume against a real database file: pairs measured before are skipped, --force re-measures.
#include <gtest/gtest.h>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/tuner/resume.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

class Resume : public gemmtune::test::ScratchDirTest {
 protected:
  // Four configs of the nn layout that differ in their block tile.
  std::vector<GemmConfig> configs() const {
    std::vector<GemmConfig> out;
    for (int bn : {32, 64, 128, 256}) {
      GemmConfig c;
      c.bn = bn;
      out.push_back(c);
    }
    return out;
  }
  db::Result result(db::Database& db, db::Id problem, const GemmConfig& c, db::Status s,
                    double ms = 1) {
    db::Result r;
    r.problem_id = problem;
    r.config_id = db.upsert_config(to_db(c));
    r.status = s;
    if (s == db::Status::ok)
      r.median_ms = r.min_ms = r.max_ms = ms;
    else
      r.error = "test";
    return r;
  }
};

db::GpuModel gpu(const std::string& name) {
  db::GpuModel g;
  g.name = name, g.cc_major = 9, g.sm_count = 132;
  return g;
}

}  // namespace

TEST_F(Resume, MeasuredPairsAreSkippedAndForceMeasuresAll) {
  db::Database db(path("t.db"), db::OpenMode::read_write, kernel_families());
  Problem p = Problem::packed(Op::N, Op::N, 512, 512, 512);
  auto cs = configs();
  // Nothing stored yet: all fresh.
  db::Id h200 = db.upsert_gpu_model(gpu("NVIDIA H200"));
  ResumeState s = load_resume_state(db, h200, p, cs, false);
  EXPECT_EQ(s.fresh(), 4u);
  EXPECT_TRUE(s.known.empty());

  db::SweepInfo info;
  info.gpu_model_id = h200;
  db::Id sweep = db.begin_sweep(info);
  db::Id problem = db.upsert_problem(to_db(p));
  std::vector<db::Result> batch = {result(db, problem, cs[0], db::Status::ok, 2.5),
                                   result(db, problem, cs[2], db::Status::wrong_result)};
  db.record_results(sweep, batch);
  // A later sweep measured cs[0] again, faster: the best earlier median counts.
  db::Id sweep2 = db.begin_sweep(info);
  std::vector<db::Result> batch2 = {result(db, problem, cs[0], db::Status::ok, 2.0)};
  db.record_results(sweep2, batch2);

  s = load_resume_state(db, h200, p, cs, false);
  EXPECT_EQ(s.failed_before, 1u);
  ASSERT_EQ(s.candidates.size(), 3u);  // cs[2] failed before: out of the race
  EXPECT_EQ(s.fresh(), 2u);            // cs[1], cs[3]
  ASSERT_EQ(s.known.size(), 1u);
  EXPECT_EQ(s.candidates[s.known.begin()->first], cs[0]);
  EXPECT_DOUBLE_EQ(s.known.begin()->second, 2.0);

  // --force: everything is measured again.
  s = load_resume_state(db, h200, p, cs, true);
  EXPECT_EQ(s.candidates.size(), 4u);
  EXPECT_EQ(s.fresh(), 4u);

  // Another GPU model has measured nothing.
  db::Id h100 = db.upsert_gpu_model(gpu("NVIDIA H100"));
  EXPECT_EQ(load_resume_state(db, h100, p, cs, false).fresh(), 4u);
  // Another problem neither.
  EXPECT_EQ(
      load_resume_state(db, h200, Problem::packed(Op::N, Op::N, 512, 512, 256), cs, false).fresh(),
      4u);
}

TEST(ResumeState, FromRows) {
  GemmConfig a, b;
  b.bm = 64;
  db::ResultRow ok;
  ok.config = to_db(a);
  ok.result.status = db::Status::ok;
  ok.result.median_ms = 3.0;
  db::ResultRow pruned;
  pruned.config = to_db(b);
  pruned.result.status = db::Status::pruned;
  ResumeState s = resume_state({a, b}, {ok, pruned});
  EXPECT_EQ(s.candidates.size(), 1u);
  EXPECT_EQ(s.fresh(), 0u);
  EXPECT_EQ(s.failed_before, 1u);
}
