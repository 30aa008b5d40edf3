// A second kernel family registered at run time (tests/support/naive_family): the registry finds
// it by its prefix and refuses clashes with it, its names parse and validate, its binaries are
// keyed by its own source, its configs go into a database and come back, and the chooser takes a
// tuned best of it for the exact problem. The sgemm family's keys, rows and template hash stay
// what they were. No GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "gemmtune/choice.hpp"
#include "gemmtune/compiler.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/sgemm/family.hpp"
#include "gemmtune/templates.hpp"
#include "support/naive_family/naive_args.h"
#include "support/naive_family/naive_family.hpp"
#include "support/refusal.hpp"
#include "support/scratch.hpp"

namespace gemmtune::test {
namespace {

// A family of the test's own with a name and a prefix, no kernels.
class Named final : public KernelFamily {
 public:
  Named(std::string name, std::string prefix) : name_(std::move(name)), prefix_(std::move(prefix)) {
    db_.name = name_;
  }
  std::string_view name() const override { return name_; }
  std::string_view prefix() const override { return prefix_; }
  std::string_view source() const override { return "// named"; }
  std::string_view source_name() const override { return "named.cu"; }
  const db::FamilySchema& db_family() const override { return db_; }
  std::optional<KernelInstance> parse(std::string_view) const override { return std::nullopt; }

 private:
  std::string name_, prefix_;
  db::FamilySchema db_;
};

const char* const kSgemm = "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8";

class NaiveFamily : public ::testing::Test {
 protected:
  void SetUp() override { register_naive_family(); }
};

TEST_F(NaiveFamily, IsRegisteredAfterTheBuiltInOnesAndFoundByItsPrefix) {
  ASSERT_EQ(families().size(), 2u);
  EXPECT_EQ(families()[0], &sgemm_kernel_family());
  EXPECT_EQ(families()[1], &naive_kernel_family());
  EXPECT_EQ(&family_of("naivegemm_nt_b128"), &naive_kernel_family());
  EXPECT_EQ(&family_of(kSgemm), &sgemm_kernel_family());
  EXPECT_EQ(family_registry().prefixes(), "sgemm, naivegemm");
  // The databases opened from now on know its knob column.
  ASSERT_EQ(kernel_families().size(), 2u);
  EXPECT_EQ(kernel_families()[1].name, "naive");
  EXPECT_EQ(sgemm_family().name, "sgemm");
  // The version of the built-in kernels is the sgemm source's still.
  EXPECT_EQ(template_hash(), sgemm_kernel_family().source_hash());
}

TEST_F(NaiveFamily, ClashesWithItAreRefused) {
  EXPECT_NE(refusal([] {
              register_family(naive_kernel_family());
            }).find("a family of that name is registered"),
            std::string::npos);
  const Named same_prefix("other", "naivegemm"), longer("longer", "naivegemm_x"),
      same_name("naive", "plaingemm"), empty("empty", "");
  for (const KernelFamily* f : {&same_prefix, &longer, &same_name, &empty})
    EXPECT_NE(refusal([f] { register_family(*f); }), "") << f->name();
  EXPECT_NE(refusal([&] { register_family(longer); }).find("clashes with the prefix 'naivegemm'"),
            std::string::npos);
  EXPECT_EQ(families().size(), 2u) << "a refused family is not added";
}

TEST_F(NaiveFamily, NamesParseValidateAndLaunch) {
  const KernelFamily& f = naive_kernel_family();
  const auto instance = f.parse("naivegemm_tn_b64");
  ASSERT_TRUE(instance);
  EXPECT_EQ(instance->name_expression, "gemmtune::naive_gemm<true,false,64>");
  EXPECT_TRUE(instance->defines.empty());
  EXPECT_FALSE(instance->arch_specific);
  // `_tf32` is a launch argument: the same instance, and binary, as the plain config's.
  EXPECT_EQ(f.parse("naivegemm_tn_b64_tf32")->name_expression,
            "gemmtune::naive_gemm<true,false,64>");
  EXPECT_EQ(f.precision("naivegemm_tn_b64_tf32"), Precision::tf32);
  EXPECT_EQ(f.precision("naivegemm_tn_b64"), Precision::ieee);
  for (const char* bad :
       {"naivegemm_nn_b32", "naivegemm_nn_b", "naivegemm_xn_b64", "naivegemm_nn",
        "naivegemm_nn_b128x", "naivegemm_nn_b128_tf", "naivegemm_nn_tf32", kSgemm})
    EXPECT_FALSE(f.parse(bad)) << bad;

  DeviceLimits small;
  small.max_threads_per_block = 128;
  EXPECT_FALSE(f.validate("naivegemm_nn_b128", small));
  EXPECT_TRUE(f.validate("naivegemm_nn_b256", small));
  EXPECT_TRUE(f.validate("naivegemm_nn_b32", DeviceLimits{}));

  const Problem p = shape_only_problem(Op::N, Op::T, 100, 30, 7, 3);
  EXPECT_FALSE(f.can_implement("naivegemm_nt_b256", p));
  EXPECT_TRUE(f.can_implement("naivegemm_nn_b256", p)) << "another layout";
  const auto shape = f.launch_shape("naivegemm_nt_b256", p);
  ASSERT_TRUE(shape);
  EXPECT_EQ(shape->grid.x, (100u * 30 + 255) / 256);
  EXPECT_EQ(shape->grid.y, 3u);
  EXPECT_EQ(shape->block.x, 256u);
  EXPECT_EQ(shape->smem_bytes, 0u);

  EXPECT_EQ(f.default_config(DeviceLimits{}, p), "naivegemm_nt_b128");
  EXPECT_EQ(f.candidate_configs(small, p),
            (std::vector<std::string>{"naivegemm_nt_b64", "naivegemm_nt_b128"}));
}

TEST_F(NaiveFamily, BinaryKeysAreItsOwnAndSgemmKeysStay) {
  const KernelFamily& f = naive_kernel_family();
  const KernelInstance instance = *f.parse("naivegemm_nn_b128");
  EXPECT_EQ(f.binary_key(instance, "sm_90"),
            db::content_hash(std::string(f.source()) + '\n' + binary_identity(instance, "sm_90")));
  EXPECT_NE(f.binary_key(instance, "sm_90"), f.binary_key(*f.parse("naivegemm_nn_b64"), "sm_90"));
  EXPECT_NE(f.binary_key(instance, "sm_90"), f.binary_key(instance, "sm_80"));
  // Its source is the argument blocks, then its kernel.
  EXPECT_NE(f.source().find("struct GemmArgs"), std::string_view::npos);
  EXPECT_NE(f.source().find("naive_gemm"), std::string_view::npos);
  EXPECT_EQ(f.source_hash(), db::content_hash(f.source()));
  // sgemm's key, through its GemmConfig entry point and through the interface, is unchanged.
  const GemmConfig c = *parse_config_name(kSgemm);
  EXPECT_EQ(binary_key(c, "sm_90"), db::content_hash(std::string(templates::sgemm_source()) + '\n' +
                                                     binary_identity(c, "sm_90")));
  EXPECT_EQ(binary_key(c, "sm_90"),
            sgemm_kernel_family().binary_key(*sgemm_kernel_family().parse(kSgemm), "sm_90"));
}

TEST_F(NaiveFamily, ConfigRowsRoundTripBesideSgemmRows) {
  const std::string file = (scratch_dir("naive_rows") / "tuning.db").string();
  db::Database db(file, db::OpenMode::read_write, kernel_families());
  const db::KernelConfig naive = *naive_kernel_family().db_row("naivegemm_tn_b256");
  EXPECT_EQ(naive.family, "naive");
  EXPECT_EQ(naive.op_a, 't');
  EXPECT_EQ(naive.op_b, 'n');
  EXPECT_EQ(naive.knobs.at("naive_block"), 256);
  EXPECT_EQ(naive.knobs.at("naive_tf32"), 0);
  const db::KernelConfig tf32 = *naive_kernel_family().db_row("naivegemm_tn_b256_tf32");
  EXPECT_EQ(tf32.knobs.at("naive_tf32"), 1);
  EXPECT_EQ(db.config(db.upsert_config(tf32)), tf32);
  const GemmConfig c = *parse_config_name(kSgemm);
  const db::Id naive_id = db.upsert_config(naive), sgemm_id = db.upsert_config(to_db(c));
  EXPECT_EQ(db.upsert_config(naive), naive_id) << "the same config, the same row";
  EXPECT_EQ(db.config(naive_id), naive);
  // An sgemm row holds no naive knob (NULL, left out) and reads back as the config it was.
  const db::KernelConfig sgemm_row = *db.config(sgemm_id);
  EXPECT_EQ(sgemm_row, to_db(c));
  EXPECT_FALSE(sgemm_row.knobs.count("naive_block"));
  EXPECT_EQ(from_db(sgemm_row), c);
  EXPECT_FALSE(from_db(naive)) << "a naive row is no GemmConfig";
  // The sgemm family's row through the interface is to_db's.
  EXPECT_EQ(sgemm_kernel_family().db_row(kSgemm), to_db(c));
  EXPECT_FALSE(naive_kernel_family().db_row(kSgemm));
}

TEST_F(NaiveFamily, TheSgemmFamilyAnswersThroughTheInterfaceAsGemmConfigDoes) {
  const KernelFamily& s = sgemm_kernel_family();
  const DeviceLimits limits;
  const Problem p = shape_only_problem(Op::N, Op::N, 256, 256, 256);
  EXPECT_EQ(s.validate(kSgemm, limits), parse_config_name(kSgemm)->validate(limits));
  EXPECT_EQ(s.can_implement(kSgemm, p), parse_config_name(kSgemm)->can_implement(p));
  EXPECT_TRUE(s.validate("sgemm_nn_bogus", limits));
  EXPECT_EQ(s.default_config(limits, p), config_name(default_config(limits, p)));
  EXPECT_TRUE(s.candidate_configs(limits, p).empty()) << "its space is the tuner's";
  EXPECT_FALSE(s.launch_shape(kSgemm, p)) << "it launches through GemmKernel";
}

// NVRTC compiles its instances without a GPU; the binary-cache row of one comes back checked
// (its entry point is the instance's), and another config's row is refused.
TEST_F(NaiveFamily, ItsInstancesCompileAndTheirBinaryRowsComeBack) {
  const KernelFamily& f = naive_kernel_family();
  for (const char* name : {"naivegemm_nn_b64", "naivegemm_tt_b256"}) {
    const KernelInstance instance = *f.parse(name);
    CompileResult r = compile_instance(f, instance, "sm_90");
    ASSERT_TRUE(r.ok) << name << ": " << r.log;
    EXPECT_TRUE(is_entry_of(instance.name_expression, r.lowered_name)) << r.lowered_name;
    EXPECT_GT(r.resources.registers, 0);
    EXPECT_EQ(r.resources.spill_stores, 0);
    const std::string key = f.binary_key(instance, "sm_90");
    const db::Binary row = to_binary(name, "sm_90", key, {r.cubin, r.lowered_name, r.resources}, 0);
    EXPECT_EQ(row.config_name, name);
    EXPECT_EQ(row.key, key);
    std::string why;
    const auto back = from_binary(name, instance.name_expression, 0, "sm_90", row, &why);
    ASSERT_TRUE(back) << why;
    EXPECT_EQ(back->cubin, r.cubin);
    EXPECT_EQ(back->lowered_name, r.lowered_name);
    const std::string other =
        name == std::string("naivegemm_nn_b64") ? "naivegemm_nn_b128" : "naivegemm_tt_b64";
    EXPECT_FALSE(from_binary(other, f.parse(other)->name_expression, 0, "sm_90", row, &why));
    EXPECT_NE(why.find("it was stored for config"), std::string::npos) << why;
  }
}

// A snapshot whose best for one problem is a naive config.
TuningSnapshot snapshot_with(const std::string& config, long long m, long long n, long long k) {
  TuningSnapshot s;
  s.database = "test.db";
  s.gpu_model = "test GPU";
  s.sm_count = 132;
  TunedBest b;
  b.problem = {Op::N, Op::N, m, n, k, 1, 4};
  b.config_name = config;
  b.config_id = 1;
  b.median_ms = 0.5;
  s.bests.push_back(b);
  s.top_configs.push_back(b);
  return s;
}

TEST_F(NaiveFamily, TheChooserTakesATunedNaiveBestForItsProblemAndLendsItNearby) {
  const Chooser chooser(DeviceLimits{}, snapshot_with("naivegemm_nn_b64", 96, 80, 64));
  const Choice exact = chooser.choose(shape_only_problem(Op::N, Op::N, 96, 80, 64));
  EXPECT_EQ(exact.source, ChoiceSource::exact) << exact.to_string();
  EXPECT_EQ(exact.family_config, "naivegemm_nn_b64");
  EXPECT_EQ(exact.tuned_config, "naivegemm_nn_b64");
  EXPECT_EQ(explanation_of(exact).config, "naivegemm_nn_b64");

  // A nearby problem of the layout borrows it; one of another layout cannot run it.
  const Choice near = chooser.choose(shape_only_problem(Op::N, Op::N, 100, 80, 64));
  EXPECT_EQ(near.source, ChoiceSource::nearest) << near.to_string();
  EXPECT_EQ(near.family_config, "naivegemm_nn_b64");
  EXPECT_EQ(explanation_of(near).config, "naivegemm_nn_b64");
  const Choice other = chooser.choose(shape_only_problem(Op::N, Op::T, 100, 80, 64));
  EXPECT_TRUE(other.family_config.empty()) << other.to_string();
  // Beyond the nearest step's reach it is the layout's model default (which comes before the
  // sgemm shape classes under tf32).
  const Chooser tf32(DeviceLimits{}, snapshot_with("naivegemm_nn_b64", 96, 80, 64), false,
                     Precision::tf32);
  const Choice far = tf32.choose(shape_only_problem(Op::N, Op::N, 4000, 4000, 4000));
  EXPECT_EQ(far.source, ChoiceSource::model_default) << far.to_string();
  EXPECT_EQ(far.family_config, "naivegemm_nn_b64");

  // A naive config that no longer validates is skipped with its reason.
  DeviceLimits small;
  small.max_threads_per_block = 128;
  const Chooser strict(small, snapshot_with("naivegemm_nn_b256", 96, 80, 64));
  const Choice skipped = strict.choose(shape_only_problem(Op::N, Op::N, 96, 80, 64));
  EXPECT_TRUE(skipped.family_config.empty());
  EXPECT_NE(skipped.to_string().find("naivegemm_nn_b256 no longer validates"), std::string::npos)
      << skipped.to_string();
}

// The launch's second argument block (LaunchShape::extra_args) is the kernel's NaiveArgs: the
// operand mask of TF32 for a `_tf32` config, all ones for the plain one.
TEST_F(NaiveFamily, ItsLaunchCarriesASecondArgumentBlock) {
  const KernelFamily& naive = naive_kernel_family();
  const Problem p = shape_only_problem(Op::T, Op::N, 96, 80, 64);
  const auto mask_of = [&](const char* name) {
    const std::optional<LaunchShape> shape = naive.launch_shape(name, p);
    EXPECT_TRUE(shape) << name;
    if (!shape) return 0u;
    EXPECT_EQ(shape->extra_args.size(), sizeof(NaiveArgs)) << name;
    NaiveArgs args{};
    std::memcpy(&args, shape->extra_args.data(), std::min(sizeof args, shape->extra_args.size()));
    return args.operand_mask;
  };
  EXPECT_EQ(mask_of("naivegemm_tn_b64_tf32"), 0xffffe000u);
  EXPECT_EQ(mask_of("naivegemm_tn_b64"), 0xffffffffu);
}

TEST_F(NaiveFamily, ItsLaunchShapePredictsTheFillOfTheLastWave) {
  const KernelFamily& naive = naive_kernel_family();
  // 96 x 80 outputs in blocks of 64: 120 blocks on 132 SMs fill 91% of one wave; 264 blocks two.
  const auto efficiency = [&](int m, int sms) {
    return *naive.predicted_efficiency("naivegemm_nn_b64",
                                       shape_only_problem(Op::N, Op::N, m, 80, 64), sms);
  };
  EXPECT_DOUBLE_EQ(efficiency(96, 132), 120.0 / 132);
  EXPECT_DOUBLE_EQ(efficiency(211, 132), 1.0);
  EXPECT_DOUBLE_EQ(efficiency(96, 0), 1.0);
  // A matrix-vector product counts its first wave's fill: 1 x 40000 outputs make 625 blocks,
  // 4.7 waves (the last 73% full), and fill the GPU; 1 x 5000 make 79 blocks, 60% of one wave.
  const auto vector_efficiency = [&](int n) {
    return *naive.predicted_efficiency("naivegemm_nn_b64",
                                       shape_only_problem(Op::N, Op::N, 1, n, 64), 132);
  };
  EXPECT_DOUBLE_EQ(vector_efficiency(40000), 1.0);
  EXPECT_DOUBLE_EQ(vector_efficiency(5000), 79.0 / 132);
  // A family with no launch shape does not predict.
  const Named named("named", "named");
  EXPECT_FALSE(
      named.predicted_efficiency("named_x", shape_only_problem(Op::N, Op::N, 9, 9, 9), 132));
}

TEST_F(NaiveFamily, TheNearestStepWeighsANaiveConfigByItsPredictedFill) {
  // Tuned on 96x80x64: b64 the best (120 blocks, 91% of a wave on 132 SMs), b128 10% slower there
  // (60 blocks, 45%).
  TuningSnapshot s = snapshot_with("naivegemm_nn_b64", 96, 80, 64);
  s.sm_count = 132;
  TunedBest runner_up = s.top_configs.front();
  runner_up.config_name = "naivegemm_nn_b128";
  runner_up.config_id = 2;
  runner_up.median_ms = 0.55;
  s.top_configs.push_back(runner_up);
  const Chooser chooser(DeviceLimits{}, s);
  // 96x88x64: b64 fills the wave (132 blocks), b128 half of it: b64.
  EXPECT_EQ(chooser.choose(shape_only_problem(Op::N, Op::N, 96, 88, 64)).family_config,
            "naivegemm_nn_b64");
  // 112x80x64: b64's 140 blocks fill 53% of two waves, b128's 70 blocks 53% of one, as much as
  // it had there: b128 keeps 91% of the best's speed, b64 58%.
  EXPECT_EQ(chooser.choose(shape_only_problem(Op::N, Op::N, 112, 80, 64)).family_config,
            "naivegemm_nn_b128");
  // With no SM count nothing is predicted: the faster there wins.
  s.sm_count = 0;
  EXPECT_EQ(Chooser(DeviceLimits{}, s)
                .choose(shape_only_problem(Op::N, Op::N, 112, 80, 64))
                .family_config,
            "naivegemm_nn_b64");
}

// Results of naive configs stored beside sgemm ones: the database ranks them in their own
// (single) precision class, the snapshot reads them, and the chooser takes the stored best for
// its exact problem, as the dispatcher does after a GPU sweep (tests/gpu/family).
TEST_F(NaiveFamily, AStoredNaiveBestIsReadAndChosen) {
  const std::string file = (scratch_dir("naive_best") / "tuning.db").string();
  const Problem p = shape_only_problem(Op::N, Op::T, 96, 80, 64);
  {
    db::Database db(file, db::OpenMode::read_write, kernel_families());
    const db::Id gpu = db.upsert_gpu_model({"Test GPU", 9, 0, 132, 0, 0, 0, 0});
    db::SweepInfo info;
    info.gpu_model_id = gpu;
    info.template_hash = template_hash();
    const db::Id sweep = db.begin_sweep(info);
    const db::Id problem = db.upsert_problem(to_db(p));
    const auto result = [&](const db::KernelConfig& row, double ms) {
      db::Result r;
      r.problem_id = problem;
      r.config_id = db.upsert_config(row);
      r.median_ms = r.min_ms = r.max_ms = ms;
      r.repetitions = 5;
      r.rel_error = 1e-7;
      return r;
    };
    const std::vector<db::Result> results{
        result(*naive_kernel_family().db_row("naivegemm_nt_b64"), 0.30),
        result(*naive_kernel_family().db_row("naivegemm_nt_b128"), 0.20),
        result(to_db(*parse_config_name("sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8")), 0.25)};
    db.record_results(sweep, results);
    db.finish_sweep(sweep);
    const auto best = db.best_for(gpu, to_db(p));
    ASSERT_TRUE(best);
    EXPECT_EQ(best->config.name, "naivegemm_nt_b128");
    EXPECT_EQ(best->config.knobs.at("naive_block"), 128);
  }
  TuningSnapshot s = load_tuning_snapshot(file, GpuIdentity{"Test GPU", 9, 0, 132});
  ASSERT_EQ(s.bests.size(), 1u) << (s.notes.empty() ? "" : s.notes.front());
  EXPECT_EQ(s.bests.front().config_name, "naivegemm_nt_b128");
  EXPECT_EQ(s.top_configs.size(), 3u);
  const Choice c = Chooser(DeviceLimits{}, std::move(s)).choose(p);
  EXPECT_EQ(c.source, ChoiceSource::exact) << c.to_string();
  EXPECT_EQ(c.family_config, "naivegemm_nt_b128");
  EXPECT_EQ(c.database, file);
}

}  // namespace
}  // namespace gemmtune::test
