// `gemmtune explain` without a GPU (--arch): what it prints for tuned, nearest and untuned problems.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/cli.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

// Runs `gemmtune explain <args>`, stdout and stderr together as `out`.
CliRun explain(std::vector<std::string> args) {
  args.insert(args.begin(), "explain");
  return run_cli(args, {.merge_stderr = true});
}

class ExplainCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cli_path().empty()) GTEST_SKIP() << "the command line is not built";
    limits_ = DeviceLimits::for_arch("sm_90");
    pool_ = tuned_pool(limits_, Op::N, Op::T);
    ASSERT_GE(pool_.size(), 2u);
    path_ = (scratch_dir("explain_cli") / "tuning.db").string();
    TuningDbBuilder b(path_);
    b.gpu("NVIDIA H200", 9, 0, 132);
    b.add(db_problem(Op::N, Op::T, 4096, 4096, 4096), pool_[0], 3.0, 2e-7, 3e-7);
    b.add(db_problem(Op::N, Op::T, 512, 512, 512), pool_[1], 0.05);
  }
  DeviceLimits limits_;
  std::vector<GemmConfig> pool_;
  std::string path_;
};

TEST_F(ExplainCli, ExactWithoutAGpu) {
  CliRun r =
      explain({"--shape", "4096x4096x4096", "--layout", "nt", "--arch", "sm_90", "--db", path_});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("source   exact"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(config_name(pool_[0])), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("3.0000 ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rel. error 2e-07 (wide-range inputs 3e-07)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("math     FP32 FMA (ieee class); precision policy ieee"), std::string::npos)
      << r.out;
}

TEST_F(ExplainCli, NearestAndBuiltin) {
  CliRun r = explain({"--shape", "600x500x500", "--layout", "nt", "--arch", "sm_90", "--gpu-model",
                      "NVIDIA H200", "--db", path_});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("source   nearest"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("tuned    512x512x512 nt"), std::string::npos) << r.out;

  r = explain({"--shape", "600x500x500", "--layout", "tt", "--arch", "sm_90", "--db", path_});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("source   builtin"), std::string::npos) << r.out;
}

TEST_F(ExplainCli, MissingDatabaseStillAnswers) {
  CliRun r = explain({"--shape", "100x100x100", "--arch", "sm_80", "--db", path_ + ".missing"});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("source   builtin"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("does not exist"), std::string::npos) << r.out;
}

TEST_F(ExplainCli, BadShapeIsAnError) {
  CliRun r = explain({"--shape", "100x100", "--arch", "sm_90", "--db", path_});
  EXPECT_NE(r.status, 0) << r.out;
}

}  // namespace
}  // namespace gemmtune::test
