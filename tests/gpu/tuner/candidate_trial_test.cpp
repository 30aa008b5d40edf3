// CandidateRunner::trial(), the path of `gemmtune try`: a config is verified and timed, a wrong
// result (made by the corrupt_output hook) is timed as well and says so, a config that did not
// compile comes back as launch_failed, and nothing is recorded (the runner has no database).
// CandidateRunner::compile(), the compile step of the sweep and of `gemmtune try`: a config
// compiled afresh is stored in the target's binary cache once.
#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/tuner/candidate_runner.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

namespace gemmtune::tuner::test {
namespace {

// Device 0, made current.
DeviceInfo device0() {
  GEMMTUNE_CUDA(cudaSetDevice(0));
  return device_info(0);
}

// What a runner works with: device 0, a 127x129x67 NT problem, a timer and a compile pool.
struct Gpu {
  DeviceInfo dev = device0();
  ReferenceGemm reference{dev.limits.arch()};
  ProblemBench bench{{Op::N, Op::T, 127, 129, 67, 1}, reference, nullptr, 7};
  GpuTimer timer;
  CompilePool pool{dev.limits.arch(), "", 2};
};

TEST(CandidateTrial, TimesRightAndWrongResultsAndRecordsNothing) {
  GEMMTUNE_REQUIRE_GPU();
  Gpu gpu;
  auto& [dev, reference, bench, timer, pool] = gpu;
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

using CandidateCompile = ::gemmtune::test::ScratchDirTest;

// A new compile is stored, a reused one is not; where storing fails, binary_store_failed hears of
// it once and the runner stores no more (the compiles still come back).
TEST_F(CandidateCompile, StoresNewCompilesAndReportsAFailedStore) {
  GEMMTUNE_REQUIRE_GPU();
  Gpu gpu;
  auto& [dev, reference, bench, timer, pool] = gpu;
  auto config = [&](const std::string& name) {
    return parse_config_name(name)->fitted_to(bench.problem());
  };
  db::Database db(path("tuning.db"), db::OpenMode::read_write, kernel_families());
  RunnerOptions options;
  CandidateRunner runner({&db, 0, 0, dev.limits.arch()}, dev, bench, pool, timer, options);
  const auto first = runner.compile(config("sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8"));
  ASSERT_TRUE(first->ok) << first->log;
  EXPECT_EQ(first->origin, CompileOrigin::compiled);
  EXPECT_EQ(db.binary_keys(), std::vector<std::string>{first->cache_key});
  const auto again = runner.compile(config("sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8"));
  EXPECT_EQ(again->origin, CompileOrigin::reused);
  EXPECT_EQ(runner.times().compiles, (CompileCounts{1, 0, 1}));
  EXPECT_EQ(db.binary_keys().size(), 1u);

  db::Database read_only(path("tuning.db"), db::OpenMode::read_only, kernel_families());
  std::vector<std::string> failures;
  options.binary_store_failed = [&](const std::exception& e) { failures.push_back(e.what()); };
  CandidateRunner refused({&read_only, 0, 0, dev.limits.arch()}, dev, bench, pool, timer, options);
  for (const char* name : {"sgemm_nt_32x32x8_w16x16_t2x4_s2_v4_p4_k1_r8",
                           "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8"}) {
    const auto compiled = refused.compile(config(name));
    ASSERT_TRUE(compiled->ok) << name << ": " << compiled->log;
    EXPECT_EQ(compiled->origin, CompileOrigin::compiled) << name;
  }
  EXPECT_EQ(failures.size(), 1u);
  EXPECT_EQ(db.binary_keys().size(), 1u);
}

}  // namespace
}  // namespace gemmtune::tuner::test
