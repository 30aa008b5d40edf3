// The knob table is the one list of the family's knobs: the struct, the template and the names
// must agree with it.
#include <gtest/gtest.h>

#include <cstring>
#include <regex>

#include "gemmtune/config.hpp"
#include "gemmtune/knobs.hpp"
#include "gemmtune/templates.hpp"

using namespace gemmtune;

TEST(Knobs, RowsFollowTheStructsFieldOrder) {
  SgemmKnobs k;
  for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i) kSgemmKnobs[i].set(k, 1000 + int(i));
  int raw[std::size(kSgemmKnobs)];
  std::memcpy(raw, &k, sizeof raw);
  for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i) EXPECT_EQ(raw[i], 1000 + int(i)) << kSgemmKnobs[i].name;
}

TEST(Knobs, EveryKnobHasValuesTheDefaultAmongThemAndAMeaning) {
  for (const Knob& knob : kSgemmKnobs) {
    EXPECT_FALSE(knob.values.empty()) << knob.name;
    EXPECT_NE(std::find(knob.values.begin(), knob.values.end(), knob.default_value()), knob.values.end()) << knob.name;
    EXPECT_GT(knob.meaning.size(), 10u) << knob.name;
  }
}

// The kernel template's parameters, in order, are the knobs upper-cased, then the layout (TA, TB):
// GemmConfig::name_expression() instantiates it positionally from the table.
TEST(Knobs, TemplateParametersAreTheKnobsInTableOrder) {
  const std::string source(templates::sgemm_source());
  // Both entry points: sgemm, and sgemm_wgmma for the warpgroup instances.
  auto params_of = [&](const std::string& entry) {
    std::smatch m;
    std::vector<std::string> params;
    EXPECT_TRUE(std::regex_search(source, m, std::regex(R"(template <([^>]*)>\s*__global__ void\b[^;{]*?\b)" + entry + R"(\(GemmArgs)")))
        << "no `template <...> __global__ void ... " << entry << "(GemmArgs` in templates/sgemm.cuh";
    const std::string list = m.empty() ? "" : m[1].str();
    std::regex param(R"((?:int|bool)\s+(\w+))");
    for (auto it = std::sregex_iterator(list.begin(), list.end(), param); it != std::sregex_iterator(); ++it)
      params.push_back((*it)[1].str());
    return params;
  };
  const std::vector<std::string> params = params_of("sgemm");
  std::vector<std::string> expected;
  for (const Knob& knob : kSgemmKnobs) {
    std::string upper(knob.name);
    for (char& ch : upper) ch = char(std::toupper(static_cast<unsigned char>(ch)));
    expected.push_back(upper);
  }
  expected.push_back("TA");
  expected.push_back("TB");
  for (const char* width : {"GA", "GB", "GC"}) expected.push_back(width);  // fitted to the data, not knobs
  expected.push_back("STAGE_C");     // GemmConfig::stage_c, defaulted: unstaged names omit it
  expected.push_back("SPLIT_TAIL");  // GemmConfig::split_tail, defaulted the same way
  expected.push_back("WINDOW_C");    // GemmConfig::window_c, likewise
  expected.push_back("ORDERED_SPLITS");  // GemmConfig::ordered_splits, likewise
  expected.push_back("PRESCALE_C");      // GemmConfig::prescale_c, likewise
  EXPECT_EQ(params, expected);
  EXPECT_EQ(params_of("sgemm_wgmma"), expected);
}

TEST(Knobs, NameExpressionListsTheValuesInTableOrder) {
  GemmConfig c;
  c.op_b = Op::T;
  c.split_k = 4;
  EXPECT_EQ(c.name_expression(), "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,4,8,1,1,1,0,0,false,true,4,4,4>");
  c.prescale_c = true;  // the flags up to the last one set
  EXPECT_EQ(c.name_expression(),
            "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,4,8,1,1,1,0,0,false,true,4,4,4,false,false,false,false,true>");
}

// C scaled by a kernel before the splits (prescale_c): "_z" after "_d", only for atomic splits
// of every tile.
TEST(Knobs, PrescaledSplitsAreNamedAndValidatedAsSuch) {
  const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  auto dot = parse_config_name("sgemm_nt_1x1x8_w1x1_t1x1_s2_v4_p4_k64_r8_l32_j4_z");
  ASSERT_TRUE(dot.has_value());
  EXPECT_TRUE(dot->prescale_c);
  EXPECT_EQ(dot->validate(limits), std::nullopt);
  EXPECT_FALSE(dot->deterministic());
  GemmConfig c = *dot;
  c.ordered_splits = true;
  EXPECT_NE(c.validate(limits), std::nullopt);
  EXPECT_FALSE(parse_config_name("sgemm_nt_1x1x8_w1x1_t1x1_s2_v4_p4_k64_r8_l32_j4_z_d").has_value()) << "_d comes first";
  c = *dot;
  c.split_k = 1;
  ASSERT_TRUE(c.validate(limits).has_value());
  EXPECT_NE(c.validate(limits)->find("prescale_c"), std::string::npos) << *c.validate(limits);
}

// A knob that is not named at its default keeps older names valid, and any other value of it
// is named and parsed back.
TEST(Knobs, KnobsNamedOnlyAwayFromTheirDefaultRoundTrip) {
  for (const Knob& knob : kSgemmKnobs) {
    for (int v : knob.values) {
      GemmConfig c;
      knob.set(c, v);
      const std::string name = config_name(c);
      if (!knob.named_when_default && v == knob.default_value()) {
        EXPECT_EQ(name.find(std::string(knob.name_prefix) + std::to_string(v)), std::string::npos) << name;
      }
      auto back = parse_config_name(name);
      ASSERT_TRUE(back) << name;
      EXPECT_EQ(knob.get(*back), v) << name;
    }
  }
}
