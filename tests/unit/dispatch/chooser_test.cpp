// The fallback chain on a real database file with hand-made rows: exact, nearest (with the
// regime preference), the GPU model's most common best, the built-in default; stale rows and
// configs that cannot run the problem are skipped with their reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "gemmtune/choice.hpp"
#include "gemmtune/waves.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

bool trail_has(const Choice& c, const std::string& text) {
  for (const auto& line : c.trail)
    if (line.find(text) != std::string::npos) return true;
  return false;
}

std::string trail_of(const Choice& c) {
  std::string s;
  for (const auto& line : c.trail) s += "  " + line + "\n";
  return s;
}

class ChooserTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    limits_ = DeviceLimits::for_arch("sm_90");
    pool_ = tuned_pool(limits_, Op::N, Op::N);
    ASSERT_GE(pool_.size(), 6u);
    auto split = tuned_pool(limits_, Op::N, Op::N, 16);
    ASSERT_FALSE(split.empty());
    split16_ = split.front();
    stale_ = pool_[0];
    stale_.bm = stale_.bn = 256, stale_.bk = 32,
    stale_.stages = 4;  // shared memory above the limit
    ASSERT_TRUE(stale_.validate(limits_).has_value());

    path_ = (scratch_dir("chooser") / "tuning.db").string();
    TuningDbBuilder b(path_);
    b.gpu("NVIDIA H200", 9, 0, 132);
    b.add(db_problem(Op::N, Op::N, 1024, 1024, 1024), pool_[0], 1.0);
    b.add(db_problem(Op::N, Op::N, 1024, 1024, 1024), pool_[1], 2.0);     // slower: not the best
    b.add(db_problem(Op::N, Op::N, 64, 4096, 4096), pool_[2], 1.0);       // skinny
    b.add(db_problem(Op::N, Op::N, 256, 4096, 4096), pool_[3], 1.0);      // square
    b.add(db_problem(Op::N, Op::N, 4096, 4096, 4096), pool_[0], 3.0);     // pool_[0] wins twice
    b.add(db_problem(Op::N, Op::N, 2048, 2048, 2048), stale_, 0.5);       // no longer valid
    b.add(db_problem(Op::N, Op::N, 128, 128, 128, 5000), split16_, 0.5);  // batch x split_k too big
    b.add(db_problem(Op::N, Op::N, 512, 512, 512), "sgemm_nn_from_an_older_family", pool_[4], 0.1);
    b.gpu("NVIDIA A100-SXM4-80GB", 8, 0, 108);
    b.add(db_problem(Op::N, Op::N, 1000, 1000, 1000), pool_[5], 1.0);
  }

  static Chooser h200(Precision precision = Precision::ieee) {
    return Chooser(limits_, load_tuning_snapshot(path_, {"NVIDIA H200", 9, 0, 132}), false,
                   precision);
  }

  static inline DeviceLimits limits_;
  static inline std::vector<GemmConfig> pool_;
  static inline GemmConfig split16_, stale_;
  static inline std::string path_;
};

TEST_F(ChooserTest, SnapshotHoldsTheModelsBests) {
  TuningSnapshot s = load_tuning_snapshot(path_, {"NVIDIA H200", 9, 0, 132});
  EXPECT_EQ(s.bests.size(), 7u);
  EXPECT_EQ(s.gpu_model, "NVIDIA H200 (sm_90, 132 SMs)");
  EXPECT_TRUE(s.notes.empty());
}

TEST_F(ChooserTest, ExactProblemUsesItsTunedBest) {
  Choice c = h200().choose(shape_only_problem(Op::N, Op::N, 1024, 1024, 1024));
  EXPECT_EQ(c.source, ChoiceSource::exact) << c.to_string();
  EXPECT_EQ(c.config, pool_[0]);
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.m, 1024);
  EXPECT_DOUBLE_EQ(c.tuned->median_ms, 1.0);
  EXPECT_FALSE(c.narrowed);
  EXPECT_NE(c.to_string().find("exact"), std::string::npos);
}

TEST_F(ChooserTest, NearestProblemOfTheSameClass) {
  // 1000^3 was tuned only on another GPU model: the H200's nearest is 1024^3.
  Choice c = h200().choose(shape_only_problem(Op::N, Op::N, 1000, 1000, 1000));
  EXPECT_EQ(c.source, ChoiceSource::nearest) << c.to_string();
  EXPECT_EQ(c.config, pool_[0]);
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.m, 1024);
  EXPECT_GT(c.distance, 0.0);
  EXPECT_LT(c.distance, 0.1);
  EXPECT_TRUE(c.same_regime);
}

TEST_F(ChooserTest, NearestPrefersTheSameRegime) {
  // 80 x 4096 x 4096 is "square" (min(M, N) > 64). 64 x 4096 x 4096 (skinny) is closer in
  // log space than 256 x 4096 x 4096 (square), but the square one wins.
  Choice c = h200().choose(shape_only_problem(Op::N, Op::N, 80, 4096, 4096));
  EXPECT_EQ(c.source, ChoiceSource::nearest) << c.to_string();
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_NE(c.tuned->problem.m, 64) << c.to_string();
  EXPECT_TRUE(c.same_regime);
  // And a skinny problem takes the skinny one.
  Choice s = h200().choose(shape_only_problem(Op::N, Op::N, 48, 4096, 4096));
  ASSERT_TRUE(s.tuned.has_value()) << s.to_string();
  EXPECT_EQ(s.tuned->problem.m, 64);
}

// A chooser for an H200 whose scratch database `name` holds the results `add` records.
Chooser h200_chooser_with(const std::string& name,
                          const std::function<void(TuningDbBuilder&)>& add) {
  std::string path = (scratch_dir(name) / "tuning.db").string();
  {
    TuningDbBuilder b(path);
    b.gpu("NVIDIA H200", 9, 0, 132);
    add(b);
  }
  return Chooser(DeviceLimits::for_arch("sm_90"),
                 load_tuning_snapshot(path, {"NVIDIA H200", 9, 0, 132}));
}

TEST(ChooserCarryOver, AMatrixVectorConfigCountsOnlyItsFirstRoundsFill) {
  // 1x256 tiles split 16 ways on 1x5120: 20 x 16 = 320 blocks. A streaming product is bound by
  // bandwidth once a round fills the GPU, so its efficiency is that round's fill, 1 here,
  // whatever the last round holds; with too few blocks for one round, the share it fills.
  auto c = parse_config_name("sgemm_nn_1x256x32_w1x128_t1x4_s1_v4_p4_k16_r8_z");
  ASSERT_TRUE(c);
  const double slots = 132.0 * std::max(1, c->occupancy);
  ASSERT_LT(slots, 320) << "the test wants a last round partly filled";
  EXPECT_DOUBLE_EQ(predicted_efficiency(*c, 1, 5120, 1, 132), 1.0);
  GemmConfig whole = *c;
  whole.split_k = 1;
  EXPECT_NEAR(predicted_efficiency(whole, 1, 5120, 1, 132), 20 / slots, 1e-12);
  // Nine rows are no matrix-vector product: the last round's fill counts (9 x 20 x 16 blocks).
  EXPECT_NEAR(predicted_efficiency(*c, 9, 5120, 1, 132),
              waves_of(9 * 20 * 16, 132, c->occupancy).fill, 1e-12);
  EXPECT_LT(predicted_efficiency(*c, 9, 5120, 1, 132), 1.0);
}

TEST(ChooserCarryOver, NearestWhoseTilesWouldIdleTheGpuIsPassedOver) {
  // 2048^3 is nearest to 1536^3, but its 128x256 tiles make 72 blocks there: half of 132 SMs.
  // 1024x1024x2048's split-K config keeps the GPU much busier and is taken instead.
  auto whole = parse_config_name("sgemm_nn_128x256x8_w64x64_t16x8_s2_v4_p4_k1_r8");
  auto split = parse_config_name("sgemm_nn_128x256x8_w32x128_t8x16_s2_v4_p4_k4_r8");
  ASSERT_TRUE(whole && split);
  EXPECT_NEAR(predicted_efficiency(*whole, 1536, 1536, 1, 132), 72.0 / 132, 1e-12);
  EXPECT_NEAR(predicted_efficiency(*whole, 2048, 2048, 1, 132), 128.0 / 132, 1e-12);
  EXPECT_NEAR(predicted_efficiency(*whole, 1000, 1000, 1, 0), 1e6 / (1024.0 * 1024),
              1e-12);  // edge padding only
  // Split only past whole rounds (split_tail): 2048^3 has 128 tiles, under one round, split 4
  // ways: 512 quarters over 132 SMs, at most 4 each.
  GemmConfig tail = *split;
  tail.split_tail = true;
  EXPECT_NEAR(predicted_efficiency(tail, 2048, 2048, 1, 132), 512.0 / (4 * 132), 1e-12);
  // 3072^3: 288 tiles, two rounds and 24 tiles split 4 ways (one quarter on 96 SMs).
  EXPECT_NEAR(predicted_efficiency(tail, 3072, 3072, 1, 132), 288.0 * 4 / ((2 * 4 + 1) * 132),
              1e-12);
  Chooser chooser = h200_chooser_with("chooser_carry_over", [&](TuningDbBuilder& b) {
    b.add(db_problem(Op::N, Op::N, 2048, 2048, 2048), *whole, 0.36);
    b.add(db_problem(Op::N, Op::N, 1024, 1024, 2048), *split, 0.104);
  });
  Choice c = chooser.choose(shape_only_problem(Op::N, Op::N, 1536, 1536, 1536));
  EXPECT_EQ(c.source, ChoiceSource::nearest);
  EXPECT_EQ(c.config, *split) << c.to_string();
  EXPECT_TRUE(trail_has(c, "passed over")) << c.to_string();
  // 2000^3 tiles like 2048^3 (the nearest keeps its efficiency), so the nearest stays.
  EXPECT_EQ(chooser.choose(shape_only_problem(Op::N, Op::N, 2000, 2000, 2000)).config, *whole);
}

TEST(ChooserCarryOver, RunnerUpOfTheNearestProblemWhenItFitsBetter) {
  // 128 x 11008 x 4096's best uses 64-row tiles: 96 rows fill 75% of them. Its runner-up with
  // 32-row tiles, 5% slower there, fills all of them, so 96 x 11008 x 4096 takes the runner-up.
  auto rows64 = parse_config_name("sgemm_nn_64x128x8_w32x64_t8x8_s2_v4_p4_k16_r8_o2");
  auto rows32 = parse_config_name("sgemm_nn_32x256x8_w32x64_t4x16_s2_v4_p4_k8_r8");
  ASSERT_TRUE(rows64 && rows32);
  ASSERT_FALSE(rows32->validate(DeviceLimits::for_arch("sm_90")).has_value());
  Chooser chooser = h200_chooser_with("chooser_runner_up", [&](TuningDbBuilder& b) {
    b.add(db_problem(Op::N, Op::N, 128, 11008, 4096), *rows64, 0.280);
    b.add(db_problem(Op::N, Op::N, 128, 11008, 4096), *rows32, 0.294);
  });
  ASSERT_EQ(chooser.snapshot().top_configs.size(), 2u);
  Choice c = chooser.choose(shape_only_problem(Op::N, Op::N, 96, 11008, 4096));
  EXPECT_EQ(c.source, ChoiceSource::nearest) << c.to_string();
  EXPECT_EQ(c.config, *rows32) << c.to_string();
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->config_name, config_name(*rows32));
  EXPECT_TRUE(trail_has(c, "passed over for its runner-up")) << c.to_string();
  // The tuned shape itself keeps its best.
  EXPECT_EQ(chooser.choose(shape_only_problem(Op::N, Op::N, 128, 11008, 4096)).config, *rows64);
}

TEST_F(ChooserTest, StaleRowIsSkipped) {
  Choice c = h200().choose(shape_only_problem(Op::N, Op::N, 2048, 2048, 2048));
  EXPECT_EQ(c.source, ChoiceSource::nearest) << c.to_string();
  EXPECT_TRUE(trail_has(c, "no longer validates")) << trail_of(c);
  EXPECT_EQ(c.config, pool_[0]);
}

TEST_F(ChooserTest, ConfigThatCannotRunTheProblemIsSkipped) {
  Choice c = h200().choose(shape_only_problem(Op::N, Op::N, 128, 128, 128, 5000));
  EXPECT_NE(c.source, ChoiceSource::exact) << c.to_string();
  EXPECT_TRUE(trail_has(c, "cannot run this problem")) << trail_of(c);
  EXPECT_FALSE(
      c.config.can_implement(shape_only_problem(Op::N, Op::N, 128, 128, 128, 5000)).has_value());
}

TEST_F(ChooserTest, UnknownConfigNameIsSkipped) {
  Choice c = h200().choose(shape_only_problem(Op::N, Op::N, 512, 512, 512));
  EXPECT_EQ(c.source, ChoiceSource::nearest) << c.to_string();
  EXPECT_TRUE(trail_has(c, "not a config name")) << trail_of(c);
}

TEST_F(ChooserTest, ModelDefaultWithAccessesNarrowed) {
  // N = 1001 allows only 1-float accesses of B and C: no tuned problem has alignment 1 (and a
  // problem of alignment 1 borrows from its own class only). Under ieee the shape-class config
  // runs; under tf32 (the model default comes first: the class configs are FMA kernels) the
  // config that is best for the most problems, its B and C accesses narrowed.
  Problem p = shape_only_problem(Op::N, Op::N, 1000, 1001, 1000);
  ASSERT_EQ(p.alignment(), 1);
  EXPECT_EQ(h200().choose(p).source, ChoiceSource::builtin);
  Choice c = h200(Precision::tf32).choose(p);
  EXPECT_EQ(c.source, ChoiceSource::model_default) << c.to_string();
  GemmConfig expect = pool_[0];
  expect.align_b = expect.align_c = 1;
  EXPECT_EQ(c.config, expect);
  EXPECT_EQ(c.config.vec, pool_[0].vec);
  EXPECT_NE(c.to_string().find("narrowed to 4, 1, 1 floats"), std::string::npos) << c.to_string();
  EXPECT_TRUE(c.narrowed);
  EXPECT_EQ(c.wins, 2);
  EXPECT_EQ(c.tuned_problems, 7);
  EXPECT_TRUE(trail_has(c, "no tuned problem of layout nn and alignment 1")) << trail_of(c);
}

TEST_F(ChooserTest, PointerAlignmentPicksANarrowerKernel) {
  Problem p = shape_only_problem(Op::N, Op::N, 1024, 1024, 1024);
  p.a = reinterpret_cast<const float*>(std::uintptr_t(4));  // misaligned A: 1-float accesses of A
  // The class config (ieee) is fitted to the data as the model default (tf32 first) is.
  const Choice builtin = h200().choose(p);
  EXPECT_EQ(builtin.source, ChoiceSource::builtin) << builtin.to_string();
  EXPECT_EQ(builtin.config.width_a(), 1);
  Choice c = h200(Precision::tf32).choose(p);
  EXPECT_EQ(c.source, ChoiceSource::model_default) << c.to_string();
  EXPECT_EQ(c.config.width_a(), 1);
  EXPECT_EQ(c.config.width_b(), c.config.vec);  // B and C keep the stored config's vectors
  EXPECT_EQ(c.config.width_c(), c.config.vec);
  EXPECT_EQ(c.narrowed, c.config.vec > 1);
}

TEST_F(ChooserTest, UntunedLayoutUsesTheBuiltinDefault) {
  Problem p = shape_only_problem(Op::T, Op::T, 1024, 1024, 1024);
  Choice c = h200().choose(p);
  EXPECT_EQ(c.source, ChoiceSource::builtin) << c.to_string();
  // The medium class's built-in config: 64 tiles of 128x128 split 8 ways along K.
  EXPECT_EQ(config_name(c.config), "sgemm_tt_128x128x8_w32x64_t8x8_s2_v4_p4_k8_r8");
  EXPECT_TRUE(trail_has(c, "no tuned problem of layout tt")) << trail_of(c);
}

TEST_F(ChooserTest, OtherGpuModelsDataIsNotUsed) {
  Chooser a100(DeviceLimits::for_arch("sm_80"),
               load_tuning_snapshot(path_, {"NVIDIA A100-SXM4-80GB", 8, 0, 108}));
  Choice c = a100.choose(shape_only_problem(Op::N, Op::N, 1000, 1000, 1000));
  EXPECT_EQ(c.source, ChoiceSource::exact) << c.to_string();
  EXPECT_EQ(c.config, pool_[5]);

  Chooser h100(limits_, load_tuning_snapshot(path_, {"NVIDIA H100 80GB HBM3", 9, 0, 132}));
  Choice b = h100.choose(shape_only_problem(Op::N, Op::N, 1024, 1024, 1024));
  EXPECT_EQ(b.source, ChoiceSource::builtin) << b.to_string();
  EXPECT_TRUE(trail_has(b, "has no GPU model")) << trail_of(b);
}

TEST_F(ChooserTest, ModelFoundByArchitectureAlone) {
  TuningSnapshot s = load_tuning_snapshot(path_, {"", 9, 0, 0});
  EXPECT_EQ(s.gpu_model, "NVIDIA H200 (sm_90, 132 SMs)");
  EXPECT_EQ(s.bests.size(), 7u);
}

TEST_F(ChooserTest, MissingDatabaseFallsBackToBuiltin) {
  std::string missing = (scratch_dir("chooser_missing") / "nothing.db").string();
  TuningSnapshot s = load_tuning_snapshot(missing, {"NVIDIA H200", 9, 0, 132});
  EXPECT_TRUE(s.bests.empty());
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes.front().find("nothing.db"), std::string::npos) << s.notes.front();
  EXPECT_FALSE(std::filesystem::exists(missing));  // read-only: creates nothing
  Choice c = Chooser(limits_, s).choose(shape_only_problem(Op::N, Op::T, 100, 200, 300));
  EXPECT_EQ(c.source, ChoiceSource::builtin);
  EXPECT_TRUE(trail_has(c, "cannot read the tuning database")) << trail_of(c);
}

TEST_F(ChooserTest, GarbageFileFallsBackToBuiltin) {
  std::string path = (scratch_dir("chooser_garbage") / "garbage.db").string();
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("this is not a database, it is a text file long enough to have a header.........",
               f);
    std::fclose(f);
  }
  TuningSnapshot s = load_tuning_snapshot(path, {"NVIDIA H200", 9, 0, 132});
  EXPECT_TRUE(s.bests.empty());
  EXPECT_FALSE(s.notes.empty());
}

TEST(Regime, Classes) {
  EXPECT_EQ(regime_of(4096, 4096, 4096), Regime::square);
  EXPECT_EQ(regime_of(64, 4096, 4096), Regime::skinny);
  EXPECT_EQ(regime_of(4096, 16, 1000), Regime::skinny);
  EXPECT_EQ(regime_of(128, 128, 1024), Regime::large_k);
  EXPECT_EQ(regime_of(128, 128, 1023), Regime::square);
  // min(M, N) <= 8, whatever K: matrix-vector products and dot products.
  EXPECT_EQ(regime_of(1, 4096, 4096), Regime::vector);
  EXPECT_EQ(regime_of(4096, 8, 4096), Regime::vector);
  EXPECT_EQ(regime_of(1, 1, 300000), Regime::vector);
  EXPECT_EQ(regime_of(9, 4096, 4096), Regime::skinny);
  EXPECT_FALSE(may_lend(Regime::vector, Regime::skinny));
  EXPECT_FALSE(may_lend(Regime::square, Regime::vector));
  EXPECT_TRUE(may_lend(Regime::large_k, Regime::square));
}

TEST(ShapeOnlyProblem, AlignmentClass) {
  EXPECT_EQ(shape_only_problem(Op::N, Op::N, 64, 64, 64).alignment(), 4);
  EXPECT_EQ(shape_only_problem(Op::N, Op::N, 64, 64, 64, 1, 2).alignment(), 2);
  EXPECT_EQ(shape_only_problem(Op::N, Op::N, 64, 64, 64, 1, 1).alignment(), 1);
  EXPECT_EQ(shape_only_problem(Op::N, Op::N, 64, 63, 64, 1, 4).alignment(),
            1);  // the shape allows only 1
  // x^T B with x transposed: lda = 1 limits A alone; a requested class covers every pointer.
  EXPECT_EQ(shape_only_problem(Op::T, Op::N, 1, 4096, 4096).alignment(), 1);
  EXPECT_EQ(shape_only_problem(Op::T, Op::N, 1, 4096, 4096).b_alignment(), 4);
  EXPECT_EQ(shape_only_problem(Op::T, Op::N, 1, 4096, 4096).c_alignment(), 4);
  EXPECT_EQ(shape_only_problem(Op::T, Op::N, 1, 4096, 4096, 1, 1).b_alignment(), 1);
}

TEST(Chooser, StreamingConfigKeepsItsVectorsWhenOnlyAIsMisaligned) {
  auto streaming = parse_config_name("sgemm_tn_1x256x8_w1x128_t1x4_s2_v4_p4_k32_r8_o2");
  ASSERT_TRUE(streaming);
  Chooser chooser = h200_chooser_with("chooser_streaming_vec", [&](TuningDbBuilder& b) {
    b.add(db_problem(Op::T, Op::N, 1, 4096, 4096, 1, 1), *streaming, 0.027);
  });
  Choice c = chooser.choose(shape_only_problem(Op::T, Op::N, 1, 4096, 4096));
  EXPECT_EQ(c.source, ChoiceSource::exact) << trail_of(c);
  EXPECT_EQ(c.config, *streaming);
  EXPECT_FALSE(c.narrowed);
}

// A repack config ("_q": A and B copied into aligned rows first) tuned for an odd problem reads
// back from the database as itself, and is taken for that problem with A and B at full width.
TEST(Chooser, RepackConfigReadsBackAndRunsItsProblem) {
  auto repack = parse_config_name("sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_g4x4x1_q");
  ASSERT_TRUE(repack && repack->repack);
  GemmConfig plain = *repack;
  plain.repack = false;
  Chooser chooser = h200_chooser_with("chooser_repack", [&](TuningDbBuilder& b) {
    b.add(db_problem(Op::N, Op::N, 2999, 3001, 2003, 1, 1),
          plain.fitted_to(shape_only_problem(Op::N, Op::N, 2999, 3001, 2003)), 0.2);
    b.add(db_problem(Op::N, Op::N, 2999, 3001, 2003, 1, 1), *repack,
          0.15);  // same knob columns, faster
  });
  Choice c = chooser.choose(shape_only_problem(Op::N, Op::N, 2999, 3001, 2003));
  EXPECT_EQ(c.source, ChoiceSource::exact) << trail_of(c);
  EXPECT_EQ(c.config, *repack) << config_name(c.config);
  EXPECT_FALSE(c.narrowed);
  EXPECT_TRUE(c.config.needs_workspace());
  // The same config on aligned data is the plain aligned instance: nothing to pack.
  Choice aligned = chooser.choose(shape_only_problem(Op::N, Op::N, 3000, 3000, 2000));
  EXPECT_FALSE(aligned.config.repack) << config_name(aligned.config) << "\n" << trail_of(aligned);
}

}  // namespace
}  // namespace gemmtune::test
