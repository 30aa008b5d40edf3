// The knob table is the one list of the family's knobs: the struct, the template and the names
// must agree with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/sgemm/knobs.hpp"
#include "gemmtune/templates.hpp"

using namespace gemmtune;

namespace {
std::string upper_case(std::string_view name) {
  std::string upper(name);
  for (char& ch : upper) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return upper;
}
}  // namespace

TEST(Knobs, RowsFollowTheStructsFieldOrder) {
  SgemmKnobs k;
  for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i) kSgemmKnobs[i].set(k, 1000 + int(i));
  int raw[std::size(kSgemmKnobs)];
  std::memcpy(raw, &k, sizeof raw);
  for (std::size_t i = 0; i < std::size(kSgemmKnobs); ++i)
    EXPECT_EQ(raw[i], 1000 + int(i)) << kSgemmKnobs[i].name;
}

TEST(Knobs, EveryKnobHasValuesTheDefaultAmongThemAndAMeaning) {
  for (const Knob& knob : kSgemmKnobs) {
    EXPECT_FALSE(knob.values.empty()) << knob.name;
    EXPECT_NE(std::find(knob.values.begin(), knob.values.end(), knob.default_value()),
              knob.values.end())
        << knob.name;
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
    EXPECT_TRUE(std::regex_search(
        source, m,
        std::regex(R"(template <([^>]*)>\s*__global__ void\b[^;{]*?\b)" + entry + R"(\(GemmArgs)")))
        << "no `template <...> __global__ void ... " << entry
        << "(GemmArgs` in families/sgemm/kernels/sgemm.cuh";
    const std::string list = m.empty() ? "" : m[1].str();
    std::regex param(R"((?:int|bool)\s+(\w+))");
    for (auto it = std::sregex_iterator(list.begin(), list.end(), param);
         it != std::sregex_iterator(); ++it)
      params.push_back((*it)[1].str());
    return params;
  };
  const std::vector<std::string> params = params_of("sgemm");
  std::vector<std::string> expected;
  for (const Knob& knob : kSgemmKnobs) expected.push_back(upper_case(knob.name));
  expected.push_back("TA");
  expected.push_back("TB");
  for (const char* width : {"GA", "GB", "GC"})
    expected.push_back(width);  // fitted to the data, not knobs
  // Then the flags in their template order (defaulted: names without them omit them).
  std::vector<std::string> flags(std::size(kSgemmFlags));
  for (const Knob& flag : kSgemmFlags)
    if (flag.template_flag >= 0) flags.at(flag.template_flag) = upper_case(flag.name);
  for (const std::string& flag : flags)
    if (!flag.empty()) expected.push_back(flag);
  EXPECT_EQ(params, expected);
  EXPECT_EQ(params_of("sgemm_wgmma"), expected);
}

TEST(Knobs, NameExpressionListsTheValuesInTableOrder) {
  GemmConfig c;
  c.op_b = Op::T;
  c.split_k = 4;
  EXPECT_EQ(c.name_expression(),
            "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,4,8,1,1,1,0,0,false,true,4,4,4>");
  c.prescale_c = true;  // the flags up to the last one set
  EXPECT_EQ(c.name_expression(),
            "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,4,8,1,1,1,0,0,false,true,4,4,4,false,false,"
            "false,false,true>");
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
  EXPECT_FALSE(parse_config_name("sgemm_nt_1x1x8_w1x1_t1x1_s2_v4_p4_k64_r8_l32_j4_z_d").has_value())
      << "_d comes first";
  c = *dot;
  c.split_k = 1;
  ASSERT_TRUE(c.validate(limits).has_value());
  EXPECT_NE(c.validate(limits)->find("prescale_c"), std::string::npos) << *c.validate(limits);
}

// A reduction's narrowed runs read with plain loads (plain_narrow_runs): "_n" after "_z", only
// where a block reads a matrix-vector product's matrix in runs, and kept by fitted_to() only
// where that matrix is narrowed.
TEST(Knobs, PlainNarrowRunsAreNamedValidatedAndFitted) {
  const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  auto row = parse_config_name("sgemm_nt_1x2x32_w1x2_t1x1_s2_v4_p4_k1_r8_l16_j2_g4x1x4_n");
  ASSERT_TRUE(row.has_value());
  EXPECT_TRUE(row->plain_narrow_runs);
  EXPECT_EQ(row->validate(limits), std::nullopt);
  EXPECT_EQ(row->name_expression(),
            "gemmtune::sgemm<1,2,32,1,2,1,1,2,4,4,1,8,1,16,2,0,0,false,true,4,1,4,false,false,"
            "false,false,false,true>");
  EXPECT_FALSE(parse_config_name("sgemm_nt_1x2x32_w1x2_t1x1_s2_v4_p4_k1_r8_l16_j2_n_z").has_value())
      << "_z comes first";
  // 1 x 4095 x 4095 nt: B (4095 x 4095, ldb 4095) is the matrix, read in narrowed runs.
  const Problem odd = Problem::packed(Op::N, Op::T, 1, 4095, 4095);
  const Problem aligned = Problem::packed(Op::N, Op::T, 1, 4096, 4096);
  GemmConfig c = *row;
  c.align_b = 4;
  EXPECT_TRUE(c.fitted_to(odd).plain_narrow_runs);
  EXPECT_TRUE(c.fitted_to(odd).narrows_read_once_runs(odd));
  EXPECT_FALSE(c.fitted_to(aligned).plain_narrow_runs) << "whole runs: nothing to choose";
  EXPECT_FALSE(c.fitted_to(Problem::packed(Op::N, Op::T, 2, 4095, 4095)).plain_narrow_runs)
      << "two rows: B is read by two blocks";
  for (const char* name : {"sgemm_nt_1x1x8_w1x1_t1x1_s2_v4_p4_k64_r8_l32_j4_n",  // a dot's block
                           "sgemm_nt_1x4x32_w1x4_t1x1_s2_v4_p4_k1_r8_l8_n",      // 8 lanes to a row
                           "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_n"}) {  // a tile kernel
    auto bad = parse_config_name(name);
    ASSERT_TRUE(bad.has_value()) << name;
    ASSERT_TRUE(bad->validate(limits).has_value()) << name;
    EXPECT_NE(bad->validate(limits)->find("plain_narrow_runs"), std::string::npos)
        << *bad->validate(limits);
  }
}

// The barrier before the last k-step (early_barrier): "_b", last; only the two-stage FMA loop of
// a tile kernel where a thread may have 255 registers.
TEST(Knobs, EarlyBarrierIsNamedAndValidatedAsSuch) {
  const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  auto tile = parse_config_name("sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k2_r8_g4x4x1_c_h_b");
  ASSERT_TRUE(tile.has_value());
  EXPECT_TRUE(tile->early_barrier);
  EXPECT_TRUE(tile->window_c);
  EXPECT_TRUE(tile->split_tail);
  EXPECT_EQ(tile->validate(limits), std::nullopt);
  EXPECT_EQ(tile->name_expression(),
            "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,2,8,1,1,1,0,0,false,true,4,4,1,false,true,"
            "true,false,false,false,"
            "false,true>");
  EXPECT_FALSE(parse_config_name("sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_b_c").has_value())
      << "_c comes first";
  for (const char* name :
       {"sgemm_nt_128x128x16_w64x32_t8x8_s3_v4_p4_k1_r8_b",      // cp.async ring
        "sgemm_nt_128x128x8_w64x32_t8x8_s1_v4_p4_k1_r8_b",       // one stage
        "sgemm_nt_128x128x8_w32x32_t4x8_s2_v4_p4_k1_r8_o2_b",    // 512 thread slots
        "sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k8_r8_b",        // streamed B
        "sgemm_nt_1x1x16_w1x1_t1x1_s2_v4_p4_k8_r8_l32_b",        // a reduction
        "sgemm_tt_64x64x16_w32x32_t4x8_s2_v4_p4_k2_r8_m1_b"}) {  // tensor cores
    auto bad = parse_config_name(name);
    ASSERT_TRUE(bad.has_value()) << name;
    ASSERT_TRUE(bad->validate(limits).has_value()) << name;
    EXPECT_NE(bad->validate(limits)->find("early_barrier"), std::string::npos)
        << *bad->validate(limits);
  }
}

TEST(Knobs, ClusterSplitsAreNamedValidatedAndNeedNoWorkspace) {
  const DeviceLimits sm90 = DeviceLimits::for_arch("sm_90");
  auto dot = parse_config_name("sgemm_nt_1x1x32_w1x1_t1x1_s2_v4_p4_k16_r8_l32_j8_x");
  ASSERT_TRUE(dot.has_value());
  EXPECT_TRUE(dot->cluster_splits);
  EXPECT_EQ(dot->validate(sm90), std::nullopt);
  EXPECT_EQ(dot->name_expression(),
            "gemmtune::sgemm<1,1,32,1,1,1,1,2,4,4,16,8,1,32,8,0,0,false,true,4,4,4,false,false,"
            "false,false,false,false,"
            "true>");
  EXPECT_TRUE(dot->deterministic());
  EXPECT_FALSE(dot->needs_workspace()) << "the splits add in shared memory: no counters";
  EXPECT_FALSE(
      parse_config_name("sgemm_nt_1x1x32_w1x1_t1x1_s2_v4_p4_k16_r8_l32_j8_x_n").has_value())
      << "_n comes first";
  // Clusters exist from sm_90 on.
  ASSERT_TRUE(dot->validate(DeviceLimits::for_arch("sm_80")).has_value());
  EXPECT_NE(dot->validate(DeviceLimits::for_arch("sm_80"))->find("sm_90"), std::string::npos);
  for (const char* name :
       {"sgemm_nt_1x1x32_w1x1_t1x1_s2_v4_p4_k32_r8_l32_j8_x",    // 32 blocks: more than a cluster
        "sgemm_nt_1x1x32_w1x1_t1x1_s2_v4_p4_k1_r8_l32_j8_x",     // nothing to add
        "sgemm_nt_1x1x32_w1x1_t1x1_s2_v4_p4_k16_r8_l32_j8_d_x",  // two protocols
        "sgemm_nt_1x1x32_w1x1_t1x1_s2_v4_p4_k16_r8_l32_j8_z_x",
        "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k4_r8_x"}) {  // a tile kernel
    auto bad = parse_config_name(name);
    ASSERT_TRUE(bad.has_value()) << name;
    ASSERT_TRUE(bad->validate(sm90).has_value()) << name;
    EXPECT_NE(bad->validate(sm90)->find("cluster_splits"), std::string::npos)
        << *bad->validate(sm90);
  }
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
        EXPECT_EQ(name.find(std::string(knob.name_prefix) + std::to_string(v)), std::string::npos)
            << name;
      }
      auto back = parse_config_name(name);
      ASSERT_TRUE(back) << name;
      EXPECT_EQ(knob.get(*back), v) << name;
    }
  }
}

// Each flag has one place among the template's flag parameters (repack has none: its kernel is
// the aligned instance), and every place is taken.
TEST(Knobs, FlagsTakeEachTemplatePlaceOnce) {
  std::vector<int> places;
  for (const Knob& flag : kSgemmFlags) {
    EXPECT_EQ(flag.kind, KnobKind::flag);
    EXPECT_GT(flag.meaning.size(), 10u) << flag.name;
    if (flag.template_flag >= 0) places.push_back(flag.template_flag);
  }
  std::sort(places.begin(), places.end());
  for (std::size_t i = 0; i < places.size(); ++i) EXPECT_EQ(places[i], int(i));
  EXPECT_EQ(places.size() + 1, std::size(kSgemmFlags))
      << "every flag but repack is a template parameter";
}

// A flag set alone is named by its suffix, at the end of the name, and parsed back.
TEST(Knobs, EachFlagIsNamedBySuffixAndParsedBack) {
  for (const Knob& flag : kSgemmFlags) {
    GemmConfig c;
    flag.set_flag(c, true);
    const std::string name = config_name(c);
    EXPECT_TRUE(name.ends_with(flag.name_prefix)) << name;
    const auto back = parse_config_name(name);
    ASSERT_TRUE(back) << name;
    EXPECT_TRUE(flag.is_set(*back)) << name;
    EXPECT_EQ(*back, c) << name;
  }
}

// The table refuses prefixes and suffixes a name could not be parsed back with.
TEST(Knobs, ClashingSuffixesAreRefused) {
  EXPECT_TRUE(names_parse_back(kSgemmTable));
  auto with = [](const Knob& row) {
    std::vector<Knob> rows(std::begin(kSgemmTable), std::end(kSgemmTable));
    rows.push_back(row);
    return names_parse_back(rows);
  };
  using knob_rows::Twin;
  // A new knob named only away from its default: "_z" would take prescale_c's suffix.
  EXPECT_FALSE(with(knob_rows::value("swizzle", &SgemmKnobs::wgmma, "_z", false,
                                     knob_values::kWgmma, "a clash")));
  EXPECT_TRUE(with(knob_rows::value("swizzle", &SgemmKnobs::wgmma, "_sw", false,
                                    knob_values::kWgmma, "no clash")));
  // A new flag: a suffix taken already, one that begins with a knob's prefix or with "_g".
  EXPECT_FALSE(
      with(knob_rows::flag("again", &SgemmFlags::stage_c, "_e", 8, Twin::distinct, "a clash")));
  EXPECT_FALSE(
      with(knob_rows::flag("again", &SgemmFlags::stage_c, "_o", 8, Twin::distinct, "a clash")));
  EXPECT_FALSE(
      with(knob_rows::flag("again", &SgemmFlags::stage_c, "_gx", 8, Twin::distinct, "a clash")));
  EXPECT_FALSE(
      with(knob_rows::flag("again", &SgemmFlags::stage_c, "", 8, Twin::distinct, "no suffix")));
  EXPECT_TRUE(
      with(knob_rows::flag("again", &SgemmFlags::stage_c, "_y", 8, Twin::distinct, "no clash")));
}
