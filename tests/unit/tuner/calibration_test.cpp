// Calibration: configs that ran fast on the nearest tuned problems of the same layout and
// alignment are raised in a new problem's ranking; other layouts and the problem itself are not
// consulted.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "gemmtune/sgemm/tuning/calibration.hpp"
#include "gemmtune/sgemm/tuning/candidates.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"

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

GpuCeilings sm90() {
  GpuCeilings gpu;
  gpu.limits = DeviceLimits::for_arch("sm_90");
  return gpu;
}

// The candidates a sweep of `p` on a 132-SM sm_90 GPU ranks: the reduced space's.
std::vector<GemmConfig> sweep_candidates(const Problem& p) {
  return candidate_configs(valid_space(sm90().limits, p.op_a, p.op_b,
                                       [](const GemmConfig& c) { return in_reduced_space(c); }),
                           p, 132, SpaceKind::reduced);
}

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
  const GpuCeilings gpu = sm90();
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
  const GpuCeilings gpu = sm90();
  const ModelRanking r =
      rank_candidates({a, warps, staged, budget, config(64, 128), narrowed, copied}, kProblem, gpu);
  ASSERT_EQ(r.family.size(), 7u);
  EXPECT_EQ(r.family[1], r.family[0]);
  EXPECT_EQ(r.family[2], r.family[0]);
  EXPECT_EQ(r.family[3], r.family[0]);
  EXPECT_NE(r.family[4], r.family[0]);
  EXPECT_EQ(r.family[5], r.family[0]);
  EXPECT_EQ(r.family[6], r.family[0]);
  // Variant groups are narrower: only the ways of reading A and B and writing C.
  ASSERT_EQ(r.variant.size(), 7u);
  for (std::size_t i : {2u, 5u, 6u}) EXPECT_EQ(r.variant[i], r.variant[0]) << i;
  for (std::size_t i : {1u, 3u, 4u}) EXPECT_NE(r.variant[i], r.variant[0]) << i;
}

TEST(Calibration, ASplitReductionsClusterFormIsAFamilyOfItsOwn) {
  // Its atomic, prescaled and ordered forms share a family (the search times one of them
  // first); the cluster form is timed as a family head too, and stays in the atomic form's
  // variant group.
  const Problem dot = Problem::packed(Op::N, Op::T, 1, 1, 100000);
  auto atomic = parse_config_name("sgemm_nt_1x1x8_w1x1_t1x1_s2_v4_p4_k16_r8_l32_j16");
  ASSERT_TRUE(atomic && atomic->reduces());
  GemmConfig prescaled = *atomic, ordered = *atomic, clustered = *atomic;
  prescaled.prescale_c = true;
  ordered.ordered_splits = true;
  clustered.cluster_splits = true;
  const ModelRanking r = rank_candidates({prescaled, *atomic, ordered, clustered}, dot, sm90());
  ASSERT_EQ(r.family.size(), 4u);
  EXPECT_EQ(r.family[1], r.family[0]);
  EXPECT_EQ(r.family[2], r.family[0]);
  EXPECT_NE(r.family[3], r.family[0]);
  EXPECT_EQ(r.variant[3], r.variant[1]);
}

TEST(Calibration, StreamedBInOneRegisterSetOrTwoIsOneVariantGroup) {
  // The model cannot tell which keeps more loads in flight, so the one not ranked first is timed
  // right after the first round; another split is another group.
  const Problem p = Problem::packed(Op::N, Op::N, 1, 4096, 4096);
  auto two = parse_config_name("sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k32_r8");
  ASSERT_TRUE(two && two->streams_b());
  GemmConfig one = *two, other_split = *two;
  one.stages = 1;
  other_split.split_k = 64;
  const GpuCeilings gpu = sm90();
  const ModelRanking r = rank_candidates({*two, one, other_split}, p, gpu);
  ASSERT_EQ(r.variant.size(), 3u);
  EXPECT_EQ(r.variant[1], r.variant[0]);
  EXPECT_NE(r.variant[2], r.variant[0]);
  EXPECT_EQ(r.family[1], r.family[0]);
}

TEST(Calibration, EachKernelPathsBestRankedConfigLeads) {
  // A reduction the model predicts slower than every tile config is still measured early: the
  // best-ranked config of each kernel path comes first, then the rest fastest first.
  const Problem p = Problem::packed(Op::N, Op::T, 3, 50000, 512);
  GemmConfig lanes;  // a dot product per warp: 32 lanes along K
  lanes.op_b = Op::T, lanes.bm = lanes.bn = lanes.wm = lanes.wn = lanes.tm = lanes.tn = 1,
  lanes.k_lanes = 32;
  std::vector<GemmConfig> candidates;
  for (int bn : {32, 64, 128, 256}) {
    GemmConfig tile = config(4, bn);
    tile.op_b = Op::T, tile.wm = 4, tile.wn = bn, tile.tm = 1, tile.tn = bn / 32;
    candidates.push_back(tile);
  }
  candidates.push_back(lanes);
  const GpuCeilings gpu = sm90();
  const ModelRanking r = rank_candidates(candidates, p, gpu);
  ASSERT_EQ(r.order.size(), candidates.size());
  ASSERT_TRUE(candidates.back().reduces());
  // The model ranks the reduction behind at least two tiles: without path leaders it would come later.
  const auto faster_tiles = std::count_if(r.predicted_ms.begin(), r.predicted_ms.end() - 1,
                                          [&](double ms) { return ms < r.predicted_ms.back(); });
  ASSERT_GE(faster_tiles, 2);
  EXPECT_LE(r.rank_of(candidates.size() - 1), 1u);  // one path's leader, then the other's
  // Within a path, fastest predicted first (up to near-ties, below).
  std::vector<double> tiles;
  for (std::size_t i : r.order)
    if (!candidates[i].reduces()) tiles.push_back(r.predicted_ms[i]);
  for (std::size_t j = 1; j < tiles.size(); ++j) EXPECT_LE(tiles[j - 1], tiles[j] * 1.05) << j;
}

// Where the model predicts many configs within 5% of each other (an odd square: 1531^3), the
// first ones measured cover block tile shapes and splits instead of repeating one; a config
// predicted clearly slower never jumps ahead of a clearly faster one.
TEST(Calibration, NearTiesAreSpreadOverTileShapes) {
  const Problem p = Problem::packed(Op::N, Op::N, 1531, 1531, 1531);
  const std::vector<GemmConfig> candidates = sweep_candidates(p);
  const ModelRanking r = rank_candidates(candidates, p, sm90());
  ASSERT_GT(r.order.size(), 1000u);
  // The first twelve families in the order (the search times each family's first member first)
  // are twelve different families, of at least eight tile shapes and splits.
  std::set<std::size_t> families;
  std::set<std::tuple<int, int, int, bool>> shapes;
  for (std::size_t j = 0; j < r.order.size() && families.size() < 12; ++j) {
    const GemmConfig& c = candidates[r.order[j]];
    if (families.insert(r.family[r.order[j]]).second)
      shapes.insert({c.bm, c.bn, c.split_k, c.split_tail});
  }
  EXPECT_GE(shapes.size(), 8u);
  std::size_t first_twelve_end = 0;  // where the twelfth family starts
  for (std::set<std::size_t> seen; seen.size() < 12; ++first_twelve_end)
    seen.insert(r.family[r.order[first_twelve_end]]);
  EXPECT_LE(first_twelve_end, 12u) << "the families' other members come after the run's families";
  double slowest_so_far = 0;
  for (std::size_t i : r.order) {
    EXPECT_GE(r.predicted_ms[i] * 1.05, slowest_so_far * (1 - 1e-9)) << config_name(candidates[i]);
    slowest_so_far = std::max(slowest_so_far, r.predicted_ms[i]);
  }
}

// Reductions predicted alike are taken one lane arrangement at a time (one output per lane or
// several, warps along K or not), which the model ranks within a few percent of each other and
// which measure 5-10% apart either way: 4095x1x4095 nt (both operands read in 4-byte loads) once
// timed only thread tiles of four and eight rows in a 5 s search; a 2x1 block of one output per
// lane was the fastest (H200).
TEST(Calibration, NearTiedReductionsAreSpreadOverLaneArrangements) {
  const Problem p = Problem::packed(Op::N, Op::T, 4095, 1, 4095);
  const std::vector<GemmConfig> candidates = sweep_candidates(p);
  const ModelRanking r = rank_candidates(candidates, p, sm90());
  // The first eight reductions in the order hold all four arrangements.
  std::set<std::pair<bool, bool>> arrangements;
  int reductions = 0;
  for (std::size_t i : r.order) {
    const GemmConfig& c = candidates[i];
    if (!c.reduces()) continue;
    arrangements.insert({c.tm * c.tn > 1, c.k_warps > 1});
    if (++reductions == 8) break;
  }
  EXPECT_EQ(arrangements.size(), 4u);
}
