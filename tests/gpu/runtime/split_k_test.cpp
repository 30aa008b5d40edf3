// Split-K in one launch: the first split of each tile to finish stores C, the others add to it;
// with ordered splits (reductions) the last split adds up all splits' sums.
// Counters reset themselves between launches (a stale counter would let a split add to C before
// C was stored, or store over the others' sums), so repeated launches on one workspace stay
// right; the workspace grows for a larger problem.
#include <gtest/gtest.h>

#include "gemmtune/kernel.hpp"
#include "gemmtune/reference.hpp"
#include "support/gpu_buffers.hpp"
#include "support/gpu_env.hpp"
#include "support/gpu_reference.hpp"

using namespace gemmtune;
using namespace gemmtune::test;

namespace {

struct Case {
  int m, n, k, batch;
  float alpha, beta;
};

std::string describe(const Case& c) {
  return std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + " batch " +
         std::to_string(c.batch);
}

}  // namespace

TEST(SplitK, RepeatedLaunchesStayCorrect) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  // A shared-memory tile with 16 splits and a streaming one-row tile with 8; vec 1: any shape.
  for (const char* name : {"sgemm_nn_32x64x8_w32x32_t4x8_s3_v1_p4_k16_r8", "sgemm_nn_1x128x8_w1x128_t1x4_s2_v1_p4_k8_r1"}) {
    auto cfg = parse_config_name(name);
    ASSERT_TRUE(cfg.has_value()) << name;
    ASSERT_FALSE(cfg->validate(dev.limits).has_value()) << *cfg->validate(dev.limits);
    auto kernel = build_kernel(*cfg, arch);
    LaunchWorkspace workspace;
    // Small, large (grows the workspace), small again (reuses it); K = 125: the last split of 16
    // gets 5 values.
    const Case cases[] = {{37, 61, 1009, 1, 1.5f, -0.5f}, {1, 517, 4099, 3, 1.f, 0.f},
                          {131, 259, 2003, 2, -0.75f, 0.25f}, {37, 61, 125, 1, 1.f, 0.f}};
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(name) + " " + describe(c));
      Problem shape = Problem::packed(cfg->op_a, cfg->op_b, c.m, c.n, c.k, c.batch);
      shape.alpha = c.alpha, shape.beta = c.beta;
      ProblemData data(shape, 0, 0, rng);
      ASSERT_FALSE(kernel->config().can_implement(data.p).has_value());
      DeviceArray<double> ref(size_t(c.m) * c.n * c.batch);
      reference.run(data.p, ref.get(), nullptr);
      for (int run = 0; run < 3; ++run) {
        data.reset_c();  // the same C (or poison when beta is 0) before every run
        kernel->launch(data.p, nullptr, &workspace);
        GEMMTUNE_CUDA(cudaDeviceSynchronize());
        EXPECT_LT(relative_error(data.result(), data.p.ldc, data.p.stride_c, ref.download(), c.m, c.n, c.batch),
                  1e-5)
            << "run " << run;
      }
    }
    EXPECT_GE(workspace.bytes(), LaunchWorkspace::tile_count(*cfg, Problem::packed(Op::N, Op::N, 131, 259, 1, 2)) *
                                     sizeof(int));
  }
}

// With ordered splits the last split of a reduction's tile adds every split's sums in split
// order: the same bits on every run whichever split finishes first (the atomic protocol gives no
// such promise), and the sums' place after the counters survives growing and reuse.
TEST(SplitK, OrderedSplitsGiveTheSameBitsOnEveryRun) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  // A dot product over 32 lanes of 2 warps split 128 ways; rows of A over 8 lanes split 4 ways.
  for (const char* name : {"sgemm_nn_1x1x8_w1x1_t1x1_s2_v1_p4_k128_r8_l32_j2_d", "sgemm_nn_4x1x8_w4x1_t1x1_s2_v1_p4_k4_r8_l8_d"}) {
    auto cfg = parse_config_name(name);
    ASSERT_TRUE(cfg.has_value()) << name;
    ASSERT_FALSE(cfg->validate(dev.limits).has_value()) << *cfg->validate(dev.limits);
    EXPECT_TRUE(cfg->deterministic());
    auto kernel = build_kernel(*cfg, arch);
    LaunchWorkspace workspace;
    const Case cases[] = {{1, 1, 100003, 1, 1.5f, -0.5f}, {37, 3, 99991, 2, 1.f, 0.f}, {1, 1, 131071, 3, -0.75f, 0.25f}};
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(name) + " " + describe(c));
      Problem shape = Problem::packed(cfg->op_a, cfg->op_b, c.m, c.n, c.k, c.batch);
      shape.alpha = c.alpha, shape.beta = c.beta;
      ProblemData data(shape, 0, 0, rng);
      ASSERT_FALSE(kernel->config().can_implement(data.p).has_value());
      DeviceArray<double> ref(size_t(c.m) * c.n * c.batch);
      reference.run(data.p, ref.get(), nullptr);
      std::vector<float> first;
      for (int run = 0; run < 5; ++run) {
        data.reset_c();
        kernel->launch(data.p, nullptr, &workspace);
        GEMMTUNE_CUDA(cudaDeviceSynchronize());
        const std::vector<float> out = data.result();
        EXPECT_LT(relative_error(out, data.p.ldc, data.p.stride_c, ref.download(), c.m, c.n, c.batch), 1e-5)
            << "run " << run;
        if (run == 0) first = out;
        EXPECT_TRUE(out == first) << "run " << run << " differs from the first in some bits";
      }
    }
    EXPECT_GE(workspace.bytes(),
              LaunchWorkspace::counter_words(*cfg, Problem::packed(Op::N, Op::N, 37, 3, 99991, 2)) * sizeof(int));
  }
}

// One workspace for every launch of a stream: an ordered reduction's sums lie where another
// config's launch keeps tile counters, which must be zero again when that launch starts (a stale
// one would break its protocol: wrong sums, or splits waiting for a flag that never comes).
TEST(SplitK, OrderedSplitsLeaveTheWorkspaceAsTheyFoundIt) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  auto dot = build_kernel(*parse_config_name("sgemm_nn_1x1x8_w1x1_t1x1_s2_v1_p4_k128_r8_l32_j2_d"), arch);
  auto tiles = build_kernel(*parse_config_name("sgemm_nn_32x64x8_w32x32_t4x8_s3_v1_p4_k16_r8"), arch);
  LaunchWorkspace workspace;
  // The dot products' sums: words 64 to 448; the tile kernel's 512 counters: words 0 to 511.
  const Case dots = {1, 1, 131071, 3, 1.f, 0.f}, square = {1024, 1024, 2048, 1, 1.f, 0.f};
  for (int round = 0; round < 2; ++round)
    for (const auto& [kernel, c] : {std::pair{dot.get(), dots}, std::pair{tiles.get(), square}}) {
      SCOPED_TRACE(config_name(kernel->config()) + " " + describe(c) + " round " + std::to_string(round));
      ProblemData data(Problem::packed(Op::N, Op::N, c.m, c.n, c.k, c.batch), 0, 0, rng);
      ASSERT_FALSE(kernel->config().can_implement(data.p).has_value());
      DeviceArray<double> ref(size_t(c.m) * c.n * c.batch);
      reference.run(data.p, ref.get(), nullptr);
      data.reset_c();
      kernel->launch(data.p, nullptr, &workspace);
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      EXPECT_LT(relative_error(data.result(), data.p.ldc, data.p.stride_c, ref.download(), c.m, c.n, c.batch), 1e-5);
    }
}

TEST(SplitK, LaunchWithoutWorkspaceIsAnError) {
  GEMMTUNE_REQUIRE_GPU();
  DeviceInfo dev = device_info(0);
  auto kernel = build_kernel(*parse_config_name("sgemm_nn_32x64x8_w32x32_t4x8_s3_v1_p4_k16_r8"), dev.limits.arch());
  std::mt19937_64 rng(3);
  ProblemData data(Problem::packed(Op::N, Op::N, 32, 64, 256, 1), 0, 0, rng);
  try {
    kernel->launch(data.p, nullptr);
    FAIL() << "launch without a workspace did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("LaunchWorkspace"), std::string::npos) << e.what();
  }
}
