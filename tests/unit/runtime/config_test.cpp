// GemmConfig: validate() with its reasons, names, the search space, alignment.
#include <gtest/gtest.h>

#include <set>

#include "gemmtune/error.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gemmtune/templates.hpp"

using namespace gemmtune;

namespace {
const DeviceLimits kSm90 = DeviceLimits::for_arch("sm_90");

std::string reason(const GemmConfig& c, const DeviceLimits& l = kSm90) {
  auto r = c.validate(l);
  return r ? *r : "";
}
// `p` with A, B and C at a 256-byte aligned (never dereferenced) address: only the leading
// dimensions decide the alignment.
Problem with_aligned_pointers(Problem p) {
  p.a = p.b = reinterpret_cast<const float*>(std::uintptr_t(256));
  p.c = reinterpret_cast<float*>(std::uintptr_t(256));
  return p;
}
}  // namespace

TEST(Config, DefaultIsValidEverywhere) {
  for (const char* arch : {"sm_80", "sm_86", "sm_89", "sm_90"})
    EXPECT_EQ(reason(GemmConfig{}, DeviceLimits::for_arch(arch)), "") << arch;
}

TEST(Config, InvalidConfigsSayWhy) {
  GemmConfig c;
  c.wm = 32;  // (32/8) * (32/8) = 16 threads per warp
  EXPECT_NE(reason(c).find("not 32"), std::string::npos) << reason(c);
}

TEST(Config, EachConstraintHasItsReason) {
  struct Case {
    void (*edit)(GemmConfig&);
    const char* expect;
  };
  const Case cases[] = {
      {[](GemmConfig& c) { c.bm = 80; }, "powers of two or 3 x"},
      {[](GemmConfig& c) { c.bm = 24, c.wm = 8, c.tm = 2; }, "powers of two or 3 x"},
      {[](GemmConfig& c) { c.wm = 48; }, "must be a power of two"},
      {[](GemmConfig& c) { c.bm = 96, c.wm = 32, c.tm = 4, c.tn = 4, c.wn = 32, c.math = 1; },
       "FP32 FMA tile kernels"},
      {[](GemmConfig& c) { c.tm = 16, c.tn = 16, c.wm = 64, c.wn = 128, c.bn = 128; },
       "exceeds 128 accumulators"},
      {[](GemmConfig& c) { c.bm = 32; }, "multiple of the warp tile"},
      {[](GemmConfig& c) { c.bm = 256, c.bn = 256, c.tm = 4, c.tn = 4, c.wm = 16, c.wn = 32; },
       "threads per block exceed"},
      {[](GemmConfig& c) { c.stages = 5; }, "stages must be 1 to 4"},
      {[](GemmConfig& c) { c.pad = 2; }, "pad must be 0 or 4"},
      {[](GemmConfig& c) {
         c.bk = 32, c.stages = 4, c.bm = 256, c.bn = 256, c.tm = 16, c.tn = 8, c.wm = 64, c.wn = 64;
       },
       "shared memory"},
      {[](GemmConfig& c) { c.split_k = 1024; }, "split_k must be at most 512"},
      {[](GemmConfig& c) { c.bm = 256, c.wm = 64, c.wn = 64, c.tm = 16, c.occupancy = 2; },
       "registers"},
      {[](GemmConfig& c) { c.occupancy = 5; }, "occupancy must be 1 to 4"},
      {[](GemmConfig& c) { c.bm = 256, c.bn = 256, c.wm = 64, c.wn = 64, c.tm = 16, c.tn = 8; },
       "registers"},
      {[](GemmConfig& c) { c.bn = 2, c.wn = 2, c.tn = 1, c.wm = 128, c.tm = 8; },
       "vec must divide"},
      {[](GemmConfig& c) { c.bm = 1, c.wm = 1, c.tm = 1, c.tn = 4, c.wn = 128, c.stages = 3; },
       "streams B"},
  };
  for (const Case& k : cases) {
    GemmConfig c;
    k.edit(c);
    EXPECT_NE(reason(c).find(k.expect), std::string::npos)
        << config_name(c) << ": '" << reason(c) << "'";
  }
}

// Block sides of three warp tiles (48 and 96 rows or columns) are valid FMA tile configs, and their
// thread count is three times a power of two.
TEST(Config, ThreeWarpSidesAreValidTiles) {
  for (const char* name : {"sgemm_nn_48x128x16_w16x64_t4x8_s3_v4_p4_k1_r8",
                           "sgemm_tn_96x64x8_w32x64_t8x8_s2_v4_p4_k1_r8",
                           "sgemm_nt_128x96x8_w64x32_t8x8_s2_v4_p4_k4_r8",
                           "sgemm_tt_48x48x16_w16x16_t2x4_s3_v4_p4_k1_r8"}) {
    auto c = parse_config_name(name);
    ASSERT_TRUE(c.has_value()) << name;
    EXPECT_EQ(reason(*c), "") << name;
    EXPECT_EQ(c->threads() % 96, 0) << name;
  }
}

// Names from a damaged database or typed by hand may hold any size: validate() refuses them
// without overflowing (found by tests/fuzz; the sanitizer build, tools/sanitize.sh, would report
// the overflow).
TEST(Config, HugeSizesAreRefusedWithoutOverflow) {
  for (const char* name : {"sgemm_nn_1048576x1048576x8_w1048576x1048576_t1x1_s2_v4_p4_k1_r8",
                           "sgemm_nn_33554432x128x8_w33554432x32_t16x8_s2_v4_p4_k1_r8",
                           "sgemm_nn_16384x16384x8_w512x512_t16x8_s2_v4_p4_k1_r8",
                           "sgemm_nn_128x128x65536_w64x32_t8x8_s4_v4_p4_k1_r8",
                           "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_j536870912"}) {
    auto c = parse_config_name(name);
    ASSERT_TRUE(c.has_value()) << name;
    EXPECT_NE(reason(*c), "") << name;
  }
  GemmConfig c;
  c.bm = 1 << 17, c.wm = 1 << 17;
  EXPECT_NE(reason(c).find("at most 65536"), std::string::npos) << reason(c);
}

TEST(Config, ThinTilesWithAllRowsPerThreadStreamB) {
  auto thin = parse_config_name("sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k8_r8");
  ASSERT_TRUE(thin);
  EXPECT_EQ(reason(*thin), "");
  EXPECT_TRUE(thin->streams_b());
  EXPECT_EQ(thin->smem_bytes(), 0);
  auto transposed_b =
      parse_config_name("sgemm_nt_1x256x16_w1x128_t1x4_s3_v4_p4_k8_r8");  // B via shared memory
  ASSERT_TRUE(transposed_b);
  EXPECT_EQ(reason(*transposed_b), "");
  EXPECT_FALSE(transposed_b->streams_b());
  EXPECT_GT(transposed_b->smem_bytes(), 0);
  // A vector along K for A (not transposed) needs no vector along the one-row M side.
  EXPECT_EQ(thin->vec, 4);
}

TEST(Config, StreamedBTakesOneRegisterSetOrTwo) {
  // Stages 1 and 2 are one and two register sets of bk rows of B; there is no ring to deepen.
  auto one = parse_config_name("sgemm_nn_8x256x16_w8x128_t8x4_s1_v4_p4_k32_r8");
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->streams_b());
  EXPECT_EQ(reason(*one), "");
  // Two sets of 16 rows of 8 x 4 values do not fit the 255 registers of 64 threads; one does.
  auto two = *one;
  two.stages = 2;
  EXPECT_NE(reason(two).find("registers"), std::string::npos) << reason(two);
  auto three = *one;
  three.stages = 3;
  EXPECT_NE(reason(three).find("stages 1 (one register set) or 2"), std::string::npos)
      << reason(three);
}

TEST(Config, CpAsyncNeedsAmpere) {
  GemmConfig c;
  c.stages = 3;
  DeviceLimits old = kSm90;
  old.cc_major = 7, old.cc_minor = 5;
  EXPECT_NE(reason(c, old).find("cp.async"), std::string::npos);
  EXPECT_EQ(reason(c), "");
}

// The kernel path follows from knobs every name already holds: one config of each path, by name.
TEST(Config, KernelPathFollowsTheKnobs) {
  const struct {
    const char* name;
    KernelPath path;
  } cases[] = {
      {"sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8", KernelPath::register_tile},
      {"sgemm_nn_128x128x8_w64x32_t8x8_s1_v4_p4_k1_r8", KernelPath::register_tile},
      {"sgemm_nn_128x128x16_w64x32_t8x8_s3_v4_p4_k1_r8", KernelPath::cp_async_tile},
      {"sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k8_r8", KernelPath::streamed_tile},
      {"sgemm_nt_1x256x16_w1x128_t1x4_s3_v4_p4_k8_r8", KernelPath::cp_async_tile},  // B^T: tiles
      {"sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8", KernelPath::reduction},
      {"sgemm_nn_128x128x16_w64x32_t8x8_s3_v4_p4_k1_r8_m3", KernelPath::mma_sync},
      {"sgemm_nn_128x128x16_w64x32_t8x8_s2_v4_p4_k1_r8_m1", KernelPath::mma_sync},
      {"sgemm_nn_128x128x32_w16x128_t2x32_s3_v4_p4_k1_r8_m3_wg1", KernelPath::warpgroup},
  };
  for (const auto& k : cases) {
    auto c = parse_config_name(k.name);
    ASSERT_TRUE(c.has_value()) << k.name;
    EXPECT_EQ(reason(*c), "") << k.name;
    EXPECT_EQ(c->path(), k.path) << k.name;
    EXPECT_EQ(config_name(*c), k.name);  // the path is no part of the name
    EXPECT_EQ(c->reduces(), k.path == KernelPath::reduction) << k.name;
    EXPECT_EQ(c->streams_b(), k.path == KernelPath::streamed_tile) << k.name;
  }
}

// validate() runs the rules of the config's path (families/sgemm/src/config.cpp, one function per
// path): for each path, a valid config and one knob or flag that only its rules refuse.
TEST(Config, EachPathsRulesAreReached) {
  DeviceLimits turing = kSm90;
  turing.cc_major = 7, turing.cc_minor = 5;
  const struct {
    const char* name;
    void (*edit)(GemmConfig&);
    DeviceLimits limits;
    const char* expect;
  } cases[] = {
      {"sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8",
       [](GemmConfig& c) { c.ordered_splits = true, c.split_k = 2; }, kSm90, "ordered_splits"},
      {"sgemm_nn_128x128x16_w64x32_t8x8_s3_v4_p4_k1_r8", [](GemmConfig&) {}, turing, "cp.async"},
      {"sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k8_r8", [](GemmConfig& c) { c.pad = 0; }, kSm90,
       "streams B"},
      {"sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8", [](GemmConfig& c) { c.raster = 1; }, kSm90,
       "no shared-memory tiles: raster"},
      {"sgemm_nn_128x128x16_w64x32_t8x8_s3_v4_p4_k1_r8_m3", [](GemmConfig& c) { c.pad = 0; }, kSm90,
       "their own shared-memory padding"},
      {"sgemm_nn_128x128x32_w16x128_t2x32_s3_v4_p4_k1_r8_m3_wg1",
       [](GemmConfig& c) { c.stages = 1; }, kSm90, "pipelines its copies"},
  };
  std::set<KernelPath> reached;
  for (const auto& k : cases) {
    auto c = parse_config_name(k.name);
    ASSERT_TRUE(c.has_value()) << k.name;
    EXPECT_EQ(reason(*c), "") << k.name;
    const KernelPath path = c->path();
    k.edit(*c);
    EXPECT_EQ(c->path(), path) << k.name;
    EXPECT_NE(reason(*c, k.limits).find(k.expect), std::string::npos)
        << k.name << ": '" << reason(*c, k.limits) << "'";
    reached.insert(path);
  }
  EXPECT_EQ(reached.size(), 6u);  // every KernelPath
}

// The host sizes what the templates derive from the same header, which the NVRTC source embeds
// ahead of the components that use it (families/CMakeLists.txt).
TEST(Config, TemplatesEmbedTheShapesHeaderFirst) {
  const std::string source(templates::sgemm_source());
  const auto header = source.find("enum class KernelPath");
  ASSERT_NE(header, std::string::npos);
  EXPECT_LT(header, source.find("struct Traits"));
  EXPECT_NE(source.find("MainloopOf<KernelPath(Cfg::kPath), Cfg>"), std::string::npos);
}

TEST(Config, SharedMemoryLimitFollowsTheArchitecture) {
  GemmConfig c;
  c.bm = 256, c.bn = 128, c.bk = 32, c.stages = 3, c.tm = 16, c.tn = 8, c.wm = 64, c.wn = 64;
  EXPECT_EQ(reason(c), "");  // 147 KiB fits sm_90's 227 KiB
  EXPECT_NE(reason(c, DeviceLimits::for_arch("sm_86")).find("shared memory"), std::string::npos);
}

TEST(Config, UnknownArchitectureIsAnError) { EXPECT_THROW(DeviceLimits::for_arch("sm_12"), Error); }

TEST(Config, NamesRoundTripAndAreUniqueOverTheSpace) {
  std::set<std::string> names;
  size_t n = 0;
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T})
      for (const GemmConfig& c : tuner::valid_space(kSm90, a, b)) {
        std::string name = config_name(c);
        ASSERT_TRUE(names.insert(name).second) << "duplicate name " << name;
        auto back = parse_config_name(name);
        ASSERT_TRUE(back.has_value()) << name;
        ASSERT_EQ(*back, c) << name;
        ++n;
      }
  EXPECT_GT(n, 1000u);
}

TEST(Config, ParseRejectsNonNames) {
  for (const char* bad : {"", "sgemm", "sgemm_xn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8",
                          "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8 ",
                          "sgemm_nn_0128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8"})
    EXPECT_FALSE(parse_config_name(bad).has_value()) << bad;
  EXPECT_EQ(config_name(GemmConfig{}), "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8");
  GemmConfig two;
  two.occupancy = 2;
  EXPECT_EQ(config_name(two), "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_o2");
  EXPECT_EQ(parse_config_name(config_name(two)), two);
  EXPECT_FALSE(parse_config_name("sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_o2x").has_value());
}

TEST(Config, AccessWidthsAreNamedOnlyWhenTheyNarrow) {
  const std::string base = "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8";
  auto narrowed = parse_config_name(base + "_o2_g4x1x2");
  ASSERT_TRUE(narrowed.has_value());
  EXPECT_EQ(narrowed->occupancy, 2);
  EXPECT_EQ(narrowed->width_a(), 4);
  EXPECT_EQ(narrowed->width_b(), 1);
  EXPECT_EQ(narrowed->width_c(), 2);
  EXPECT_EQ(config_name(*narrowed), base + "_o2_g4x1x2");
  // One instance, one name: widths that narrow nothing are not written, nor parsed when written.
  for (const char* bad : {"_g4x4x4", "_g4x1", "_g4x1x2x1", "_g", "_gx1x1", "_g4x1x1_o2"})
    EXPECT_FALSE(parse_config_name(base + bad).has_value()) << bad;
  // A width is 1, 2 or 4 floats (found by tests/fuzz: "_g4x0x2" parsed to a data alignment of 0).
  for (const char* bad : {"_g4x0x2", "_g3x1x1", "_g0x1x1"})
    EXPECT_FALSE(parse_config_name(base + bad).has_value()) << bad;
  GemmConfig scalar;
  scalar.vec = 1;
  scalar.align_b = 1;
  EXPECT_EQ(config_name(scalar), "sgemm_nn_128x128x8_w64x32_t8x8_s2_v1_p4_k1_r8");
}

TEST(Config, PruningShrinksTheSpace) {
  size_t valid = tuner::valid_space(kSm90, Op::N, Op::N).size();
  std::cout << "sm_90 NN: " << tuner::full_space_size() << " combinations, " << valid << " valid\n";
  EXPECT_LT(valid, tuner::full_space_size() / 2);
  EXPECT_GT(valid, 100u);
}

TEST(Config, CoverageSampleTakesEveryValueOfEveryKnob) {
  auto sample = tuner::coverage_sample(kSm90, Op::T, Op::N);
  auto valid = tuner::valid_space(kSm90, Op::T, Op::N);
  auto values = [](const std::vector<GemmConfig>& v, int GemmConfig::*field) {
    std::set<int> s;
    for (auto& c : v) s.insert(c.*field);
    return s;
  };
  for (auto field :
       {&GemmConfig::bm, &GemmConfig::bn, &GemmConfig::bk, &GemmConfig::tm, &GemmConfig::tn,
        &GemmConfig::stages, &GemmConfig::vec, &GemmConfig::pad, &GemmConfig::split_k,
        &GemmConfig::raster, &GemmConfig::wm, &GemmConfig::wn, &GemmConfig::occupancy})
    EXPECT_EQ(values(sample, field), values(valid, field));
  for (auto& c : sample) EXPECT_FALSE(c.validate(kSm90).has_value()) << config_name(c);
  EXPECT_LT(sample.size(), 64u);
}

TEST(Config, AlignmentClassAndCanImplement) {
  Problem p = Problem::packed(Op::N, Op::T, 64, 64, 64);
  p.a = p.b = p.c = reinterpret_cast<float*>(std::uintptr_t(0x1000));
  EXPECT_EQ(p.alignment(), 4);
  p.lda = 66;
  EXPECT_EQ(p.alignment(), 2);
  p.c = reinterpret_cast<float*>(std::uintptr_t(0x1004));
  EXPECT_EQ(p.alignment(), 1);
  EXPECT_EQ(p.a_alignment(), 2);
  EXPECT_EQ(p.b_alignment(), 4);
  EXPECT_EQ(p.c_alignment(), 1);
  GemmConfig c;
  c.op_b = Op::T;
  EXPECT_NE(c.can_implement(p)->find("A is accessed 4 floats at a time; its data allows 2"),
            std::string::npos);
  // Fitted to the data: each operand's accesses narrowed to its own alignment, vec kept.
  GemmConfig fitted = c.fitted_to(p);
  EXPECT_EQ(fitted.vec, 4);
  EXPECT_EQ(fitted.width_a(), 2);
  EXPECT_EQ(fitted.width_b(), 4);
  EXPECT_EQ(fitted.width_c(), 1);
  EXPECT_FALSE(fitted.can_implement(p).has_value());
  EXPECT_TRUE(config_name(fitted).ends_with("_r8_g2x4x1")) << config_name(fitted);
  EXPECT_EQ(fitted.name_expression(),
            "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,1,8,1,1,1,0,0,false,true,2,4,1>");
  c.vec = 1;
  EXPECT_FALSE(c.can_implement(p).has_value());
  EXPECT_EQ(c.fitted_to(p), c);  // vec 1: nothing to narrow
  c.op_b = Op::N;
  EXPECT_NE(c.can_implement(p)->find("layout"), std::string::npos);
  p.k = 0;
  c.op_b = Op::T;
  EXPECT_TRUE(c.can_implement(p).has_value());
}

TEST(Config, StreamingBIgnoresTheAlignmentOfA) {
  // A matrix-vector product x^T B with x transposed: A's leading dimension is M = 1.
  Problem p = Problem::packed(Op::T, Op::N, 1, 4096, 4096);
  EXPECT_EQ(p.alignment(), 1);
  EXPECT_EQ(p.a_alignment(), 1);
  EXPECT_EQ(std::min(p.b_alignment(), p.c_alignment()), 4);
  auto streaming = parse_config_name("sgemm_tn_1x256x8_w1x128_t1x4_s2_v4_p4_k32_r8_o2");
  ASSERT_TRUE(streaming && streaming->streams_b());
  EXPECT_EQ(reason(*streaming), "");  // vec 4 along B's rows, though A's tile is one float wide
  EXPECT_EQ(streaming->fitted_to(p), *streaming);
  EXPECT_FALSE(streaming->can_implement(p).has_value());
  auto shared =
      parse_config_name("sgemm_tn_4x128x16_w4x32_t1x4_s2_v4_p4_k16_r8");  // B via shared memory
  ASSERT_TRUE(shared && !shared->streams_b());
  ASSERT_TRUE(shared->can_implement(p).has_value());
  EXPECT_NE(shared->can_implement(p)->find("allows 1"), std::string::npos);
  EXPECT_EQ(shared->fitted_to(p).width_a(), 1);
  EXPECT_EQ(shared->fitted_to(p).width_b(), 4);
  EXPECT_FALSE(shared->fitted_to(p).can_implement(p).has_value());
  // B and C still count: an odd N narrows the streaming config's B and C to one float.
  p = Problem::packed(Op::T, Op::N, 1, 4095, 4096);
  EXPECT_EQ(p.b_alignment(), 1);
  EXPECT_TRUE(streaming->can_implement(p).has_value());
  const GemmConfig narrow = streaming->fitted_to(p);
  EXPECT_EQ(narrow.width_a(), 4);  // not read in vectors at all: left alone
  EXPECT_EQ(narrow.width_b(), 1);
  EXPECT_EQ(narrow.width_c(), 1);
  EXPECT_FALSE(narrow.can_implement(p).has_value());
}

TEST(Config, EverySplitGetsWork) {
  GemmConfig c;               // bk 8
  c.split_k = 16, c.vec = 1;  // packed() leaves the pointers null: alignment 1
  Problem p =
      Problem::packed(Op::N, Op::N, 64, 64, 125);  // 15 slices of 8, the last split 5 values
  EXPECT_FALSE(c.can_implement(p).has_value());
  p.k = 120;  // 16 splits of one slice need more than 120
  ASSERT_TRUE(c.can_implement(p).has_value());
  EXPECT_NE(c.can_implement(p)->find("leaves splits without work for K = 120"), std::string::npos)
      << *c.can_implement(p);
  c.split_k = 8;
  EXPECT_FALSE(c.can_implement(p).has_value());
  // Slices are shared as evenly as they go: 257 slices of 16 among 64 splits (4 or 5 each),
  // which whole shares of 5 slices would have run out of after 52 splits.
  c.bk = 16, c.split_k = 64;
  p.k = 4099;
  EXPECT_FALSE(c.can_implement(p).has_value()) << *c.can_implement(p);
  // Any number of splits, not only powers of two.
  c.split_k = 7;
  EXPECT_EQ(reason(c), "");
  EXPECT_FALSE(c.can_implement(p).has_value());
}

TEST(Config, DefaultConfigFollowsAlignment) {
  Problem p = Problem::packed(Op::T, Op::N, 7, 13, 11);
  p.a = p.b = p.c = reinterpret_cast<float*>(std::uintptr_t(0x1000));
  GemmConfig c = default_config(kSm90, p);
  EXPECT_EQ(c.vec, 4);  // shared memory keeps 4-float chunks; 7 and 13 columns: 1-float accesses
  EXPECT_EQ(c.width_a(), 1);
  EXPECT_EQ(c.width_b(), 1);
  EXPECT_EQ(c.width_c(), 1);
  EXPECT_FALSE(c.validate(kSm90).has_value());
  EXPECT_FALSE(c.can_implement(p).has_value());
}

// Repack: "_q" ends the name, after the access widths, and round-trips.
TEST(Config, RepackIsNamedLastAndRoundTrips) {
  const std::string base = "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8";
  GemmConfig c;
  c.repack = true;
  EXPECT_EQ(config_name(c), base + "_q");
  EXPECT_EQ(parse_config_name(base + "_q"), c);
  c.align_c = 1, c.occupancy = 2;
  EXPECT_EQ(config_name(c), base + "_o2_g4x4x1_q");
  EXPECT_EQ(parse_config_name(base + "_o2_g4x4x1_q"), c);
  EXPECT_FALSE(parse_config_name(base + "_o2_g4x4x1").value().repack);
  for (const char* bad : {"_q_g4x4x1", "_qq", "_q1", "_q_o2", "q", "_Q"})
    EXPECT_FALSE(parse_config_name(base + bad).has_value()) << bad;
  // Over the sample of every layout: the repack name is distinct and reads back as itself.
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T})
      for (GemmConfig s : tuner::coverage_sample(kSm90, a, b)) {
        if (s.reduces()) continue;
        s.repack = true;
        EXPECT_EQ(parse_config_name(config_name(s)), s) << config_name(s);
        EXPECT_TRUE(config_name(s).ends_with("_q")) << config_name(s);
      }
}

// 2999x3001x2003 nn: every leading dimension odd. Fitted with repack, A and B count as aligned
// (they are copied into aligned rows), C keeps its own narrowing; the kernel instance is the one
// an aligned A and B would get.
TEST(Config, RepackFitsPackedOperandsAtFullWidth) {
  Problem p = Problem::packed(Op::N, Op::N, 2999, 3001, 2003);
  p.a = p.b = p.c = reinterpret_cast<float*>(std::uintptr_t(0x1000));
  ASSERT_EQ(p.a_alignment(), 1);
  ASSERT_EQ(p.b_alignment(), 1);
  ASSERT_EQ(p.c_alignment(), 1);
  GemmConfig plain;
  GemmConfig repack = plain;
  repack.repack = true;
  EXPECT_EQ(reason(repack), "");
  EXPECT_TRUE(repack.packs_a(p));
  EXPECT_TRUE(repack.packs_b(p));
  EXPECT_FALSE(plain.packs_a(p) || plain.packs_b(p));
  const GemmConfig fitted = repack.fitted_to(p);
  EXPECT_TRUE(fitted.repack);
  EXPECT_EQ(fitted.width_a(), 4);
  EXPECT_EQ(fitted.width_b(), 4);
  EXPECT_EQ(fitted.width_c(), 1);
  EXPECT_EQ(config_name(fitted), "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_g4x4x1_q");
  EXPECT_FALSE(fitted.can_implement(p).has_value()) << *fitted.can_implement(p);
  EXPECT_EQ(fitted.fitted_to(p), fitted);
  EXPECT_TRUE(fitted.needs_workspace());
  // The same binary as the aligned instance: repack is not a template parameter.
  GemmConfig aligned_ab = plain;
  aligned_ab.align_c = 1;
  EXPECT_EQ(fitted.name_expression(), aligned_ab.name_expression());
  // Without repack the same widths cannot read this data; fitted plainly, everything narrows.
  GemmConfig unpacked = fitted;
  unpacked.repack = false;
  ASSERT_TRUE(unpacked.can_implement(p).has_value());
  EXPECT_NE(unpacked.can_implement(p)->find("A is accessed 4 floats at a time; its data allows 1"),
            std::string::npos);
  EXPECT_EQ(plain.fitted_to(p).width_a(), 1);
  EXPECT_EQ(plain.fitted_to(p).width_b(), 1);
  EXPECT_FALSE(plain.fitted_to(p).needs_workspace());

  // Only A misaligned: A packed, B read as it is.
  Problem only_a = Problem::packed(Op::T, Op::N, 63, 64, 64);  // A is K x M: rows of 63
  only_a.a = only_a.b = only_a.c = p.c;
  GemmConfig tn = repack;
  tn.op_a = Op::T;
  ASSERT_EQ(only_a.a_alignment(), 1);
  ASSERT_EQ(only_a.b_alignment(), 4);
  EXPECT_TRUE(tn.packs_a(only_a));
  EXPECT_FALSE(tn.packs_b(only_a));
  EXPECT_TRUE(tn.fitted_to(only_a).repack);
  EXPECT_FALSE(tn.fitted_to(only_a).can_implement(only_a).has_value());

  // Nothing to pack: repack is cleared, so that one instance has one name.
  Problem aligned = Problem::packed(Op::N, Op::N, 4096, 4096, 4096);
  aligned.a = aligned.b = aligned.c = p.c;
  EXPECT_EQ(repack.fitted_to(aligned), plain.fitted_to(aligned));
  Problem only_c = Problem::packed(Op::N, Op::T, 64, 63, 64);  // C's rows of 63; A and B rows of 64
  only_c.a = only_c.b = only_c.c = p.c;
  ASSERT_EQ(only_c.alignment(), 1);
  GemmConfig nt = repack;
  nt.op_b = Op::T;
  EXPECT_FALSE(nt.fitted_to(only_c).repack);
  EXPECT_EQ(nt.fitted_to(only_c).width_c(), 1);
  GemmConfig scalar = repack;  // vec 1: no access to widen
  scalar.vec = 1;
  EXPECT_FALSE(scalar.fitted_to(p).repack);
  EXPECT_FALSE(scalar.packs_a(p));
}

// A tile that streams B reads A one float at a time: repack packs only B there.
TEST(Config, StagedCIsNamedBeforeRepackAndKeptOnlyWhereCIsNarrowed) {
  const Problem odd_n =
      with_aligned_pointers(Problem::packed(Op::N, Op::N, 64, 1001, 64));  // C one float aligned
  GemmConfig staged;
  staged.stage_c = true;
  EXPECT_EQ(reason(staged), "");
  const GemmConfig fitted = staged.fitted_to(odd_n);
  ASSERT_TRUE(fitted.stage_c);
  EXPECT_EQ(config_name(fitted), "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_g4x1x1_e");
  EXPECT_EQ(parse_config_name(config_name(fitted)), fitted);
  EXPECT_EQ(fitted.name_expression(),
            "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,1,8,1,1,1,0,0,false,false,4,1,1,true>");
  GemmConfig both = staged;
  both.repack = true;
  EXPECT_EQ(config_name(both.fitted_to(odd_n)),
            "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_g4x4x1_e_q");
  // Aligned C: nothing to stage, the flag is cleared and the instance is the plain one.
  const Problem aligned = Problem::packed(Op::N, Op::N, 64, 1024, 64);
  EXPECT_FALSE(staged.fitted_to(aligned).stage_c);
  EXPECT_EQ(staged.fitted_to(aligned).name_expression(), GemmConfig{}.name_expression());
  // Reductions and streamed B have no shared-memory tiles to stage through.
  GemmConfig reduction = staged;
  reduction.bm = reduction.wm = 4, reduction.bn = reduction.wn = 1, reduction.tm = 1,
  reduction.tn = 1;
  reduction.k_lanes = 8;
  EXPECT_FALSE(reduction.can_stage_c());
  EXPECT_NE(reason(reduction).find("stage_c"), std::string::npos) << reason(reduction);
  EXPECT_FALSE(parse_config_name("sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_q_e").has_value());
}

// C written in aligned windows: named after "_e" (which excludes it), kept only where C is
// narrowed below a chunk, the template's last flag.
TEST(Config, WindowedCIsNamedAfterStagedAndKeptOnlyWhereCIsNarrowed) {
  const Problem odd_n = with_aligned_pointers(Problem::packed(Op::N, Op::T, 64, 1001, 64));
  GemmConfig windowed;
  windowed.op_b = Op::T;
  windowed.window_c = true;
  EXPECT_EQ(reason(windowed), "");
  const GemmConfig fitted = windowed.fitted_to(odd_n);
  ASSERT_TRUE(fitted.window_c);
  EXPECT_EQ(config_name(fitted), "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_g4x4x1_c");
  EXPECT_EQ(parse_config_name(config_name(fitted)), fitted);
  EXPECT_EQ(
      fitted.name_expression(),
      "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,1,8,1,1,1,0,0,false,true,4,4,1,false,false,true>");
  GemmConfig tail = fitted;
  tail.split_k = 4, tail.split_tail = true;
  EXPECT_EQ(config_name(tail), "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k4_r8_g4x4x1_c_h");
  EXPECT_EQ(
      tail.name_expression(),
      "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,4,8,1,1,1,0,0,false,true,4,4,1,false,true,true>");
  EXPECT_EQ(parse_config_name(config_name(tail)), tail);
  // Aligned C: the plain instance.
  EXPECT_FALSE(windowed.fitted_to(Problem::packed(Op::N, Op::T, 64, 1024, 64)).window_c);
  // Staged or windowed, not both; no windows for reductions nor for one-float chunks.
  GemmConfig both = windowed;
  both.stage_c = true;
  EXPECT_NE(reason(both).find("window_c"), std::string::npos) << reason(both);
  EXPECT_FALSE(both.fitted_to(odd_n).window_c);
  EXPECT_TRUE(both.fitted_to(odd_n).stage_c);
  EXPECT_FALSE(
      parse_config_name("sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_g4x4x1_c_e").has_value());
  GemmConfig reduction = windowed;
  reduction.bm = reduction.wm = 4, reduction.bn = reduction.wn = 1, reduction.tm = 1,
  reduction.tn = 1;
  reduction.k_lanes = 8;
  EXPECT_FALSE(reduction.can_window_c());
  EXPECT_NE(reason(reduction).find("window_c"), std::string::npos) << reason(reduction);
  GemmConfig scalar = windowed;
  scalar.vec = 1;
  EXPECT_FALSE(scalar.can_window_c());
}

// A tile that streams B takes chunks of B's access width (Traits::VN): where B is narrowed, C's
// chunks are single columns, so there is nothing to write in windows.
TEST(Config, StreamedNarrowedBLeavesNoWindowsForC) {
  auto streaming = parse_config_name("sgemm_nn_2x256x8_w2x128_t2x4_s2_v4_p4_k1_r8_c");
  ASSERT_TRUE(streaming && streaming->streams_b());
  const Problem odd_n = with_aligned_pointers(Problem::packed(Op::N, Op::N, 2, 1001, 64));
  const GemmConfig narrowed = streaming->fitted_to(odd_n);
  EXPECT_EQ(narrowed.width_b(), 1);
  EXPECT_FALSE(narrowed.window_c);
  EXPECT_FALSE(narrowed.can_window_c());
  EXPECT_EQ(config_name(narrowed), "sgemm_nn_2x256x8_w2x128_t2x4_s2_v4_p4_k1_r8_g4x1x1");
  // B aligned, C narrowed (ldc odd): 4-column chunks, written in windows.
  Problem odd_c = with_aligned_pointers(Problem::packed(Op::N, Op::N, 2, 1024, 64));
  odd_c.ldc = 1025;
  EXPECT_TRUE(streaming->fitted_to(odd_c).window_c);
}

TEST(Config, RepackOfStreamingTilesPacksOnlyB) {
  auto streaming = parse_config_name("sgemm_nn_1x256x8_w1x128_t1x4_s2_v4_p4_k8_r8_o2_q");
  ASSERT_TRUE(streaming && streaming->streams_b() && streaming->repack);
  EXPECT_EQ(reason(*streaming), "");
  Problem odd_k = Problem::packed(Op::N, Op::N, 1, 4096, 4095);  // A's row of 4095; B, C aligned
  odd_k.a = odd_k.b = odd_k.c = reinterpret_cast<float*>(std::uintptr_t(0x1000));
  EXPECT_FALSE(streaming->packs_a(odd_k));
  EXPECT_FALSE(streaming->fitted_to(odd_k).repack);
  Problem odd_n = Problem::packed(Op::N, Op::N, 1, 4095, 4096);  // B's and C's rows of 4095
  odd_n.a = odd_n.b = odd_n.c = odd_k.c;
  const GemmConfig fitted = streaming->fitted_to(odd_n);
  EXPECT_TRUE(fitted.repack);
  EXPECT_TRUE(fitted.packs_b(odd_n));
  EXPECT_EQ(fitted.width_b(), 4);
  EXPECT_EQ(fitted.width_c(), 1);
  EXPECT_FALSE(fitted.can_implement(odd_n).has_value());
}

TEST(Config, RepackIsForTileKernelsOnly) {
  auto reduction = parse_config_name("sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8");
  ASSERT_TRUE(reduction && reduction->reduces());
  EXPECT_EQ(reason(*reduction), "");
  reduction->repack = true;
  EXPECT_NE(reason(*reduction).find("repack is for the tile kernels"), std::string::npos)
      << reason(*reduction);
  GemmConfig split;
  split.split_k = 4, split.repack = true;  // split-K tiles may repack
  EXPECT_EQ(reason(split), "");
}

// The tensor-core variants (math > 0): their thread tile is the mma accumulator layout, their
// padding their own, and their shared memory keeps K-contiguous operands as rows of K.
TEST(Config, TensorCoreRules) {
  const DeviceLimits h100 = DeviceLimits::for_arch("sm_90");
  GemmConfig c;
  c.bm = c.bn = 128, c.bk = 16, c.wm = 64, c.wn = 32, c.tm = 8, c.tn = 8, c.stages = 3, c.math = 3;
  EXPECT_FALSE(c.validate(h100).has_value()) << *c.validate(h100);
  EXPECT_EQ(config_name(c), "sgemm_nn_128x128x16_w64x32_t8x8_s3_v4_p4_k1_r8_m3");
  EXPECT_EQ(parse_config_name(config_name(c)), c);
  EXPECT_TRUE(c.uses_tensor_cores());
  // nn: A as 128 rows of bk + 4, B as bk rows of 128 + 8, three stages.
  EXPECT_EQ(c.smem_bytes(), 3 * (128 * 20 + 16 * 136) * 4);
  GemmConfig t = c;
  t.op_a = Op::T, t.op_b = Op::T;  // A as bk rows of 128 + 8, B as 128 rows of bk + 4
  EXPECT_EQ(t.smem_bytes(), 3 * (16 * 136 + 128 * 20) * 4);

  GemmConfig wrong_tile = c;
  wrong_tile.tm = 4, wrong_tile.tn = 16;
  ASSERT_TRUE(wrong_tile.validate(h100).has_value());
  EXPECT_NE(wrong_tile.validate(h100)->find("mma accumulator layout"), std::string::npos);
  GemmConfig padded = c;
  padded.pad = 0;
  EXPECT_TRUE(padded.validate(h100).has_value());
  GemmConfig big = c;
  big.wn = 64, big.tn = 16;  // math 3 keeps a second set of 8 x 16 accumulators: too many
  EXPECT_TRUE(big.validate(h100).has_value());
  big.math = 2;
  EXPECT_FALSE(big.validate(h100).has_value());
  DeviceLimits turing = h100;
  turing.cc_major = 7, turing.cc_minor = 5;
  EXPECT_TRUE(c.validate(turing).has_value());
  GemmConfig bad = c;
  bad.math = 5;
  EXPECT_TRUE(bad.validate(h100).has_value());
  // 1xTF32 is verified at TF32's tolerance, the 3xTF32 variants at FP32's.
  GemmConfig tf32 = c;
  tf32.math = 1;
  EXPECT_GT(verification_tolerance(tf32, 1024), 50 * verification_tolerance(c, 1024));
  EXPECT_EQ(verification_tolerance(c, 1024), fp32_tolerance(1024));
  EXPECT_EQ(verification_tolerance(tf32, 1024), precision_tolerance(Precision::tf32, 1024));
  GemmConfig three = c;
  three.math = 2;
  EXPECT_EQ(verification_tolerance(three, 1024), precision_tolerance(Precision::fp32, 1024));
  EXPECT_EQ(precision_tolerance(Precision::fp32, 1024), fp32_tolerance(1024));
}

TEST(Config, WarpgroupRules) {
  const DeviceLimits h100 = DeviceLimits::for_arch("sm_90");
  GemmConfig c;
  c.bm = c.bn = 128, c.bk = 32, c.wm = 16, c.wn = 128, c.tm = 2, c.tn = 32, c.stages = 3,
  c.math = 3, c.wgmma = 1;
  EXPECT_FALSE(c.validate(h100).has_value()) << *c.validate(h100);
  EXPECT_EQ(config_name(c), "sgemm_nn_128x128x32_w16x128_t2x32_s3_v4_p4_k1_r8_m3_wg1");
  EXPECT_EQ(parse_config_name(config_name(c)), c);
  EXPECT_EQ(c.threads(), 256);  // two warpgroups of 64 rows
  // Three stages of two planes of 128 x 32 floats for each operand, alignment slack, barriers.
  EXPECT_EQ(c.smem_bytes(), 3 * 2 * (128 + 128) * 32 * 4 + 1024 + 64);
  EXPECT_TRUE(c.needs_workspace());
  GemmConfig one_plane = c;
  one_plane.math = 1;
  EXPECT_EQ(one_plane.smem_bytes(), 3 * (128 + 128) * 32 * 4 + 1024 + 64);

  auto rejects = [&](GemmConfig bad, const std::string& why, const DeviceLimits& limits) {
    const auto reason = bad.validate(limits);
    ASSERT_TRUE(reason.has_value()) << config_name(bad);
    EXPECT_NE(reason->find(why), std::string::npos) << *reason;
  };
  GemmConfig fma = c;
  fma.math = 0, fma.wm = 16, fma.tm = 2;
  rejects(fma, "math 1 to 4", h100);
  GemmConfig ampere = c;
  rejects(ampere, "sm_90", DeviceLimits::for_arch("sm_80"));
  GemmConfig slice = c;
  slice.bk = 16;
  rejects(slice, "bk 32", h100);
  GemmConfig warp = c;
  warp.wm = 32, warp.tm = 4, warp.wn = 64,
  warp.tn = 16;  // a valid mma.sync warp tile, not a warpgroup one
  rejects(warp, "wm 16", h100);
  GemmConfig single = c;
  single.stages = 1;
  rejects(single, "stages 2 to 4", h100);
  GemmConfig repacked = c;
  repacked.repack = true;
  rejects(repacked, "no repack", h100);
  GemmConfig wide = c;
  wide.bn = wide.wn = 256, wide.tn = 64;  // math 3's second accumulator set: 256 registers
  EXPECT_TRUE(wide.validate(h100).has_value());
  wide.math = 1;
  EXPECT_FALSE(wide.validate(h100).has_value()) << *wide.validate(h100);
  GemmConfig deep = c;
  deep.stages = 4;  // 4 x 64 KiB of shared memory
  EXPECT_TRUE(deep.validate(h100).has_value());

  // Odd leading dimensions: A and B are read from the aligned split copies, C as its data allows.
  Problem p = Problem::packed(Op::T, Op::N, 1001, 999, 77);
  p.ldc = 1001;
  const GemmConfig fitted = c.fitted_to(p);
  EXPECT_EQ(fitted.width_a(), 4);
  EXPECT_EQ(fitted.width_b(), 4);
  EXPECT_EQ(fitted.width_c(), 1);
  EXPECT_FALSE(fitted.repack);
  GemmConfig asked =
      c;  // a repack twin (the tuner proposes one for misaligned data) stays a plain one
  asked.repack = true;
  EXPECT_FALSE(asked.fitted_to(p).repack);
  EXPECT_FALSE(asked.packs_a(p) || asked.packs_b(p));
  GemmConfig tn = fitted;
  tn.op_a = Op::T;
  EXPECT_FALSE(tn.can_implement(p).has_value()) << *tn.can_implement(p);
  p.pointer_arrays = true;
  ASSERT_TRUE(tn.can_implement(p).has_value());
  EXPECT_NE(tn.can_implement(p)->find("pointer arrays"), std::string::npos);
}

// The warpgroup instances have an entry point of their own (their second argument holds the
// tensor maps). They read an operand in place with math 1 where it is stored along K with rows the
// copy unit can address; everything else is split and copied first.
TEST(Config, WarpgroupReadsKMajorAlignedOperandsInPlace) {
  GemmConfig c;
  c.bm = 128, c.bn = 256, c.bk = 32, c.wm = 16, c.wn = 256, c.tm = 2, c.tn = 64, c.stages = 4,
  c.math = 1, c.wgmma = 1;
  EXPECT_EQ(c.name_expression().rfind("gemmtune::sgemm_wgmma<128,256,32,", 0), 0u)
      << c.name_expression();
  auto in_place = [&](Op oa, Op ob, const Problem& p) {
    GemmConfig x = c;
    x.op_a = oa, x.op_b = ob;
    return std::pair{x.reads_a_in_place(p), x.reads_b_in_place(p)};
  };
  using P = std::pair<bool, bool>;
  EXPECT_EQ(in_place(Op::N, Op::N, Problem::packed(Op::N, Op::N, 4096, 4096, 4096)),
            P(true, false));
  EXPECT_EQ(in_place(Op::N, Op::T, Problem::packed(Op::N, Op::T, 4096, 4096, 4096)), P(true, true));
  EXPECT_EQ(in_place(Op::T, Op::N, Problem::packed(Op::T, Op::N, 4096, 4096, 4096)),
            P(false, false));
  EXPECT_EQ(in_place(Op::T, Op::T, Problem::packed(Op::T, Op::T, 4096, 4096, 4096)),
            P(false, true));
  // Odd M and N do not matter (the copy unit fills past the edges), rows along K do.
  EXPECT_EQ(in_place(Op::N, Op::T, Problem::packed(Op::N, Op::T, 4095, 4097, 1024)), P(true, true));
  EXPECT_EQ(in_place(Op::N, Op::T, Problem::packed(Op::N, Op::T, 4096, 4096, 1023)),
            P(false, false));
  Problem padded = Problem::packed(Op::N, Op::T, 100, 100, 1023, 3);
  padded.lda = 1024, padded.stride_a = 1024 * 100;
  EXPECT_EQ(in_place(Op::N, Op::T, padded), P(true, false));
  padded.stride_a = 1024 * 99;  // matrices overlap
  EXPECT_EQ(in_place(Op::N, Op::T, padded), P(false, false));
  Problem offset = Problem::packed(Op::N, Op::T, 64, 64, 64);
  std::vector<float> storage(64 * 64 + 1);
  offset.a = storage.data() + 1;  // one float off a 16-byte boundary: copied
  EXPECT_FALSE(in_place(Op::N, Op::T, offset).first);
  // Split math needs the copy's small parts; FMA and mma.sync configs read their own way.
  GemmConfig split = c;
  split.bn = split.wn = 128, split.tn = 32, split.stages = 3, split.math = 3;
  EXPECT_FALSE(split.reads_a_in_place(Problem::packed(Op::N, Op::T, 4096, 4096, 4096)));
  EXPECT_FALSE(GemmConfig{}.reads_a_in_place(Problem::packed(Op::N, Op::T, 4096, 4096, 4096)));
  EXPECT_EQ(GemmConfig{}.name_expression().rfind("gemmtune::sgemm<", 0), 0u);
}

TEST(Config, SplitTailIsNamedLastAndOnlyForSplitTileKernelsOfOneMatrix) {
  GemmConfig tail;
  tail.split_k = 8;
  tail.split_tail = true;
  EXPECT_EQ(reason(tail), "");
  EXPECT_EQ(config_name(tail), "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k8_r8_h");
  EXPECT_EQ(parse_config_name(config_name(tail)), tail);
  EXPECT_EQ(
      tail.name_expression(),
      "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,8,8,1,1,1,0,0,false,false,4,4,4,false,true>");
  GemmConfig staged = tail;
  staged.stage_c = true;
  EXPECT_EQ(config_name(staged), "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k8_r8_e_h");
  EXPECT_EQ(staged.name_expression(),
            "gemmtune::sgemm<128,128,8,64,32,8,8,2,4,4,8,8,1,1,1,0,0,false,false,4,4,4,true,true>");
  EXPECT_FALSE(parse_config_name("sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k8_r8_h_e").has_value());
  // Nothing to split: split_k 1, or a reduction.
  GemmConfig unsplit = tail;
  unsplit.split_k = 1;
  EXPECT_NE(reason(unsplit).find("split_tail"), std::string::npos) << reason(unsplit);
  // One matrix: the grid has no room for a batch.
  Problem batched = with_aligned_pointers(Problem::packed(Op::N, Op::N, 1531, 1531, 1531, 2));
  const GemmConfig fitted = tail.fitted_to(batched);
  ASSERT_TRUE(fitted.can_implement(batched).has_value());
  EXPECT_NE(fitted.can_implement(batched)->find("batch"), std::string::npos)
      << *fitted.can_implement(batched);
  batched.batch = 1;
  EXPECT_FALSE(fitted.can_implement(batched).has_value()) << *fitted.can_implement(batched);
  // Blocks: the whole waves' tiles once, the rest split_k times.
  EXPECT_EQ(tail.blocks_for(144, 132), 132 + 12 * 8);
  EXPECT_EQ(tail.blocks_for(264, 132), 264);  // no partial wave: nothing split
  EXPECT_EQ(tail.blocks_for(100, 132), 800);  // under one wave: every tile split
  GemmConfig all = tail;
  all.split_tail = false;
  EXPECT_EQ(all.blocks_for(144, 132), 144 * 8);
}
