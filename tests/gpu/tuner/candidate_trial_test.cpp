// CandidateRunner::trial(), the path of `gemmtune try`: a config is verified and timed, a wrong
// result (made by the corrupt_output hook) is timed as well and says so, a config that did not
// compile comes back as launch_failed, and nothing is recorded (the runner has no database).
#include <gtest/gtest.h>

#include "gemmtune/reference.hpp"
#include "gemmtune/tuner/candidate_runner.hpp"
#include "support/gpu_env.hpp"

namespace gemmtune::tuner::test {
namespace {

TEST(CandidateTrial, TimesRightAndWrongResultsAndRecordsNothing) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceInfo dev = device_info(0);
  GEMMTUNE_CUDA(cudaSetDevice(0));
  ReferenceGemm reference(dev.limits.arch());
  ProblemBench bench({Op::N, Op::T, 127, 129, 67, 1}, reference, nullptr, 7);
  GpuTimer timer;
  CompilePool pool(dev.limits.arch(), "", 2);
  bool corrupt = false;
  RunnerOptions options;
  options.corrupt_output = [&corrupt](const GemmConfig&) { return corrupt; };
  CandidateRunner runner({nullptr, 0, 0, dev.limits.arch()}, dev, bench, pool, timer, options);
  const GemmConfig config =
      parse_config_name("sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8")->fitted_to(bench.problem());
  const auto compiled = pool.take(config);
  ASSERT_TRUE(compiled->ok) << compiled->log;

  const Trial right = runner.trial(config, *compiled, TimerOptions{});
  EXPECT_EQ(right.verification.outcome, Verification::Outcome::ok) << right.verification.error;
  EXPECT_LE(right.verification.rel_error, verification_tolerance(config, 67));
  ASSERT_TRUE(right.timing);
  EXPECT_GT(right.timing->median_ms, 0);

  corrupt = true;
  const Trial wrong = runner.trial(config, *compiled, TimerOptions{});
  EXPECT_EQ(wrong.verification.outcome, Verification::Outcome::wrong_result);
  EXPECT_GT(wrong.verification.rel_error, verification_tolerance(config, 67));
  ASSERT_TRUE(wrong.timing) << "a wrong result is timed too";
  EXPECT_GT(wrong.timing->median_ms, 0);

  CompiledCandidate failed;
  failed.config = config;
  const Trial not_compiled = runner.trial(config, failed, TimerOptions{});
  EXPECT_EQ(not_compiled.verification.outcome, Verification::Outcome::launch_failed);
  EXPECT_FALSE(not_compiled.verification.error.empty());
  EXPECT_FALSE(not_compiled.timing);
}

}  // namespace
}  // namespace gemmtune::tuner::test
