// The family interface and the registry (gemmtune/family.hpp): a config name finds its family by
// its prefix, an unknown prefix is an error naming the known ones, clashing families are refused,
// and routing through the sgemm family keeps the binary-cache keys and the template hash what
// they were before the registry (2026-12-03).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gemmtune/compiler.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/sgemm/family.hpp"
#include "gemmtune/templates.hpp"
#include "support/refusal.hpp"

using namespace gemmtune;
using gemmtune::test::refusal;

namespace {

// A family of the test's own: a name, a prefix and a source, no kernels.
class FakeFamily final : public KernelFamily {
 public:
  FakeFamily(std::string name, std::string prefix, std::string db_name = "")
      : name_(std::move(name)), prefix_(std::move(prefix)), source_("// " + name_) {
    db_.name = db_name.empty() ? name_ : db_name;
  }
  std::string_view name() const override { return name_; }
  std::string_view prefix() const override { return prefix_; }
  std::string_view source() const override { return source_; }
  std::string_view source_name() const override { return "fake.cu"; }
  const db::FamilySchema& db_family() const override { return db_; }
  std::optional<KernelInstance> parse(std::string_view config_name) const override {
    if (!owns(config_name)) return std::nullopt;
    return KernelInstance{
        "fake<" + std::string(config_name.substr(prefix_.size() + 1)) + ">", {}, false};
  }

 private:
  std::string name_, prefix_, source_;
  db::FamilySchema db_;
};

// The binary-cache key as kernel.cpp computed it before the family interface (at ea55ed8): the
// source, then the name expression, arch, NVRTC version and the defines of the pack and
// prescale kernels.
std::string key_before(const GemmConfig& c, const std::string& arch) {
  std::string text = c.name_expression() + '\n' + arch + "\nnvrtc " + nvrtc_version_string();
  if (c.repack) text += "\n-DGEMMTUNE_PACK_OPERAND";
  if (c.wgmma) text += "\n-DGEMMTUNE_PACK_SPLIT";
  if (c.prescale_c) text += "\n-DGEMMTUNE_PRESCALE_C";
  return db::content_hash(std::string(templates::sgemm_source()) + '\n' + text);
}

// Configs of each kind of instance: plain, repack, warpgroup, prescale_c, streamed.
const std::vector<std::string> kNames{
    "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8",
    "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_g4x4x1_q",
    "sgemm_nn_128x128x32_w16x128_t2x32_s3_v4_p4_k1_r8_m3_wg1",
    "sgemm_nt_1x1x8_w1x1_t1x1_s2_v4_p4_k64_r8_l32_j4_z",
    "sgemm_nn_2x256x8_w2x128_t2x4_s2_v4_p4_k1_r8_c",
};

}  // namespace

TEST(Family, TheSgemmFamilyIsRegistered) {
  ASSERT_EQ(families().size(), 1u);
  const KernelFamily& sgemm = *families().front();
  EXPECT_EQ(&sgemm, &sgemm_kernel_family());
  EXPECT_EQ(sgemm.name(), "sgemm");
  EXPECT_EQ(sgemm.prefix(), "sgemm");
  EXPECT_EQ(sgemm.source(), templates::sgemm_source());
  EXPECT_EQ(sgemm.source_name(), "gemmtune_sgemm.cu");
  EXPECT_EQ(sgemm.db_family().name, "sgemm");
  EXPECT_EQ(family_registry().prefixes(), "sgemm");
  // The database's families are the registry's.
  ASSERT_EQ(kernel_families().size(), 1u);
  EXPECT_EQ(kernel_families().front().name, sgemm.db_family().name);
  EXPECT_EQ(kernel_families().front().knobs.size(), sgemm.db_family().knobs.size());
}

TEST(Family, AConfigNameFindsItsFamilyByItsPrefix) {
  for (const std::string& name : kNames) EXPECT_EQ(&family_of(name), &sgemm_kernel_family());
  EXPECT_EQ(&family_of(config_name(GemmConfig{})), &sgemm_kernel_family());
  // The prefix and '_' start a name: "sgemm" alone, "sgemmx_..." and "hgemm_..." are none.
  for (const char* other : {"sgemm", "sgemmx_nn_1x1", "hgemm_nn_1x1", ""})
    EXPECT_EQ(family_registry().find(other), nullptr) << other;
}

TEST(Family, AnUnknownPrefixIsAnErrorNamingTheKnownOnes) {
  const std::string why = refusal([] { family_of("hgemm_nn_128x128x8"); });
  EXPECT_NE(why.find("'hgemm_nn_128x128x8'"), std::string::npos) << why;
  EXPECT_NE(why.find("known prefixes: sgemm"), std::string::npos) << why;
  FamilyRegistry two;
  const FakeFamily a("agemm", "agemm"), b("bgemm", "bgemm");
  two.add(a);
  two.add(b);
  EXPECT_EQ(&two.of("bgemm_1"), &b);
  const std::string both = refusal([&] { two.of("cgemm_1"); });
  EXPECT_NE(both.find("known prefixes: agemm, bgemm"), std::string::npos) << both;
  EXPECT_NE(refusal([] { FamilyRegistry().of("sgemm_nn"); }).find("known prefixes: none"),
            std::string::npos);
}

TEST(Family, ClashingFamiliesAreRefused) {
  FamilyRegistry registry;
  const FakeFamily sgemm("sgemm", "sgemm");
  registry.add(sgemm);
  // The same prefix, a prefix whose names are sgemm's ("sgemm_x_..." starts "sgemm_"), a prefix
  // whose names sgemm's could be, the same name, an empty prefix, a database name of another.
  const FakeFamily same("other", "sgemm"), longer("longer", "sgemm_x"), shorter("s", "s");
  const FakeFamily named("sgemm", "sgemm2"), empty("empty", ""),
      stored_as("dgemm", "dgemm", "sgemm");
  for (const FakeFamily* bad : {&same, &longer, &named, &empty, &stored_as}) {
    const std::string why = refusal([&] { registry.add(*bad); });
    EXPECT_NE(why.find("kernel family '" + std::string(bad->name()) + "' is not registered"),
              std::string::npos)
        << why;
  }
  EXPECT_NE(refusal([&] { registry.add(same); }).find("clashes with the prefix 'sgemm'"),
            std::string::npos);
  EXPECT_EQ(refusal([&] { registry.add(shorter); }), "");  // "s_" starts no "sgemm_" name
  // Neither is a prefix of the other with its '_': they do not clash.
  const FakeFamily near("sgemmx", "sgemmx");
  EXPECT_EQ(refusal([&] { registry.add(near); }), "");
  ASSERT_EQ(registry.families().size(), 3u);
  EXPECT_EQ(&registry.of("sgemmx_1"), &near);
  EXPECT_EQ(&registry.of("sgemm_1"), &sgemm);
  EXPECT_EQ(&registry.of("s_1"), &shorter);
}

// Routing through the family leaves the binary-cache keys, the identity and the template hash
// as they were: binaries in existing databases stay found.
TEST(Family, BinaryKeysAreWhatTheyWere) {
  for (const std::string& name : kNames) {
    const std::optional<GemmConfig> c = parse_config_name(name);
    ASSERT_TRUE(c) << name;
    for (const std::string arch : {"sm_80", "sm_90"}) {
      EXPECT_EQ(binary_key(*c, arch), key_before(*c, arch)) << name << ' ' << arch;
      const std::optional<KernelInstance> instance = family_of(name).parse(name);
      ASSERT_TRUE(instance) << name;
      EXPECT_EQ(*instance, kernel_instance(*c)) << name;
      EXPECT_EQ(sgemm_kernel_family().binary_key(*instance, arch), key_before(*c, arch)) << name;
      EXPECT_EQ(binary_identity(*c, arch), binary_identity(*instance, arch)) << name;
    }
  }
  EXPECT_EQ(template_hash(), db::content_hash(templates::sgemm_source()));
  EXPECT_EQ(sgemm_kernel_family().parse("hgemm_nn_1"), std::nullopt);
}

// A warpgroup instance is compiled for sm_90a when asked for sm_90; its key keeps the arch asked.
TEST(Family, AWarpgroupInstanceIsCompiledForTheArchSpecificTarget) {
  const KernelInstance wgmma = *sgemm_kernel_family().parse(kNames[2]);
  const KernelInstance plain = *sgemm_kernel_family().parse(kNames[0]);
  EXPECT_TRUE(wgmma.arch_specific);
  EXPECT_FALSE(plain.arch_specific);
  EXPECT_EQ(compile_arch(wgmma, "sm_90"), "sm_90a");
  EXPECT_EQ(compile_arch(wgmma, "sm_100"), "sm_100");
  EXPECT_EQ(compile_arch(plain, "sm_90"), "sm_90");
  EXPECT_EQ(binary_identity(wgmma, "sm_90").substr(wgmma.name_expression.size()),
            "\nsm_90\nnvrtc " + nvrtc_version_string() + "\n-DGEMMTUNE_PACK_SPLIT");
}

// With more than one family the version of the kernels covers each family's source.
TEST(Family, TheTemplateHashOfSeveralFamiliesCoversEach) {
  const FakeFamily a("agemm", "agemm"), b("bgemm", "bgemm");
  FamilyRegistry one, two;
  one.add(a);
  two.add(a);
  two.add(b);
  EXPECT_EQ(one.source_hash(), a.source_hash());
  EXPECT_EQ(two.source_hash(),
            db::content_hash("agemm " + a.source_hash() + "\nbgemm " + b.source_hash() + "\n"));
  EXPECT_EQ(family_registry().source_hash(), sgemm_kernel_family().source_hash());
}
