// The precision policy on a real database file: ieee runs FP32 FMA configs only, fp32 also the
// 3xTF32 configs measured as accurate as the problem's fastest FP32 FMA config on both
// verification inputs, tf32 anything; top configs are kept per precision class, so that a
// problem whose fastest configs are all tensor-core ones still has its FP32 FMA best for the
// ieee policy, and the model default of an untuned layout class is ranked within the classes the
// policy admits.
#include <gtest/gtest.h>

#include <algorithm>

#include "gemmtune/choice.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

GemmConfig tensor_core(int math) {
  GemmConfig c;
  c.bm = c.bn = 128, c.bk = 16, c.wm = 64, c.wn = 32, c.tm = 8, c.tn = 8, c.stages = 3,
  c.math = math;
  return c;
}

class PrecisionPolicy : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    limits_ = DeviceLimits::for_arch("sm_90");
    auto pool = tuned_pool(limits_, Op::N, Op::N);
    ASSERT_GE(pool.size(), 2u);
    fma_ = pool[0];
    for (int math : {1, 2, 3})
      ASSERT_FALSE(tensor_core(math).validate(limits_).has_value()) << math;
    path_ = (scratch_dir("precision_policy") / "tuning.db").string();
    TuningDbBuilder b(path_);
    b.gpu("NVIDIA H200", 9, 0, 132);
    // 512^3: FP32 FMA slowest; 3xTF32 with rounded slice sums more accurate than it; 3xTF32
    // summed in the tensor core faster but less accurate; 1xTF32 fastest. More than the 16 top
    // configs kept per class are faster than the FMA one.
    const auto p = db_problem(Op::N, Op::N, 512, 512, 512);
    b.add(p, fma_, 0.050, 1.0e-6, 1.2e-6);
    b.add(p, pool[1], 0.060, 1.1e-6);
    b.add(p, tensor_core(3), 0.030, 5.0e-7, 6.0e-7);
    b.add(p, tensor_core(2), 0.020, 3.0e-5, 5.0e-5);
    b.add(p, tensor_core(1), 0.010, 3.0e-4, 4.0e-4);
    for (int bk : {8, 32}) {
      GemmConfig c = tensor_core(1);
      c.bk = bk;
      b.add(p, c, 0.011, 3.0e-4, 4.0e-4);
    }
    // 1024^3: a 3xTF32 config that was less accurate there than the FP32 FMA best (and as
    // accurate, and the fastest, at 512^3): it runs at 512^3 only.
    GemmConfig unlucky = tensor_core(3);
    unlucky.stages = 4;
    b.add(p, unlucky, 0.025, 4.0e-7, 5.0e-7);
    const auto q = db_problem(Op::N, Op::N, 1024, 1024, 1024);
    b.add(q, fma_, 0.4, 1.0e-7, 2.0e-7);
    b.add(q, unlucky, 0.2, 2.0e-7, 2.0e-7);
  }

  static Choice choose(Precision precision, int n) {
    Chooser chooser(limits_, load_tuning_snapshot(path_, {"NVIDIA H200", 9, 0, 132}), false,
                    precision);
    return chooser.choose(Problem::packed(Op::N, Op::N, n, n, n));
  }

  static inline DeviceLimits limits_;
  static inline GemmConfig fma_;
  static inline std::string path_;
};

TEST_F(PrecisionPolicy, IeeeRunsTheFastestFp32FmaConfig) {
  Choice c = choose(Precision::ieee, 512);
  EXPECT_EQ(c.source, ChoiceSource::exact) << c.to_string();
  EXPECT_EQ(config_name(c.config), config_name(fma_)) << c.to_string();
  EXPECT_EQ(c.config.math, 0);
  EXPECT_NE(c.to_string().find("policy ieee"), std::string::npos) << c.to_string();
}

TEST_F(PrecisionPolicy, Fp32RunsOnlyConfigsAsAccurateAsFp32Fma) {
  Choice c = choose(Precision::fp32, 512);
  EXPECT_EQ(c.source, ChoiceSource::exact) << c.to_string();
  GemmConfig unlucky = tensor_core(3);
  unlucky.stages = 4;
  EXPECT_EQ(config_name(c.config), config_name(unlucky)) << c.to_string();
  bool skipped_inaccurate = false, skipped_tf32 = false;
  for (const auto& line : c.trail) {
    skipped_inaccurate |= line.find("not measured as accurate") != std::string::npos;
    skipped_tf32 |= line.find("tf32 accuracy") != std::string::npos;
  }
  EXPECT_TRUE(skipped_inaccurate) << c.to_string();
  EXPECT_TRUE(skipped_tf32) << c.to_string();
}

TEST_F(PrecisionPolicy, Tf32RunsTheFastestOfAll) {
  Choice c = choose(Precision::tf32, 512);
  EXPECT_EQ(config_name(c.config), config_name(tensor_core(1))) << c.to_string();
}

// A 3xTF32 config runs on a tuned problem where it was as accurate there, whatever it measured
// elsewhere; on problems without tuning data of their own only if it was as accurate on every
// tuned problem that measured it.
TEST_F(PrecisionPolicy, AConfigLessAccurateOnOneTunedProblemRunsOnlyWhereItWasAsAccurate) {
  const auto qualified =
      fp32_qualified_configs(load_tuning_snapshot(path_, {"NVIDIA H200", 9, 0, 132}));
  GemmConfig unlucky = tensor_core(3);
  unlucky.stages = 4;
  const std::string at512 = TunedProblem{Op::N, Op::N, 512, 512, 512}.to_string(),
                    at1024 = TunedProblem{Op::N, Op::N, 1024, 1024, 1024}.to_string();
  EXPECT_EQ(qualified.everywhere.count(config_name(tensor_core(3))), 1u);
  EXPECT_EQ(qualified.everywhere.count(config_name(unlucky)), 0u);
  EXPECT_EQ(qualified.everywhere.count(config_name(tensor_core(2))), 0u);
  EXPECT_EQ(qualified.on_problem.count({at512, config_name(unlucky)}), 1u);
  EXPECT_EQ(qualified.on_problem.count({at1024, config_name(unlucky)}), 0u);
  EXPECT_EQ(qualified.on_problem.count({at512, config_name(tensor_core(2))}), 0u);
  EXPECT_EQ(config_name(choose(Precision::fp32, 1024).config), config_name(fma_));
  EXPECT_EQ(config_name(choose(Precision::fp32, 512).config), config_name(unlucky));
  const Choice untuned = choose(Precision::fp32, 768);
  EXPECT_NE(untuned.source, ChoiceSource::exact) << untuned.to_string();
  EXPECT_NE(config_name(untuned.config), config_name(unlucky)) << untuned.to_string();
}

// The qualification rule on both errors, with the errors a database may lack (NULL): a 3xTF32
// config qualifies only where both of its errors are measured and no larger than both of the
// problem's fastest FP32 FMA config's.
TEST(Fp32Qualification, BothErrorsNoLargerThanTheFastestFmaConfigs) {
  const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  const auto pool = tuned_pool(limits, Op::N, Op::N);
  ASSERT_GE(pool.size(), 2u);
  auto variant = [](int stages, int bk) {
    GemmConfig c = tensor_core(3);
    c.stages = stages, c.bk = bk;
    return c;
  };
  const GemmConfig as_accurate = variant(2, 16), worse_wide = variant(3, 16),
                   no_wide = variant(4, 16), unmeasured_fma = variant(2, 32),
                   worse_random = variant(3, 32);
  const std::string path = (scratch_dir("fp32_qualification") / "tuning.db").string();
  {
    TuningDbBuilder b(path);
    b.gpu("NVIDIA H200", 9, 0, 132);
    // 256^3: the fastest FMA config's errors are the bar, not the more accurate slower one's.
    const auto p = db_problem(Op::N, Op::N, 256, 256, 256);
    b.add(p, pool[0], 0.010, 1.0e-6, 2.0e-6);
    b.add(p, pool[1], 0.012, 5.0e-7, 1.0e-6);
    b.add(p, as_accurate, 0.008, 1.0e-6, 2.0e-6);    // equal counts as no larger
    b.add(p, worse_wide, 0.008, 9.0e-7, 2.1e-6);     // better on random inputs, worse on wide-range
    b.add(p, worse_random, 0.008, 1.1e-6, 1.0e-6);   // the other way round
    b.add(p, no_wide, 0.008, 9.0e-7, std::nullopt);  // its own wide-range error not measured
    // 384^3: the fastest FMA config has no wide-range error (no fp32 sweep verified it yet).
    const auto q = db_problem(Op::N, Op::N, 384, 384, 384);
    b.add(q, pool[0], 0.020, 1.0e-6, std::nullopt);
    b.add(q, pool[1], 0.021, 1.0e-6, 2.0e-6);
    b.add(q, unmeasured_fma, 0.015, 5.0e-7, 5.0e-7);
  }
  const auto qualified =
      fp32_qualified_configs(load_tuning_snapshot(path, {"NVIDIA H200", 9, 0, 132}));
  EXPECT_EQ(qualified.everywhere, std::set<std::string>{config_name(as_accurate)});
  using Pairs = std::set<std::pair<std::string, std::string>>;
  EXPECT_EQ(
      qualified.on_problem,
      (Pairs{{TunedProblem{Op::N, Op::N, 256, 256, 256}.to_string(), config_name(as_accurate)}}));
}

// The model default of a problem with no exact or nearest tuned problem (the layout was tuned
// with alignment 1 only) is the config best for the most problems of the layout among the
// classes the policy admits. Under fp32 and tf32 it comes before the shape-class config (an FMA
// kernel); under ieee the class config answers first.
TEST(PrecisionModelDefault, RanksWithinTheClassesThePolicyAdmits) {
  const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  const auto pool = tuned_pool(limits, Op::N, Op::N);
  ASSERT_GE(pool.size(), 2u);
  const GemmConfig fma = pool[0], other_fma = pool[1], tf32 = tensor_core(1), fp32 = tensor_core(3);
  const std::string path = (scratch_dir("precision_model_default") / "tuning.db").string();
  {
    TuningDbBuilder b(path);
    b.gpu("NVIDIA H200", 9, 0, 132);
    for (int n : {256, 384, 448}) {
      const auto p = db_problem(Op::N, Op::N, n, n, n, 1, 1);
      b.add(p, tf32, 0.010, 3.0e-4, 4.0e-4);
      b.add(p, fp32, 0.020, 5.0e-7, 5.0e-7);
      b.add(p, fma, n == 448 ? 0.032 : 0.030, 1.0e-6, 1.0e-6);
      b.add(p, other_fma, n == 448 ? 0.030 : 0.032, 1.0e-6, 1.0e-6);
    }
  }
  auto choose = [&](Precision precision) {
    Chooser chooser(limits, load_tuning_snapshot(path, {"NVIDIA H200", 9, 0, 132}), false,
                    precision);
    return chooser.choose(shape_only_problem(Op::N, Op::N, 512, 512, 512));
  };
  const std::vector<std::pair<Precision, GemmConfig>> expected_of = {{Precision::fp32, fp32},
                                                                     {Precision::tf32, tf32}};
  for (const auto& [precision, expected] : expected_of) {
    SCOPED_TRACE(precision_name(precision));
    const Choice c = choose(precision);
    EXPECT_EQ(c.source, ChoiceSource::model_default) << c.to_string();
    EXPECT_EQ(config_name(c.config), config_name(expected)) << c.to_string();
    EXPECT_EQ(c.wins, 3) << c.to_string();
    EXPECT_EQ(c.tuned_problems, 3);
  }
  EXPECT_EQ(choose(Precision::ieee).source, ChoiceSource::builtin);
}

TEST(PrecisionModelDefault, SaysWhenThePolicyAdmitsNoneOfTheConfigs) {
  const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  const std::string path = (scratch_dir("precision_model_default_none") / "tuning.db").string();
  {
    TuningDbBuilder b(path);
    b.gpu("NVIDIA H200", 9, 0, 132);
    b.add(db_problem(Op::N, Op::N, 256, 256, 256, 1, 1), tensor_core(1), 0.010, 3.0e-4, 4.0e-4);
  }
  // fp32 admits the FMA and 3xTF32 classes, not 1xTF32.
  Chooser chooser(limits, load_tuning_snapshot(path, {"NVIDIA H200", 9, 0, 132}), false,
                  Precision::fp32);
  const Choice c = chooser.choose(shape_only_problem(Op::N, Op::N, 512, 512, 512));
  EXPECT_EQ(c.source, ChoiceSource::builtin);
  EXPECT_NE(
      std::find(
          c.trail.begin(), c.trail.end(),
          "model_default: the precision policy fp32 admits none of the configs of the 1 tuned "
          "problems of layout nn"),
      c.trail.end())
      << c.to_string();
}

TEST(PrecisionNames, RoundTripAndRejectOthers) {
  for (Precision p : {Precision::ieee, Precision::fp32, Precision::tf32})
    EXPECT_EQ(parse_precision(precision_name(p)), p);
  EXPECT_FALSE(parse_precision("fp64").has_value());
  EXPECT_FALSE(parse_precision("").has_value());
  EXPECT_EQ(tensor_core(3).precision(), Precision::fp32);
  EXPECT_EQ(tensor_core(1).precision(), Precision::tf32);
  EXPECT_EQ(GemmConfig{}.precision(), Precision::ieee);
}

}  // namespace
}  // namespace gemmtune::test
