// Sizes near INT32_MAX and huge batches: every check and estimate computes them without signed
// overflow (UBSan) and reaches the answer the true numbers give.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <string>

#include "gemmtune/choice.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gemmtune/sgemm/tuning/candidates.hpp"
#include "support/cli.hpp"

namespace gemmtune::test {
namespace {

TEST(HugeSizes, BatchTimesSplitKBeyondTheGridIsRefused) {
  GemmConfig c;
  c.split_k = 4, c.vec = 1;
  Problem p = Problem::packed(Op::N, Op::N, 64, 64, 4096, 1 << 30);  // batch x split_k = 2^32
  const auto why = c.can_implement(p);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("65535"), std::string::npos) << *why;
}

TEST(HugeSizes, SplitsOfTheLargestKAllGetWork) {
  GemmConfig c;
  c.split_k = 16, c.vec = 1;
  Problem p = Problem::packed(Op::N, Op::N, 64, 64, INT_MAX);
  EXPECT_FALSE(c.can_implement(p).has_value()) << *c.can_implement(p);
}

TEST(HugeSizes, BatchesOfCThatOverlapThroughAHugeLdcAreRefused) {
  Problem p = Problem::packed(Op::N, Op::N, 8, 16, 16, 2);
  p.a = p.b = p.c = reinterpret_cast<float*>(std::uintptr_t(0x1000));
  p.ldc = LLONG_MAX / 4;  // (M - 1) * ldc is beyond 64 bits
  p.stride_c = 64;
  try {
    check_arguments(p);
    ADD_FAILURE() << "accepted batches of C that overlap";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("stride_c = 64"), std::string::npos) << e.what();
  }
}

TEST(HugeSizes, SplitKIsNotUsefulWhereTilesAlreadyFillTheGpu) {
  Problem p = Problem::packed(Op::N, Op::N, INT_MAX, 64, 1 << 20);
  EXPECT_FALSE(tuner::split_k_useful(p, 64, 64, 8, 2, 132, 256));
  p = Problem::packed(Op::N, Op::N, INT_MAX, INT_MAX, 64, 1 << 16);
  EXPECT_FALSE(tuner::split_k_useful(p, 8, 8, 8, 2, 132, 64));
  GemmConfig c;
  EXPECT_TRUE(tuner::tile_suits(c, p, 132));
}

TEST(HugeSizes, PredictedEfficiencyOfAHugeBatchIsAFraction) {
  GemmConfig c;
  const double e = predicted_efficiency(c, INT_MAX, INT_MAX, 1 << 20, 132);
  EXPECT_GT(e, 0.9);
  EXPECT_LE(e, 1.0);
}

TEST(HugeSizes, ExplainTheLargestK) {
  if (cli_path().empty()) GTEST_SKIP() << "the command line is not built";
  CliRun r = run_cli(
      {"explain", "--shape", "1x1x2147483647", "--arch", "sm_90", "--db", "/nonexistent/tuning.db"},
      {.merge_stderr = true});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("1x1x2147483647"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gemmtune::test
