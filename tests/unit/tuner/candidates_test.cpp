// The candidate set of a problem: vec equal to the alignment, split_k only where it helps,
// the reduced space small and taken the same way before a sweep knows its problems; and the
// config/problem conversions to database rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/sgemm/tuning/calibration.hpp"
#include "gemmtune/sgemm/tuning/candidates.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gemmtune/tuner/sweep.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {
const std::vector<GemmConfig>& valid_nn() {
  static const auto v = tuner::valid_space(DeviceLimits::for_arch("sm_90"), Op::N, Op::N);
  return v;
}

// The reduced part of a layout's valid space, as a sweep takes it (SearchSpaces; the last test
// checks that this gives the same candidates): for the tests of reduced candidate sets, in a
// fraction of the time and memory of the whole space.
const std::vector<GemmConfig>& reduced_space(Op a, Op b) {
  static SearchSpaces spaces(SweepOptions{}, DeviceLimits::for_arch("sm_90"));
  return spaces.of(a, b);
}
}  // namespace

TEST(Candidates, FittedToTheDataAndAllCanImplement) {
  for (auto [m, n, k, align] : std::vector<std::tuple<int, int, int, int>>{
           {1024, 1024, 1024, 4}, {127, 257, 1023, 1}, {128, 130, 64, 2}}) {
    Problem p = Problem::packed(Op::N, Op::N, m, n, k);
    ASSERT_EQ(p.alignment(), align);
    auto cs = candidate_configs(valid_nn(), p, 132, SpaceKind::full);
    ASSERT_FALSE(cs.empty());
    std::set<int> vecs;
    for (const auto& c : cs) {
      vecs.insert(c.vec);
      EXPECT_EQ(c, c.fitted_to(p)) << config_name(c);
      EXPECT_FALSE(c.can_implement(p)) << config_name(c);
      if (c.vec < 4) {
        EXPECT_FALSE(c.tiles_hold_vectors_of(4))
            << config_name(c);  // else vec 4 fitted is the same kernel
      }
    }
    EXPECT_EQ(vecs, (align == 4 ? std::set<int>{4} : std::set<int>{align, 4}));
  }
}

TEST(Candidates, StreamingConfigsKeepWideVectorsWhenOnlyAIsMisaligned) {
  // Rows of A of 4095 floats; A transposed with M = 1 (lda = 1).
  for (const auto& [valid, p] :
       {std::pair{&reduced_space(Op::N, Op::N), Problem::packed(Op::N, Op::N, 1, 4096, 4095)},
        std::pair{&reduced_space(Op::T, Op::N), Problem::packed(Op::T, Op::N, 1, 4096, 4096)}}) {
    SCOPED_TRACE(p.layout());
    ASSERT_EQ(p.alignment(), 1);
    bool streaming_seen = false;
    for (const auto& c : candidate_configs(*valid, p, 132, SpaceKind::reduced)) {
      if (!c.reads_a_in_vectors())
        EXPECT_EQ(c.vec, 4) << config_name(c);  // reads A one float at a time
      else if (c.repack)
        EXPECT_TRUE(c.vec == 4 && c.width_a() == 4 && c.width_b() == 4)
            << config_name(c);  // A copied aligned
      else
        EXPECT_TRUE((c.vec == 1 && !c.tiles_hold_vectors_of(4)) ||
                    (c.vec == 4 && c.width_a() == 1 && c.width_b() == 4))
            << config_name(c);
      EXPECT_FALSE(c.can_implement(p)) << config_name(c);
      streaming_seen = streaming_seen || c.streams_b();
    }
    EXPECT_TRUE(streaming_seen);
  }
}

TEST(Candidates, StreamedBComesWithOneRegisterSetAndWithTwo) {
  const Problem p = Problem::packed(Op::N, Op::N, 1, 4096, 4096);
  std::set<int> stages;
  for (const auto& c : candidate_configs(reduced_space(Op::N, Op::N), p, 132, SpaceKind::reduced))
    if (c.streams_b()) stages.insert(c.stages);
  EXPECT_EQ(stages, (std::set<int>{1, 2}));
}

TEST(Candidates, SplitKOnlyWhenTilesCannotFillTheGpu) {
  // (Splitting only the last wave's tiles is another matter: split_tail.)
  Problem big = Problem::packed(Op::N, Op::N, 4096, 4096, 4096);
  for (const auto& c : candidate_configs(reduced_space(Op::N, Op::N), big, 132, SpaceKind::reduced))
    EXPECT_TRUE(c.split_k == 1 || c.split_tail) << config_name(c);
  Problem deep = Problem::packed(Op::N, Op::N, 64, 64, 65536);
  std::set<int> splits;
  for (const auto& c :
       candidate_configs(reduced_space(Op::N, Op::N), deep, 132, SpaceKind::reduced))
    splits.insert(c.split_k);
  EXPECT_EQ(splits, (std::set<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}));
  EXPECT_TRUE(split_k_useful(deep, 64, 64, 8, 16, 132, 256));
  EXPECT_TRUE(split_k_useful(deep, 64, 64, 8, 128, 132, 256));  // 128 blocks: one wave
  EXPECT_FALSE(
      split_k_useful(deep, 8, 8, 8, 128, 132, 256));         // 8192 blocks of 256 threads: 8 waves
  EXPECT_TRUE(split_k_useful(deep, 8, 8, 8, 128, 132, 64));  // of 64 threads: two waves
  Problem shallow = Problem::packed(Op::N, Op::N, 64, 64, 64);
  EXPECT_FALSE(split_k_useful(shallow, 64, 64, 8, 4, 132, 256));  // 16 K values per split: too few
  EXPECT_TRUE(split_k_useful(shallow, 64, 64, 8, 1, 132, 256));
}

TEST(Candidates, DotProductReductionsSplitDownToOneStepEach) {
  // 1x1x100000: a reduction of 32 lanes x bk 8 steps 256 values of K; 256 splits leave one step
  // (390 values) each, which a tile kernel's four-slice rule would forbid.
  Problem dot = Problem::packed(Op::N, Op::N, 1, 1, 100000);
  EXPECT_TRUE(split_k_useful(dot, 1, 1, 256, 256, 132, 32, true));
  EXPECT_FALSE(split_k_useful(dot, 1, 1, 256, 256, 132, 32, false));
  EXPECT_FALSE(split_k_useful(dot, 1, 1, 256, 512, 132, 32, true));  // 195 values: under one step
  std::set<int> splits;
  for (const auto& c : candidate_configs(reduced_space(Op::N, Op::N), dot, 132, SpaceKind::reduced))
    if (c.k_lanes == 32 && c.k_warps == 1 && c.bk == 8) splits.insert(c.split_k);
  EXPECT_TRUE(splits.count(256)) << "the one-step split of 256 is a candidate";
}

// A dot product's one output also in 512-thread blocks (16 warps of 32 lanes along K, the
// register budget of two blocks an SM), split over one cluster's 16 blocks (1x1x100000 on an
// H200: 5.8 us, where blocks of 256 threads ran 6.3 us or more, and the same block budgeted for
// one an SM 6.6), in at most one cluster's 16 splits; every other reduction keeps blocks of at
// most 256 threads.
TEST(Candidates, DotProductsAlsoTakeBlocksOf512ThreadsAlongK) {
  for (const auto& c : reduced_space(Op::N, Op::T)) {
    if (!c.reduces() || c.threads() <= 256) continue;
    EXPECT_TRUE(c.threads() == 512 && c.bm == 1 && c.bn == 1 && c.k_lanes == 32 &&
                c.k_warps == 16 && c.occupancy == 2 && c.split_k <= 16)
        << config_name(c);
  }
  const Problem dot = Problem::packed(Op::N, Op::T, 1, 1, 100000);
  const auto cs = candidate_configs(reduced_space(Op::N, Op::T), dot, 132, SpaceKind::reduced);
  EXPECT_TRUE(std::any_of(cs.begin(), cs.end(), [](const GemmConfig& c) {
    return c.threads() == 512 && c.k_warps == 16 && c.occupancy == 2 && c.split_k == 16 &&
           c.cluster_splits;
  })) << "the 16-block cluster of 512-thread blocks is a candidate";
}

TEST(Candidates, ThinTilesOnlyForThinProblems) {
  auto thinnest = [](const Problem& p) {
    int rows = 1 << 30, cols = 1 << 30;
    for (const auto& c : candidate_configs(reduced_space(Op::N, Op::N), p, 132, SpaceKind::reduced))
      rows = std::min(rows, c.bm), cols = std::min(cols, c.bn);
    return std::pair{rows, cols};
  };
  // A matrix-vector product gets one-row tiles, a vector-matrix one one-column tiles.
  EXPECT_EQ(thinnest(Problem::packed(Op::N, Op::N, 1, 4096, 4096)).first, 1);
  EXPECT_EQ(thinnest(Problem::packed(Op::N, Op::N, 4096, 1, 4096)).second, 1);
  // Large problems get neither thin nor elongated tiles.
  for (const auto& c : candidate_configs(reduced_space(Op::N, Op::N),
                                         Problem::packed(Op::N, Op::N, 4096, 4096, 4096), 132,
                                         SpaceKind::reduced)) {
    EXPECT_GE(std::min(c.bm, c.bn), 64) << config_name(c);
    EXPECT_LE(std::max(c.bm, c.bn), 2 * std::min(c.bm, c.bn)) << config_name(c);
  }
}

TEST(Candidates, SmallBatchedMatricesGetTilesTheirSize) {
  // Many small matrices fill the GPU with blocks whatever the tile; a tile larger than a matrix
  // only idles lanes (32x32x32 b4096 tt ran at 0.68x cuBLAS on 64x64 tiles on an H200).
  for (auto [side, batch] : {std::pair{32, 4096}, std::pair{16, 10000}, std::pair{24, 2048}}) {
    for (Op a : {Op::N, Op::T}) {
      Problem p = Problem::packed(a, Op::T, side, side, side, batch);
      const auto cands = candidate_configs(reduced_space(a, Op::T), p, 132, SpaceKind::reduced);
      ASSERT_FALSE(cands.empty()) << side << " b" << batch;
      bool fits = false;
      for (const auto& c : cands) {
        EXPECT_LE(c.bm, side <= 16 ? 16 : 32) << config_name(c);
        EXPECT_LE(c.bn, side <= 16 ? 16 : 32) << config_name(c);
        fits = fits || (c.bm >= side && c.bn >= side);
      }
      EXPECT_TRUE(fits) << "one block covers a whole matrix";
    }
  }
  // Large sides keep the 64x64-and-up rule: smaller tiles only where blocks run short.
  for (const auto& c : candidate_configs(reduced_space(Op::N, Op::N),
                                         Problem::packed(Op::N, Op::N, 256, 256, 256, 512), 132,
                                         SpaceKind::reduced))
    EXPECT_GE(c.bm * c.bn, 64 * 64) << config_name(c);
}

TEST(Candidates, ThreeWarpTilesWherePowersOfTwoOverhangNearlyHalf) {
  auto sides = [](const Problem& p) {
    std::set<int> rows, cols;
    for (const auto& c :
         candidate_configs(reduced_space(p.op_a, p.op_b), p, 132, SpaceKind::reduced))
      rows.insert(c.bm), cols.insert(c.bn);
    return std::pair{rows, cols};
  };
  // 33 rows: one 48-row tile idles 15 of them, a 64-row one 31.
  EXPECT_TRUE(sides(Problem::packed(Op::N, Op::N, 33, 4097, 4095)).first.count(48));
  // An attention-like product with 96 columns (a head dimension): one 96-column tile.
  EXPECT_TRUE(sides(Problem::packed(Op::N, Op::T, 512, 96, 512, 64)).second.count(96));
  // 64 rows fit a power-of-two tile exactly; long sides are covered as well by powers of two.
  for (const Problem& p : {Problem::packed(Op::N, Op::N, 64, 4096, 4096),
                           Problem::packed(Op::N, Op::N, 2999, 3001, 2003),
                           Problem::packed(Op::T, Op::N, 4096, 4096, 4096)}) {
    const auto [rows, cols] = sides(p);
    for (int side : {48, 96}) {
      EXPECT_FALSE(rows.count(side)) << p.m << "x" << p.n << "x" << p.k << " rows " << side;
      EXPECT_FALSE(cols.count(side)) << p.m << "x" << p.n << "x" << p.k << " columns " << side;
    }
  }
}

TEST(Candidates, ReducedSpaceIsSmallSubsetOfFull) {
  Problem p = Problem::packed(Op::N, Op::N, 1024, 1024, 1024);
  auto full = candidate_configs(valid_nn(), p, 132, SpaceKind::full);
  auto reduced = candidate_configs(valid_nn(), p, 132, SpaceKind::reduced);
  std::printf("1024^3 nn on 132 SMs: %zu candidates in the full space, %zu in the reduced one\n",
              full.size(), reduced.size());
  EXPECT_GT(reduced.size(), 20u);
  // Early-barrier twins (timed only as variants of their base) aside, as before them.
  const auto twins = std::count_if(reduced.begin(), reduced.end(),
                                   [](const GemmConfig& c) { return c.early_barrier; });
  EXPECT_LT(reduced.size() - std::size_t(twins), 2500u);
  EXPECT_LT(reduced.size(), 4000u);
  EXPECT_GT(full.size(), 4 * reduced.size());
  for (const auto& c : reduced) EXPECT_TRUE(in_reduced_space(c));
  EXPECT_EQ(parse_space("full"), SpaceKind::full);
  EXPECT_THROW(parse_space("tiny"), Error);
}

TEST(DbConvert, ConfigRoundTripsAndProblemKey) {
  GemmConfig c;
  c.op_a = Op::T, c.bm = 64, c.split_k = 4, c.vec = 2;
  db::KernelConfig row = to_db(c);
  EXPECT_EQ(row.name, config_name(c));
  EXPECT_EQ(row.op_a, 't');
  EXPECT_EQ(row.knobs.at("split_k"), 4);
  ASSERT_TRUE(from_db(row));
  EXPECT_EQ(*from_db(row), c);
  row.family = "dgemm";
  EXPECT_FALSE(from_db(row));

  db::ProblemKey k = to_db(Problem::packed(Op::N, Op::T, 127, 257, 1023, 2));
  EXPECT_EQ(k.op_b, 't');
  EXPECT_EQ(k.m, 127);
  EXPECT_EQ(k.batch, 2);
  EXPECT_EQ(k.alignment, 1);
  DeviceInfo d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  EXPECT_EQ(to_db(d).sm_count, 132);
  EXPECT_EQ(to_db(d).cc_major, 9);
}

// The reduction path is proposed for vector-like outputs (dot products, every matrix-vector
// form), never for a large square.
TEST(Candidates, ReductionsWhereTheOutputIsSmall) {
  for (auto [a, b] : {std::pair{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}}) {
    const auto& valid = reduced_space(a, b);
    for (auto [m, n, k] : std::vector<std::tuple<int, int, int>>{{1, 1, 100000},
                                                                 {1, 1, 1000},
                                                                 {4096, 1, 4096},
                                                                 {1, 4096, 4096},
                                                                 {4095, 1, 4095},
                                                                 {5, 3, 262144}}) {
      Problem p = Problem::packed(a, b, m, n, k);
      SCOPED_TRACE(p.label());
      int reductions = 0, total = 0;
      for (const auto& c : candidate_configs(valid, p, 132, SpaceKind::reduced)) {
        ++total;
        if (!c.reduces()) continue;
        ++reductions;
        EXPECT_LT(c.bm, 2 * m) << config_name(
            c);  // no more lanes past M or N than powers of two need
        EXPECT_LT(c.bn, 2 * n) << config_name(c);
        EXPECT_FALSE(c.can_implement(p)) << config_name(c);
      }
      EXPECT_GT(reductions, 0);
      std::cout << p.label() << ": " << reductions << " reductions of " << total << " candidates\n";
    }
    for (auto [m, n, k] :
         std::vector<std::tuple<int, int, int>>{{1, 1, 1}, {8, 8, 8}, {2, 3, 1}, {7, 1, 5}}) {
      Problem tiny = Problem::packed(a, b, m, n, k, 3);
      EXPECT_FALSE(candidate_configs(valid, tiny, 132, SpaceKind::reduced).empty()) << tiny.label();
    }
    Problem square = Problem::packed(a, b, 4096, 4096, 4096);
    for (const auto& c : candidate_configs(valid, square, 132, SpaceKind::reduced))
      EXPECT_FALSE(c.reduces()) << config_name(c);
  }
}

// Where an odd ldc narrows C (the language-model head with an odd vocabulary), each tile
// candidate that `can` take the C variant `flag` comes with it as well, and no reduction has it;
// where C is aligned, no candidate has it.
template <class Can>
void expect_c_variants_only_where_c_is_narrowed(bool GemmConfig::*flag, Can can, const char* what) {
  const auto& valid_nt = reduced_space(Op::N, Op::T);
  const auto count = [&](const std::vector<GemmConfig>& cs) {
    return std::count_if(cs.begin(), cs.end(), [&](const GemmConfig& c) { return c.*flag; });
  };
  EXPECT_EQ(count(candidate_configs(valid_nt, Problem::packed(Op::N, Op::T, 1024, 50256, 768), 132,
                                    SpaceKind::reduced)),
            0);
  const auto cs = candidate_configs(valid_nt, Problem::packed(Op::N, Op::T, 1024, 50257, 768), 132,
                                    SpaceKind::reduced);
  std::set<std::string> names;
  for (const auto& c : cs) names.insert(config_name(c));
  EXPECT_EQ(names.size(), cs.size());
  for (const auto& c : cs) {
    if (c.*flag) {
      EXPECT_FALSE(c.reduces() || (c.stage_c && c.window_c)) << config_name(c);
    }
    if (c.stage_c || c.window_c || !can(c)) continue;
    GemmConfig variant = c;
    variant.*flag = true;
    EXPECT_TRUE(names.count(config_name(variant)))
        << config_name(c) << " has no " << what << " variant";
  }
  EXPECT_GT(count(cs), 50);
}

TEST(Candidates, StagedCVariantsOnlyWhereCIsNarrowed) {
  expect_c_variants_only_where_c_is_narrowed(
      &GemmConfig::stage_c, [](const GemmConfig& c) { return !c.reduces() && !c.streams_b(); },
      "staged");
}

TEST(Candidates, WindowedCVariantsOnlyWhereCIsNarrowed) {
  expect_c_variants_only_where_c_is_narrowed(
      &GemmConfig::window_c, [](const GemmConfig& c) { return c.can_window_c(); }, "windowed");
}

// A reduction reading a matrix-vector product's matrix in narrowed runs comes with its plain-load
// twin (plain_narrow_runs), with the split protocol in one launch (not the `_z` and `_d` ways of
// adding splits: the GPU tests have not run those together); nothing else does: not where the
// matrix is aligned, not a dot.
TEST(Candidates, PlainNarrowRunTwinsOnlyWhereTheMatrixIsNarrowed) {
  const auto valid_nt = reduced_space(Op::N, Op::T);
  const auto plain_twins = [&](const Problem& p) {
    const auto cs = candidate_configs(valid_nt, p, 132, SpaceKind::reduced);
    std::set<std::string> names;
    for (const auto& c : cs) names.insert(config_name(c));
    EXPECT_EQ(names.size(), cs.size()) << p.label();  // no config twice
    int twins = 0;
    for (const auto& c : cs) {
      if (!c.narrows_read_once_runs(p) || c.prescale_c || c.ordered_splits || c.cluster_splits) {
        EXPECT_FALSE(c.plain_narrow_runs) << config_name(c);
        continue;
      }
      GemmConfig other = c;
      other.plain_narrow_runs = !c.plain_narrow_runs;
      EXPECT_TRUE(names.count(config_name(other))) << config_name(c) << " has no twin";
      twins += c.plain_narrow_runs;
    }
    return twins;
  };
  EXPECT_GT(plain_twins(Problem::packed(Op::N, Op::T, 1, 4095, 4095)), 20);
  EXPECT_GT(plain_twins(Problem::packed(Op::N, Op::T, 4095, 1, 4095)), 20);
  EXPECT_EQ(plain_twins(Problem::packed(Op::N, Op::T, 1, 4096, 4096)), 0);
  EXPECT_EQ(plain_twins(Problem::packed(Op::N, Op::T, 1, 1, 99999)), 0);
}

// Every two-stage FMA tile candidate that may move its barrier (threads x occupancy at most 256)
// comes with its early-barrier twin, in the same variant group and family for the search, and
// kept by its database row; no other candidate has one.
TEST(Candidates, EarlyBarrierTwinsOfTwoStageFmaTiles) {
  const auto& space = reduced_space(Op::N, Op::T);
  for (const Problem& p : {Problem::packed(Op::N, Op::T, 4096, 4096, 4096),
                           Problem::packed(Op::N, Op::T, 999, 1001, 997)}) {
    const auto cs = candidate_configs(space, p, 132, SpaceKind::reduced);
    std::set<std::string> names;
    for (const auto& c : cs) names.insert(config_name(c));
    EXPECT_EQ(names.size(), cs.size()) << p.label();  // no config twice
    const ModelRanking ranking = rank_candidates(cs, p, GpuCeilings{}, {}, CalibrationOptions{});
    int twins = 0, spilling = 0;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      const GemmConfig& c = cs[i];
      if (!c.can_barrier_early()) {
        EXPECT_FALSE(c.early_barrier) << config_name(c);
        spilling += c.stages == 2 && c.math == 0 && !c.streams_b() && !c.reduces();
        continue;
      }
      GemmConfig other = c;
      other.early_barrier = !c.early_barrier;
      const auto twin = std::find(cs.begin(), cs.end(), other);
      ASSERT_NE(twin, cs.end()) << config_name(c) << " has no twin on " << p.label();
      const std::size_t j = std::size_t(twin - cs.begin());
      EXPECT_EQ(ranking.variant[i], ranking.variant[j]) << config_name(c);
      EXPECT_EQ(ranking.family[i], ranking.family[j]) << config_name(c);
      twins += c.early_barrier;
      EXPECT_EQ(from_db(to_db(c)), c)
          << config_name(c) << ": the database row keeps the flag (in its name)";
    }
    EXPECT_GT(twins, 20) << p.label();
    EXPECT_GT(spilling, 0)
        << p.label() << ": no two-stage tile of 512 thread slots, the case validate() refuses";
  }
}

// Each split reduction of up to 16 splits comes with its twin whose splits are one cluster's blocks
// (never a tile kernel's); a sweep on a GPU without clusters drops those.
TEST(Candidates, ClusterTwinsOfSplitReductionsWhereTheGpuHasClusters) {
  const Problem dot = Problem::packed(Op::N, Op::T, 1, 1, 99999);
  const auto cs = candidate_configs(reduced_space(Op::N, Op::T), dot, 132, SpaceKind::reduced);
  std::set<std::string> names;
  for (const auto& c : cs) names.insert(config_name(c));
  int twins = 0;
  for (const auto& c : cs) {
    EXPECT_TRUE(!c.cluster_splits || (c.reduces() && c.split_k >= 2 && c.split_k <= 16))
        << config_name(c);
    if (!c.reduces() || c.split_k < 2 || c.split_k > 16 || c.prescale_c || c.ordered_splits)
      continue;
    GemmConfig other = c;
    other.cluster_splits = !c.cluster_splits;
    EXPECT_TRUE(names.count(config_name(other))) << config_name(c) << " has no twin";
    twins += c.cluster_splits;
  }
  EXPECT_GT(twins, 10);
  SweepOptions o;
  DeviceInfo device;
  device.sm_count = 132;
  for (const char* arch : {"sm_90", "sm_80"}) {
    device.limits = DeviceLimits::for_arch(arch);
    SearchSpaces spaces(o, device.limits);
    const auto swept = sweep_candidates(o, device, spaces.of(Op::N, Op::T), dot);
    const auto clustered = std::count_if(swept.begin(), swept.end(),
                                         [](const GemmConfig& c) { return c.cluster_splits; });
    if (std::string(arch) == "sm_90")
      EXPECT_EQ(clustered, twins);
    else
      EXPECT_EQ(clustered, 0);
    EXPECT_GT(swept.size(), 50u) << arch;
  }
}

// Where A or B would narrow a tile's accesses, each tile candidate comes with its repack variant
// (those operands copied aligned first); never for reductions, nor where only C is misaligned.
TEST(Candidates, RepackVariantsOnlyWhereAOrBIsMisaligned) {
  const DeviceLimits sm90 = DeviceLimits::for_arch("sm_90");
  const auto valid_nt = tuner::valid_space(sm90, Op::N, Op::T);
  const auto repacks = [](const std::vector<GemmConfig>& cs) {
    return std::count_if(cs.begin(), cs.end(), [](const GemmConfig& c) { return c.repack; });
  };
  // Aligned, and only C misaligned (nt: A and B rows of K = 64, C rows of N = 63): none.
  EXPECT_EQ(repacks(candidate_configs(valid_nn(), Problem::packed(Op::N, Op::N, 1024, 1024, 1024),
                                      132, SpaceKind::full)),
            0);
  EXPECT_EQ(repacks(candidate_configs(valid_nt, Problem::packed(Op::N, Op::T, 640, 63, 64), 132,
                                      SpaceKind::full)),
            0);

  for (const auto& [valid, p] :
       {std::pair{&valid_nn(), Problem::packed(Op::N, Op::N, 2999, 3001, 2003)},
        std::pair{&valid_nt, Problem::packed(Op::N, Op::T, 640, 512, 63)},  // A and B rows of 63
        std::pair{&valid_nn(), Problem::packed(Op::N, Op::N, 4095, 1, 4095)}}) {  // reductions too
    SCOPED_TRACE(p.label());
    for (SpaceKind space : {SpaceKind::reduced, SpaceKind::full}) {
      const auto cs = candidate_configs(*valid, p, 132, space);
      std::set<std::string> names;
      for (const auto& c : cs) names.insert(config_name(c));
      EXPECT_EQ(names.size(), cs.size());  // no config twice
      int tiles = 0, packed = 0;
      for (const auto& c : cs) {
        if (c.reduces()) {
          EXPECT_FALSE(c.repack) << config_name(c);
          continue;
        }
        if (!c.repack) {
          ++tiles;
          // Every tile candidate that reads A or B narrowly has its repack variant.
          GemmConfig r = c;
          r.repack = true;
          r = r.fitted_to(p);
          if (r.repack) {
            EXPECT_TRUE(names.count(config_name(r))) << config_name(c);
          }
          continue;
        }
        ++packed;
        EXPECT_EQ(c, c.fitted_to(p)) << config_name(c);
        EXPECT_FALSE(c.can_implement(p)) << config_name(c);
        EXPECT_FALSE(c.validate(sm90)) << config_name(c);
        EXPECT_TRUE(c.packs_a(p) || c.packs_b(p)) << config_name(c);
        GemmConfig plain = c;
        plain.repack = false;
        EXPECT_TRUE(names.count(config_name(plain.fitted_to(p))))
            << config_name(c) << ": its plain variant is missing";
      }
      EXPECT_GT(tiles, 0);
      EXPECT_GT(packed, 0);
    }
  }
}

// Each precision class is a candidate set of its own; the tensor-core ones hold only
// tensor-core configs, and the reduced space keeps a few of them for a large problem.
TEST(Candidates, PrecisionClassesAreSearchedApart) {
  const Problem p = Problem::packed(Op::N, Op::N, 4096, 4096, 4096);
  const auto& space = reduced_space(Op::N, Op::N);
  const auto fma = candidate_configs(space, p, 132, SpaceKind::reduced);
  const auto fp32 = candidate_configs(space, p, 132, SpaceKind::reduced, Precision::fp32);
  const auto tf32 = candidate_configs(space, p, 132, SpaceKind::reduced, Precision::tf32);
  for (const auto& c : fma) EXPECT_EQ(c.math, 0) << config_name(c);
  for (const auto& c : fp32) EXPECT_TRUE(c.math >= 2 && c.math <= 4) << config_name(c);
  for (const auto& c : tf32) EXPECT_EQ(c.math, 1) << config_name(c);
  EXPECT_GT(fp32.size(), 5u);
  EXPECT_LT(fp32.size(), fma.size());
  EXPECT_GT(tf32.size(), 2u);
  for (const auto& c : fp32) EXPECT_GE(c.stages, 3) << config_name(c);
  // On sm_90 (the default limits) both tensor-core classes hold warpgroup configs, and mma.sync ones.
  for (const auto* set : {&fp32, &tf32}) {
    const auto warpgroup =
        std::count_if(set->begin(), set->end(), [](const GemmConfig& c) { return c.wgmma == 1; });
    EXPECT_GT(warpgroup, 0);
    EXPECT_LT(warpgroup, std::ssize(*set));
  }
}

TEST(Candidates, SweepsTakeTheReducedSpaceBeforeKnowingTheProblem) {
  // SearchSpaces filters the reduced space during the walk, before any problem is known: that
  // must give every problem the candidates that filtering the whole valid space would.
  SweepOptions reduced, named;
  // Outside the reduced space (rasterization 1): a sweep naming it still finds it.
  named.only_configs = {"sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r1"};
  DeviceInfo device;
  device.sm_count = 132;
  device.limits = DeviceLimits::for_arch("sm_90");
  SearchSpaces spaces(reduced, device.limits);
  EXPECT_LT(spaces.of(Op::N, Op::N).size(), valid_nn().size() / 4);
  SearchSpaces named_spaces(named, device.limits);
  const Problem square = Problem::packed(Op::N, Op::N, 4096, 4096, 4096);
  ASSERT_EQ(sweep_candidates(named, device, named_spaces.of(Op::N, Op::N), square).size(), 1u);
  // A name as `gemmtune space --list` gives it selects the candidate fitted to odd data.
  named.only_configs = {"sgemm_nt_1x2x32_w1x2_t1x1_s2_v4_p4_k1_r8_l16_j2"};
  const Problem odd = Problem::packed(Op::N, Op::T, 1, 4095, 4095);
  const auto fitted = sweep_candidates(named, device, named_spaces.of(Op::N, Op::T), odd);
  ASSERT_EQ(fitted.size(), 1u);
  EXPECT_EQ(config_name(fitted[0]), "sgemm_nt_1x2x32_w1x2_t1x1_s2_v4_p4_k1_r8_l16_j2_g1x1x1");
  for (Precision precision : {Precision::ieee, Precision::fp32}) {
    reduced.precision = precision;
    for (const Problem& p :
         {Problem::packed(Op::N, Op::N, 2999, 3001, 2003),
          Problem::packed(Op::N, Op::N, 1, 1, 100000),
          Problem::packed(Op::N, Op::N, 33, 4097, 4095), Problem::packed(Op::N, Op::N, 7, 9, 13),
          Problem::packed(Op::N, Op::N, 4096, 4096, 4096),
          Problem::packed(Op::N, Op::N, 64, 64, 262144),
          Problem::packed(Op::N, Op::N, 512, 64, 512, 64)}) {
      SCOPED_TRACE(p.label());
      const auto from_space = sweep_candidates(reduced, device, spaces.of(Op::N, Op::N), p);
      const auto from_all = sweep_candidates(reduced, device, valid_nn(), p);
      ASSERT_FALSE(from_all.empty());
      EXPECT_EQ(from_space, from_all);
    }
  }
}

TEST(Candidates, SplitTailTwinsForOneToEightRoundsOfTilesOfOneMatrix) {
  auto tails = [](const Problem& p) {
    std::vector<GemmConfig> out;
    for (const auto& c :
         candidate_configs(reduced_space(p.op_a, p.op_b), p, 132, SpaceKind::reduced))
      if (c.split_tail) out.push_back(c);
    return out;
  };
  // 1531^3: 144 tiles of 128x128 (a wave and 12), which splitting every tile would not help.
  const auto odd = tails(Problem::packed(Op::N, Op::N, 1531, 1531, 1531));
  ASSERT_FALSE(odd.empty());
  std::set<int> splits;
  for (const auto& c : odd) {
    EXPECT_FALSE(c.reduces()) << config_name(c);
    EXPECT_LE(c.split_k, 16) << config_name(c);
    splits.insert(c.split_k);
  }
  EXPECT_EQ(splits, (std::set<int>{2, 4, 8, 16}));
  // Many rounds, a batch, few rows, or a dot product: none.
  EXPECT_TRUE(tails(Problem::packed(Op::N, Op::T, 3, 50000, 512)).empty());
  EXPECT_TRUE(tails(Problem::packed(Op::N, Op::N, 8192, 8192, 8192)).empty());
  EXPECT_TRUE(tails(Problem::packed(Op::N, Op::N, 1531, 1531, 1531, 2)).empty());
  EXPECT_TRUE(tails(Problem::packed(Op::N, Op::N, 1, 1, 100000)).empty());
}
