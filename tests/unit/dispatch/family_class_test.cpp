// A kernel family says the accuracy class and determinism of its configs, and the chooser heeds
// them as it does sgemm's: a tuned config of a 1xTF32 family runs only under the tf32 policy, and
// one that adds atomically never for a deterministic dispatcher. No GPU; the family has no
// kernels, only names.
#include <gtest/gtest.h>

#include <string>

#include "gemmtune/choice.hpp"
#include "gemmtune/family.hpp"

namespace gemmtune::test {
namespace {

// Configs "loosegemm_<anything>": 1xTF32 arithmetic, added in the order blocks finish.
class LooseFamily final : public KernelFamily {
 public:
  std::string_view name() const override { return "loose"; }
  std::string_view prefix() const override { return "loosegemm"; }
  std::string_view source() const override { return "// loose"; }
  std::string_view source_name() const override { return "loose.cu"; }
  const db::FamilySchema& db_family() const override {
    static const db::FamilySchema family{"loose", {}, {}};
    return family;
  }
  std::optional<KernelInstance> parse(std::string_view config_name) const override {
    if (!owns(config_name)) return std::nullopt;
    return KernelInstance{"loose_gemm", {}, false};
  }
  Precision precision(std::string_view) const override { return Precision::tf32; }
  bool deterministic(std::string_view) const override { return false; }
};

const std::string kLoose = "loosegemm_nn_x";

Choice choose(Precision precision, bool deterministic) {
  static const LooseFamily family;
  static const bool registered = (register_family(family), true);
  (void)registered;
  TuningSnapshot s;
  s.gpu_model = "NVIDIA H200 (sm_90, 132 SMs)";
  TunedBest b;
  b.problem = {Op::N, Op::N, 96, 80, 64, 1, 4};
  b.config_name = kLoose;
  b.config_id = 1;
  b.median_ms = 0.5;
  s.bests.push_back(b);
  s.top_configs.push_back(b);
  return Chooser(DeviceLimits::for_arch("sm_90"), s, deterministic, precision)
      .choose(shape_only_problem(Op::N, Op::N, 96, 80, 64));
}

TEST(FamilyClass, ATf32FamilysConfigRunsUnderTheTf32PolicyOnly) {
  const Choice tf32 = choose(Precision::tf32, false);
  EXPECT_EQ(tf32.source, ChoiceSource::exact) << tf32.to_string();
  EXPECT_EQ(tf32.family_config, kLoose);
  for (Precision p : {Precision::ieee, Precision::fp32}) {
    const Choice c = choose(p, false);
    EXPECT_TRUE(c.family_config.empty()) << c.to_string();
    EXPECT_NE(c.to_string().find(kLoose + " computes with tf32 accuracy; the precision policy is " +
                                 precision_name(p)),
              std::string::npos)
        << c.to_string();
  }
}

TEST(FamilyClass, ANondeterministicConfigIsSkippedByADeterministicDispatcher) {
  const Choice c = choose(Precision::tf32, true);
  EXPECT_TRUE(c.family_config.empty()) << c.to_string();
  EXPECT_NE(c.to_string().find(kLoose + " is not deterministic"), std::string::npos)
      << c.to_string();
}

}  // namespace
}  // namespace gemmtune::test
