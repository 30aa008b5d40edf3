// register_floor(): the registers a config needs at least, which validate() holds every config
// to and the tuner's cost model estimates occupancy from (with its own terms).
#include <gtest/gtest.h>

#include <string>

#include "gemmtune/register_floor.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"

using namespace gemmtune;

namespace {
GemmConfig named(const std::string& name) {
  auto c = parse_config_name(name);
  EXPECT_TRUE(c) << name;
  return c.value_or(GemmConfig{});
}
}  // namespace

// Each term counted by hand: accumulators tm x tn (twice for math >= 3), a fragment of A (tm)
// and of B (tn), the staged prefetch, 16 for addressing.
TEST(RegisterFloor, CountsAccumulatorsFragmentsStagingAndAddressing) {
  // 256 threads; two stages stage the next (128 + 128) x 8 tile floats in registers: 8 each.
  const GemmConfig two_stage = named("sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8");
  EXPECT_EQ(two_stage.threads(), 256);
  EXPECT_EQ(register_floor(two_stage), 64 + 8 + 8 + 8 + 16);
  // Three stages copy with cp.async, through no registers.
  GemmConfig three_stage = two_stage;
  three_stage.stages = 3;
  EXPECT_EQ(register_floor(three_stage), 64 + 8 + 8 + 16);
  // 3xTF32 (math 3) keeps a second set of accumulators.
  GemmConfig split = three_stage;
  split.bk = 16, split.math = 3;
  EXPECT_EQ(register_floor(split), 2 * 64 + 8 + 8 + 16);
  // A reduction's lanes hold bk values of each row and column, two steps of them by default.
  const GemmConfig reduction = named("sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8");
  ASSERT_TRUE(reduction.reduces());
  EXPECT_EQ(register_floor(reduction), 1 + 1 + 1 + 2 * 8 * (1 + 1) + 16);
  RegisterFloorTerms one_set;
  one_set.reduction_sets = 1;
  EXPECT_EQ(register_floor(reduction, one_set), 1 + 1 + 1 + 8 * (1 + 1) + 16);
}

TEST(RegisterFloor, WarpgroupStagingAndAddressingAreTerms) {
  GemmConfig wg = named("sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8");
  wg.wgmma = true;  // not validated here: only the count is
  const int plain = register_floor(wg);
  RegisterFloorTerms staged;
  staged.warpgroup_staging = true;
  EXPECT_EQ(register_floor(wg, staged), plain + (128 + 128) * 8 / wg.threads());
  RegisterFloorTerms roomy;
  roomy.addressing = 32;
  EXPECT_EQ(register_floor(wg, roomy), plain + 16);
}

// validate() holds every config to the floor: a valid one is within its budget, and one refused
// for its registers (raised occupancy shrinks the budget) is refused with the floor's count.
TEST(RegisterFloor, IsWhatValidateHoldsConfigsTo) {
  const DeviceLimits sm90 = DeviceLimits::for_arch("sm_90");
  int refused = 0;
  for (const GemmConfig& sampled : tuner::coverage_sample(sm90, Op::N, Op::N)) {
    for (int occupancy = 1; occupancy <= 4; ++occupancy) {
      GemmConfig c = sampled;
      c.occupancy = occupancy;
      const auto why = c.validate(sm90);
      if (!why) {
        EXPECT_LE(register_floor(c), c.register_budget(sm90)) << config_name(c);
      } else if (why->rfind("registers:", 0) != std::string::npos) {
        EXPECT_GT(register_floor(c), c.register_budget(sm90)) << config_name(c);
        EXPECT_NE(why->find("about " + std::to_string(register_floor(c)) + " per thread"),
                  std::string::npos)
            << *why;
        ++refused;
      }
    }
  }
  EXPECT_GT(refused, 0);
}
