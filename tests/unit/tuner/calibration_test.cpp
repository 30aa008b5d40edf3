// Calibration: configs that ran fast on the nearest tuned problems of the same layout and
// alignment are raised in a new problem's ranking; other layouts and the problem itself are not
// consulted.
#include <gtest/gtest.h>

#include "gemmtune/tuner/calibration.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

GemmConfig config(int bm, int bn, int split_k = 1) {
  GemmConfig c;
  c.bm = bm, c.bn = bn, c.split_k = split_k;
  c.wm = bm / 2, c.wn = bn / 4;
  return c;
}

db::ProblemKey key(long long m, long long n, long long k, char op_b = 'n') {
  db::ProblemKey p;
  p.m = m, p.n = n, p.k = k, p.op_b = op_b;
  return p;
}

const Problem kProblem = Problem::packed(Op::N, Op::N, 2048, 2048, 2048);

}  // namespace

TEST(Calibration, NeighboursFastConfigsAreRaised) {
  const std::vector<GemmConfig> candidates{config(128, 128), config(64, 64), config(128, 64)};
  const std::vector<TunedNeighbour> tuned{
      {key(2048, 2048, 4096),
       {{config_name(config(64, 64)), 1.0}, {config_name(config(128, 64)), 2.0}}}};
  const std::vector<double> f = calibration_factors(candidates, kProblem, tuned);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], 1.0);   // never measured there
  EXPECT_LT(f[1], f[2]);  // the neighbour's best gets the most support
  EXPECT_LT(f[2], 1.0);
  EXPECT_GE(f[1], 1 - CalibrationOptions{}.max_boost);
}

TEST(Calibration, OtherLayoutsAndTheProblemItselfDoNotCount) {
  const std::vector<GemmConfig> candidates{config(64, 64)};
  const std::string name = config_name(config(64, 64));
  const std::vector<TunedNeighbour> tuned{{key(2048, 2048, 4096, 't'), {{name, 1.0}}},
                                          {key(2048, 2048, 2048), {{name, 1.0}}}};
  EXPECT_EQ(calibration_factors(candidates, kProblem, tuned), std::vector<double>{1.0});
}

TEST(Calibration, AnotherSplitOfTheSameTileGetsHalfTheSupport) {
  const std::vector<GemmConfig> candidates{config(64, 64, 1), config(64, 64, 8)};
  const std::vector<TunedNeighbour> tuned{
      {key(2048, 2048, 4096), {{config_name(config(64, 64, 1)), 1.0}}}};
  const std::vector<double> f = calibration_factors(candidates, kProblem, tuned);
  EXPECT_NEAR(1 - f[1], (1 - f[0]) / 2, 1e-12);
}

TEST(Calibration, NearerNeighboursCountMore) {
  const std::vector<GemmConfig> candidates{config(64, 64), config(128, 64)};
  const std::vector<TunedNeighbour> tuned{
      {key(2048, 2048, 4096), {{config_name(config(64, 64)), 1.0}}},
      {key(64, 64, 65536), {{config_name(config(128, 64)), 1.0}}}};
  const std::vector<double> f = calibration_factors(candidates, kProblem, tuned);
  EXPECT_LT(f[0], f[1]);
}

TEST(Calibration, RankingPutsASupportedConfigAheadOfItsTwin) {
  // Two configs the model cannot tell apart (raster does not enter it): the one that won on a
  // neighbour ranks first.
  GemmConfig a = config(128, 128), b = a;
  b.raster = 1;
  const std::vector<TunedNeighbour> tuned{{key(2048, 2048, 4096), {{config_name(b), 1.0}}}};
  GpuCeilings gpu;
  gpu.limits = DeviceLimits::for_arch("sm_90");
  const ModelRanking r = rank_candidates({a, b}, kProblem, gpu, tuned);
  EXPECT_EQ(r.order, (std::vector<std::size_t>{1, 0}));
  EXPECT_EQ(r.rank_of(0), 1u);
  EXPECT_EQ(rank_candidates({a, b}, kProblem, gpu).order, (std::vector<std::size_t>{0, 1}));
}

TEST(Calibration, MembersOfAFamilyDifferOnlyWhereTheModelIsBlind) {
  // The warp arrangement, the register budget, staged C and narrowed-or-copied A and B share a
  // family (one is measured first, the others only for the leading families); another tile
  // does not.
  const GemmConfig a = config(128, 128);
  GemmConfig warps = a, staged = a, budget = a, narrowed = a, copied = a;
  warps.wm = a.wm / 2, warps.wn = a.wn * 2;
  staged.stage_c = true;
  budget.occupancy = 2;
  narrowed.align_a = narrowed.align_b = 1;
  copied.repack = true;
  GpuCeilings gpu;
  gpu.limits = DeviceLimits::for_arch("sm_90");
  const ModelRanking r =
      rank_candidates({a, warps, staged, budget, config(64, 128), narrowed, copied}, kProblem, gpu);
  ASSERT_EQ(r.family.size(), 7u);
  EXPECT_EQ(r.family[1], r.family[0]);
  EXPECT_EQ(r.family[2], r.family[0]);
  EXPECT_EQ(r.family[3], r.family[0]);
  EXPECT_NE(r.family[4], r.family[0]);
  EXPECT_EQ(r.family[5], r.family[0]);
  EXPECT_EQ(r.family[6], r.family[0]);
}
