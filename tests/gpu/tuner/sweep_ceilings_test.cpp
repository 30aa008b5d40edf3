// `gemmtune sweep` measures the GPU's ceilings once per GPU model and stores them; `db best`'s %
// peak then reads against them. Needs a GPU (skips without one).
#include <gtest/gtest.h>

#include "gemmtune/db/database.hpp"
#include "gpu/tuner/tuner_fixture.hpp"
#include "support/cli.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

namespace {

using SweepCeilings = gemmtune::test::ScratchDirTest;
using namespace gemmtune;

gemmtune::test::CliRun sweep(const std::string& db) {
  std::vector<std::string> args = {
      "sweep", "--strategy", "exhaustive", "--shape", "256x256x256", "--db", db};
  for (const auto& name : tuner::test::tiny_space(2)) args.insert(args.end(), {"--config", name});
  return gemmtune::test::run_cli(args);
}

TEST_F(SweepCeilings, MeasuredOncePerGpuModelAndReadByDbBest) {
  GEMMTUNE_REQUIRE_GPU();
  const std::string db_path = path("t.db");
  const gemmtune::test::CliRun first = sweep(db_path);
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("measured once and stored"), std::string::npos) << first.out;
  std::string measured_at;
  {
    db::Database db(db_path, db::OpenMode::read_only, kernel_families());
    const auto c = db.ceilings(tuner::test::gpu_id(db));
    ASSERT_TRUE(c) << "the sweep stored no ceilings";
    // Any GPU gemmtune runs on: above 1 TFLOP/s FMA and 100 GB/s copy; under 1000 and 100000.
    EXPECT_GT(c->fp32_tflops, 1.0);
    EXPECT_LT(c->fp32_tflops, 1000.0);
    EXPECT_GT(c->copy_gbs, 100.0);
    EXPECT_LT(c->copy_gbs, 100000.0);
    measured_at = c->measured_at;
  }

  const gemmtune::test::CliRun again = sweep(db_path);
  ASSERT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_EQ(again.out.find("measured once and stored"), std::string::npos) << again.out;
  {
    db::Database db(db_path, db::OpenMode::read_only, kernel_families());
    EXPECT_EQ(db.ceilings(tuner::test::gpu_id(db))->measured_at, measured_at) << "measured again";
  }

  const gemmtune::test::CliRun best = gemmtune::test::run_cli({"db", "best", "--db", db_path});
  ASSERT_EQ(best.status, 0) << best.err;
  EXPECT_NE(best.out.find("% peak: of the FMA ceiling"), std::string::npos) << best.out;
  EXPECT_NE(best.out.find(", measured " + measured_at.substr(0, 10)), std::string::npos)
      << best.out;
}

}  // namespace
