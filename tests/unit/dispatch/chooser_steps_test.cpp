// Each step of the fallback chain on hand-made snapshots, with the trail pinned line by line:
// what `gemmtune explain` prints must not change when the chooser does. The snapshots have no
// SM count, so a config's predicted efficiency is the fill of its tiles alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gemmtune/choice.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

using Trail = std::vector<std::string>;

const DeviceLimits& h200_limits() {
  static const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  return limits;
}

// Valid nn configs with vec 4 and no split K (computed once: the valid space takes seconds).
const std::vector<GemmConfig>& nn_pool() {
  static const std::vector<GemmConfig> pool = tuned_pool(h200_limits(), Op::N, Op::N);
  return pool;
}

// A valid nn config with `bm` block rows.
GemmConfig with_rows(int bm) {
  for (const GemmConfig& c : nn_pool())
    if (c.bm == bm) return c;
  ADD_FAILURE() << "no tuned-pool config with bm " << bm;
  return {};
}

// Another valid nn config with the block tile of `c`: the same predicted efficiency anywhere.
GemmConfig another_with_the_tiles_of(const GemmConfig& c) {
  for (const GemmConfig& other : nn_pool())
    if (other != c && other.bm == c.bm && other.bn == c.bn) return other;
  ADD_FAILURE() << "no other config with the tiles of " << config_name(c);
  return c;
}

// A config that parses but no longer validates: shared memory above the limit.
GemmConfig stale_config() {
  GemmConfig c = with_rows(128);
  c.bm = c.bn = 256, c.bk = 32, c.stages = 4;
  return c;
}

std::string stale_why() { return *stale_config().validate(h200_limits()); }

TunedProblem nn(long long m, long long n, long long k, int alignment = 4) {
  TunedProblem t;
  t.m = m, t.n = n, t.k = k, t.alignment = alignment;
  return t;
}

TunedBest tuned(const TunedProblem& t, const std::string& config, long long id, double ms = 1.0) {
  TunedBest b;
  b.problem = t;
  b.config_name = config;
  b.config_id = id;
  b.median_ms = ms;
  return b;
}

TunedBest tuned(const TunedProblem& t, const GemmConfig& config, long long id, double ms = 1.0) {
  return tuned(t, config_name(config), id, ms);
}

// A chooser of `bests`. Under ieee the shape-class config answers before the model default; under
// tf32 the model default comes first (the class configs are FMA kernels), so the tests of the model
// default choose under tf32 (their configs are all FMA configs: it admits each of them).
Chooser chooser_of(std::vector<TunedBest> bests, std::vector<TunedBest> top_configs = {},
                   Precision precision = Precision::ieee) {
  TuningSnapshot s;
  s.gpu_model = "NVIDIA H200 (sm_90, 132 SMs)";
  s.bests = std::move(bests);
  s.top_configs = std::move(top_configs);
  return Chooser(h200_limits(), s, false, precision);
}

Problem nn_problem(int m, int n, int k) { return shape_only_problem(Op::N, Op::N, m, n, k); }

const std::string kNotTuned = "exact: this problem was not tuned on this GPU model";

TEST(ChooserSteps, NoTuningDataIsNoted) {
  Choice c = Chooser(h200_limits(), TuningSnapshot{}).choose(nn_problem(64, 64, 64));
  EXPECT_EQ(c.source, ChoiceSource::builtin);
  EXPECT_EQ(c.trail, Trail{"tuning data: none for this GPU model"});
  EXPECT_TRUE(c.tuned_config.empty());

  TuningSnapshot s;
  s.notes = {"first reason", "second reason"};
  c = Chooser(h200_limits(), s).choose(nn_problem(64, 64, 64));
  EXPECT_EQ(c.trail, (Trail{"tuning data: first reason", "tuning data: second reason"}));
}

TEST(ChooserSteps, StaleExactRowIsNotTriedAgainAsNearest) {
  const std::string stale = config_name(stale_config());
  Choice c =
      chooser_of({tuned(nn(2048, 2048, 2048), stale, 1)}).choose(nn_problem(2048, 2048, 2048));
  EXPECT_EQ(c.source, ChoiceSource::builtin);
  // The large class's built-in config: 256 tiles fill two rounds of 132 SMs nearly, no split.
  EXPECT_EQ(config_name(c.config), "sgemm_nn_128x128x8_w64x64_t16x8_s2_v4_p4_k1_r8");
  EXPECT_EQ(c.trail, (Trail{"exact: " + stale + " no longer validates: " + stale_why(),
                            "nearest: no tuned problem of layout nn and alignment 4"}));
}

TEST(ChooserSteps, UntunedProblemIsNotedBeforeTheNearest) {
  Choice c = chooser_of({tuned(nn(1024, 1024, 1024), with_rows(128), 1)})
                 .choose(nn_problem(1000, 1000, 1000));
  EXPECT_EQ(c.source, ChoiceSource::nearest);
  EXPECT_EQ(c.trail, Trail{kNotTuned});
  EXPECT_EQ(c.tuned_config, config_name(with_rows(128)));
}

TEST(ChooserSteps, SkippedRowsBeyondSixAreCounted) {
  std::vector<TunedBest> bests;
  Trail expect{kNotTuned};
  for (int i = 0; i < 8; ++i) {
    long long m = 1024 + 64 * i;
    std::string name = "sgemm_nn_retired_" + std::to_string(i);
    bests.push_back(tuned(nn(m, m, m), name, i + 1));
    if (i < 6)
      expect.push_back("nearest: " + std::to_string(m) + "x" + std::to_string(m) + "x" +
                       std::to_string(m) + " nn: '" + name +
                       "' is not a config name this version knows");
  }
  expect.push_back("nearest: 2 more candidates skipped");
  for (int i = 0; i < 6; ++i)
    expect.push_back("model_default: 'sgemm_nn_retired_" + std::to_string(i) +
                     "' is not a config name this version knows");
  expect.push_back("model_default: 2 more configs skipped");
  Choice c = chooser_of(bests, {}, Precision::tf32).choose(nn_problem(1000, 1000, 1000));
  EXPECT_EQ(c.source, ChoiceSource::builtin);
  EXPECT_EQ(c.trail, expect);
}

// 96 rows fill 75% of 128-row tiles: a config tuned at 128 rows keeps 75% there. A problem tuned
// with 96 rows itself keeps all of its best, however far.
std::vector<TunedBest> nearest_four_and_a_far_one(int near_count) {
  std::vector<TunedBest> bests;
  const long long ks[] = {4096, 4000, 4200, 3900};
  for (int i = 0; i < near_count; ++i)
    bests.push_back(tuned(nn(128, 4096, ks[i]), with_rows(128), i + 1));
  bests.push_back(tuned(nn(96, 4096, 1024), with_rows(128), 9));
  return bests;
}

TEST(ChooserSteps, OnlyTheNearestFourCompete) {
  Choice c = chooser_of(nearest_four_and_a_far_one(4)).choose(nn_problem(96, 4096, 4096));
  EXPECT_EQ(c.source, ChoiceSource::nearest);
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.k, 4096);
  EXPECT_EQ(c.trail, Trail{kNotTuned});

  c = chooser_of(nearest_four_and_a_far_one(3)).choose(nn_problem(96, 4096, 4096));
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.k, 1024);
  EXPECT_EQ(c.trail, (Trail{kNotTuned,
                            "nearest: 128x4096x4096 nn passed over: its configs would keep 75% "
                            "of its best throughput here, 96x4096x1024 nn's 100%"}));
}

TEST(ChooserSteps, TheNearestStaysWithinFifteenPercent) {
  // 112 rows fill 87.5% of a 128-row tile, 104 rows 81%.
  auto bests = [] {
    return std::vector<TunedBest>{tuned(nn(128, 4096, 4096), with_rows(128), 1),
                                  tuned(nn(112, 4096, 1024), with_rows(128), 2),
                                  tuned(nn(104, 4096, 1024), with_rows(128), 3)};
  };
  Choice kept = chooser_of(bests()).choose(nn_problem(112, 4096, 4096));
  ASSERT_TRUE(kept.tuned.has_value());
  EXPECT_EQ(kept.tuned->problem.m, 128);
  EXPECT_EQ(kept.trail, Trail{kNotTuned});

  Choice passed = chooser_of(bests()).choose(nn_problem(104, 4096, 4096));
  ASSERT_TRUE(passed.tuned.has_value());
  EXPECT_EQ(passed.tuned->problem.m, 104);
  EXPECT_DOUBLE_EQ(passed.distance, std::log(4.0));
  EXPECT_EQ(passed.trail, (Trail{kNotTuned,
                                 "nearest: 128x4096x4096 nn passed over: its configs would keep "
                                 "81% of its best throughput here, 104x4096x1024 nn's 100%"}));
}

TEST(ChooserSteps, AnotherRegimeCompetesOnlyWhenNoneOfTheRegimeCanRun) {
  // 96 x 4096 x 32768 is large-K; 96 x 4096 x 4096 is square.
  TunedBest square = tuned(nn(128, 4096, 4096), with_rows(128), 1);
  TunedBest large_k = tuned(nn(96, 4096, 32768), with_rows(128), 2);
  Choice c = chooser_of({square, large_k}).choose(nn_problem(96, 4096, 4096));
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.m, 128);
  EXPECT_TRUE(c.same_regime);
  EXPECT_EQ(c.trail, Trail{kNotTuned});

  const std::string stale = config_name(stale_config());
  square.config_name = stale;
  c = chooser_of({square, large_k}).choose(nn_problem(96, 4096, 4096));
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.k, 32768);
  EXPECT_FALSE(c.same_regime);
  EXPECT_DOUBLE_EQ(c.distance, std::log(8.0));
  EXPECT_EQ(c.trail, (Trail{kNotTuned, "nearest: 128x4096x4096 nn: " + stale +
                                           " no longer validates: " + stale_why()}));
}

TEST(ChooserSteps, NoConfigIsLentFromBeyondTheReach) {
  // 256^3 is ln 8 * sqrt(3) = 3.60 from 2048^3 (beyond 2.5) and ln 2 * sqrt(3) = 1.20 from 512^3.
  const TunedBest far = tuned(nn(2048, 2048, 2048), with_rows(128), 1);
  Choice c = chooser_of({far}).choose(nn_problem(256, 256, 256));
  EXPECT_EQ(c.source, ChoiceSource::builtin);
  EXPECT_EQ(c.trail, (Trail{kNotTuned,
                            "nearest: the nearest tuned problem of layout nn and alignment 4, "
                            "2048x2048x2048 nn, is at distance 3.60, beyond 2.5: too far to lend "
                            "a config"}));

  c = chooser_of({far, tuned(nn(512, 512, 512), with_rows(64), 2)})
          .choose(nn_problem(256, 256, 256));
  EXPECT_EQ(c.source, ChoiceSource::nearest);
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.m, 512);
  EXPECT_DOUBLE_EQ(c.distance, std::log(2.0) * std::sqrt(3.0));
  EXPECT_EQ(c.trail, Trail{kNotTuned});
}

// A valid nn config of `bm` block rows and split-K `split`.
GemmConfig split_config(int bm, int split) {
  GemmConfig c = with_rows(bm);
  c.split_k = split;
  EXPECT_EQ(c.validate(h200_limits()), std::nullopt) << config_name(c);
  return c;
}

TEST(ChooserSteps, ABorrowedSplitShrinksForAShallowKOrMoreTiles) {
  const TunedBest split4 = tuned(nn(512, 512, 512), split_config(64, 4), 1);
  // K 100 leaves slices thinner than 128 floats: no split.
  Choice c = chooser_of({split4}).choose(nn_problem(1500, 1500, 100));
  ASSERT_EQ(c.source, ChoiceSource::nearest);
  EXPECT_EQ(c.config.split_k, 1) << config_name(c.config);
  EXPECT_EQ(c.trail, (Trail{kNotTuned,
                            "nearest: split-K 4 of 512x512x512 nn's config re-sized to "
                            "1 for this problem's tiles and depth"}));
  // Four times the tiles at the same K: half the split (twice the blocks it ran there, at most).
  c = chooser_of({split4}).choose(nn_problem(1024, 1024, 512));
  EXPECT_EQ(c.config.split_k, 2) << config_name(c.config);
  // The problem's own shape class (as many tiles, as deep): kept, and nothing in the trail.
  c = chooser_of({split4}).choose(nn_problem(500, 500, 600));
  EXPECT_EQ(c.config.split_k, 4) << config_name(c.config);
  EXPECT_EQ(c.trail, Trail{kNotTuned});
}

TEST(ChooserSteps, RunnerUpStandsInForAStaleBest) {
  const std::string stale = config_name(stale_config());
  TunedProblem near = nn(1024, 1024, 1024);
  TunedBest best = tuned(near, stale, 1, 1.0);
  TunedBest runner_up = tuned(near, with_rows(64), 2, 1.05);
  Choice c = chooser_of({best}, {best, runner_up}).choose(nn_problem(1000, 1000, 1000));
  EXPECT_EQ(c.source, ChoiceSource::nearest);
  EXPECT_EQ(c.config, with_rows(64));
  EXPECT_EQ(c.tuned_config, runner_up.config_name);
  EXPECT_EQ(c.trail,
            (Trail{kNotTuned, "nearest: 1024x1024x1024 nn's best " + stale +
                                  " passed over for its runner-up (95% of the best there)"}));

  // A runner-up that would keep only as much as the best does not displace it.
  GemmConfig twin = another_with_the_tiles_of(with_rows(128));
  TunedBest usable_best = tuned(near, with_rows(128), 1, 1.0);
  c = chooser_of({usable_best}, {usable_best, tuned(near, twin, 3, 1.0)})
          .choose(nn_problem(1000, 1000, 1000));
  EXPECT_EQ(c.config, with_rows(128));
  EXPECT_EQ(c.trail, Trail{kNotTuned});

  // When none of its configs can run, the first one's reason is given.
  runner_up.config_name = "sgemm_nn_retired";
  c = chooser_of({best}, {best, runner_up}).choose(nn_problem(1000, 1000, 1000));
  EXPECT_EQ(c.source, ChoiceSource::builtin);
  EXPECT_EQ(c.trail, (Trail{kNotTuned, "nearest: 1024x1024x1024 nn: " + stale +
                                           " no longer validates: " + stale_why()}));
}

TEST(ChooserSteps, ModelDefaultIsTheMostCommonBestOfTheLayout) {
  // Tuned only with alignment 1: an aligned problem has no nearest. `twice` and `twice_first`
  // win twice each, `twice_first` has the lower id; a tn config that wins three times is of
  // another layout.
  const GemmConfig once = with_rows(64), twice = with_rows(128), twice_first = nn_pool().back();
  ASSERT_NE(twice_first, twice);
  ASSERT_NE(twice_first, once);
  GemmConfig tn = twice;
  tn.op_a = Op::T;
  std::vector<TunedBest> bests = {
      tuned(nn(100, 100, 100, 1), once, 1),        tuned(nn(200, 200, 200, 1), twice, 5),
      tuned(nn(300, 300, 300, 1), twice, 5),       tuned(nn(400, 400, 400, 1), twice_first, 3),
      tuned(nn(500, 500, 500, 1), twice_first, 3),
  };
  for (int i = 0; i < 3; ++i) {
    TunedProblem t = nn(600 + i, 600, 600, 1);
    t.op_a = Op::T;
    bests.push_back(tuned(t, tn, 7));
  }
  // Under ieee the shape-class config answers first.
  EXPECT_EQ(chooser_of(bests).choose(nn_problem(256, 256, 256)).source, ChoiceSource::builtin);
  Choice c = chooser_of(bests, {}, Precision::tf32).choose(nn_problem(256, 256, 256));
  EXPECT_EQ(c.source, ChoiceSource::model_default);
  EXPECT_EQ(c.config, twice_first);
  EXPECT_EQ(c.wins, 2);
  EXPECT_EQ(c.tuned_problems, 5);
  EXPECT_FALSE(c.tuned.has_value());
  EXPECT_EQ(c.trail, (Trail{kNotTuned, "nearest: no tuned problem of layout nn and alignment 4"}));
}

TEST(ChooserSteps, AlignmentFourLendsToAlignmentTwo) {
  // 1024x1024x1024 tuned (alignment 4) and 1000x1000x1001 (alignment 1); 1024x1024x1022 has
  // alignment 2, which neither has: the nearer, alignment-4 config lends, narrowed to 2 floats.
  const GemmConfig aligned_cfg = with_rows(64), odd_cfg = with_rows(128);
  const std::vector<TunedBest> bests = {tuned(nn(1024, 1024, 1024), aligned_cfg, 1),
                                        tuned(nn(1000, 1000, 1001, 1), odd_cfg, 2)};
  const Problem p = shape_only_problem(Op::N, Op::N, 1024, 1022, 1024);
  ASSERT_EQ(p.alignment(), 2);
  Choice c = chooser_of(bests).choose(p);
  EXPECT_EQ(c.source, ChoiceSource::nearest) << c.to_string();
  EXPECT_EQ(c.config, aligned_cfg.fitted_to(p));
  EXPECT_TRUE(c.narrowed);
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.alignment, 4);
  EXPECT_NE(c.trail.back().find("was tuned at alignment 4, its config's accesses narrowed here"),
            std::string::npos)
      << c.to_string();
  // Alignments 2 and 4 are ranked together by distance: a nearer problem of alignment 2 lends,
  // a farther one does not.
  std::vector<TunedBest> farther = bests;
  farther.push_back(tuned(nn(1500, 1022, 1500, 2), odd_cfg, 3));
  EXPECT_EQ(chooser_of(farther).choose(p).tuned->problem.alignment, 4);
  std::vector<TunedBest> nearer = bests;
  nearer.push_back(tuned(nn(1023, 1022, 1024, 2), odd_cfg, 3));
  Choice same = chooser_of(nearer).choose(p);
  EXPECT_EQ(same.source, ChoiceSource::nearest) << same.to_string();
  EXPECT_EQ(same.tuned->problem.alignment, 2);
  // Alignment 1 borrows from its own class only; alignment 2 never from alignment 1.
  const Problem odd = nn_problem(999, 999, 999);
  ASSERT_EQ(odd.alignment(), 1);
  const std::vector<TunedBest> aligned_only = {tuned(nn(1000, 1000, 1000), aligned_cfg, 4)};
  EXPECT_NE(chooser_of(aligned_only).choose(odd).source, ChoiceSource::nearest);
  const std::vector<TunedBest> odd_only = {tuned(nn(1000, 1000, 1001, 1), odd_cfg, 5)};
  EXPECT_NE(chooser_of(odd_only).choose(p).source, ChoiceSource::nearest);
}

// A matrix-vector config measured on 1 x 4096 x 4096 (thin tile, B streamed; valid on sm_90).
const std::string kVectorConfig = "sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k1_r8";

TEST(ChooserSteps, NoConfigIsLentAcrossTheMatrixVectorBoundary) {
  ASSERT_TRUE(parse_config_name(kVectorConfig).has_value());
  ASSERT_EQ(parse_config_name(kVectorConfig)->validate(h200_limits()), std::nullopt);
  // A tall skinny problem borrows neither as nearest nor as the model default from a
  // matrix-vector one: it gets its shape class's built-in config.
  Chooser vectors_only = chooser_of({tuned(nn(1, 4096, 4096), kVectorConfig, 1)});
  Choice c = vectors_only.choose(nn_problem(10000, 64, 256));
  EXPECT_EQ(c.source, ChoiceSource::builtin) << c.to_string();
  EXPECT_GT(c.config.bm, 8) << config_name(c.config);
  EXPECT_TRUE(std::any_of(c.trail.begin(), c.trail.end(), [](const std::string& line) {
    return line.find("other side of the matrix-vector boundary") != std::string::npos;
  })) << c.to_string();
  // A matrix-vector problem does not borrow a wide tile either, but does borrow a thin one.
  Chooser squares_only = chooser_of({tuned(nn(1024, 1024, 1024), with_rows(128), 1)});
  c = squares_only.choose(nn_problem(1, 4096, 4096));
  EXPECT_EQ(c.source, ChoiceSource::builtin) << c.to_string();
  EXPECT_TRUE(c.config.streams_b()) << config_name(c.config);
  c = vectors_only.choose(nn_problem(1, 6000, 3000));
  EXPECT_EQ(c.source, ChoiceSource::nearest) << c.to_string();
  EXPECT_EQ(c.tuned_config, kVectorConfig);
}

}  // namespace
}  // namespace gemmtune::test
