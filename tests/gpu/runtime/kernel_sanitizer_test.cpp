// A few configs (one per pipeline kind, split-K, transposed layouts, thin tiles, repack, tensor cores,
// C staged or windowed, three-warp block sides, the warpgroup instruction) on edge shapes: small enough
// to run under compute-sanitizer memcheck and racecheck (tools/gpu-check.sh --sanitize).
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "gemmtune/kernel.hpp"
#include "gemmtune/reference.hpp"
#include "support/gpu_buffers.hpp"
#include "support/gpu_env.hpp"
#include "support/gpu_reference.hpp"

using namespace gemmtune;
using namespace gemmtune::test;

TEST(KernelSanitizer, EdgeShapesAreCorrect) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  const char* names[] = {
      "sgemm_nn_32x32x8_w16x8_t4x1_s1_v1_p0_k1_r1",
      "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8",
      "sgemm_tn_64x64x16_w32x32_t4x8_s3_v4_p4_k2_r8",
      "sgemm_tt_64x128x8_w32x64_t8x8_s4_v2_p0_k4_r1",
      // cp.async copies of K-contiguous operands transposed a float at a time: both operands of
      // nt, A of nn with slices of 32
      "sgemm_nt_128x128x8_w64x64_t16x8_s3_v4_p4_k1_r8",
      "sgemm_nn_64x64x32_w32x32_t4x8_s3_v4_p4_k1_r1",
      // thin tiles: B streamed (one row with split-K; four rows, A transposed), and
      // two columns through shared memory
      "sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k8_r8",
      "sgemm_tn_4x64x8_w4x64_t4x2_s2_v2_p4_k2_r1",
      "sgemm_nt_64x2x16_w64x2_t4x1_s3_v2_p0_k4_r1",
      // reductions: rows of A over 8 lanes each (split-K 4), a dot product over 32 lanes
      // (split-K 8), 2x8 outputs of both operands transposed, and rows of A transposed over 2
      // lanes of each of 4 warps (the shared-memory sum)
      "sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8",
      "sgemm_nt_1x1x16_w1x1_t1x1_s2_v4_p4_k8_r8_l32",
      "sgemm_tt_2x8x8_w2x8_t1x4_s2_v2_p4_k2_r8_l8",
      "sgemm_tn_64x1x8_w32x1_t2x1_s2_v4_p4_k2_r8_l2_j4",
      // the first and the last of them with ordered splits (the last split adds the sums)
      "sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8_d",
      "sgemm_tn_64x1x8_w32x1_t2x1_s2_v4_p4_k2_r8_l2_j4_d",
      // splits summed in a cluster (sm_90 on): the dot product, and rows of A over 4 warps
      "sgemm_nt_1x1x16_w1x1_t1x1_s2_v4_p4_k8_r8_l32_x",
      "sgemm_tn_64x1x8_w32x1_t2x1_s2_v4_p4_k2_r8_l2_j4_x",
      // repack (misaligned A and B copied into the workspace first, where a case has them):
      // registers, cp.async with split-K, streamed B
      "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_q",
      "sgemm_tn_64x64x16_w32x32_t4x8_s3_v4_p4_k2_r8_q",
      "sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k8_r8_q",
      // tensor cores: 3xTF32 with rounded slice sums, 1xTF32 through registers with split-K,
      // 4xTF32, 3xTF32 summed in the tensor core on small tiles
      "sgemm_nn_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8_m3",
      "sgemm_tt_64x64x16_w32x32_t4x8_s2_v4_p4_k2_r8_m1",
      "sgemm_tn_128x64x8_w64x32_t8x8_s4_v4_p4_k1_r8_m4",
      "sgemm_nt_32x32x16_w16x16_t2x4_s3_v2_p4_k1_r8_m2",
      // C through shared memory where a case narrows it: registers, cp.async with split-K,
      // 3xTF32 (fitting clears the flag on the aligned cases)
      "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_e",
      "sgemm_tn_64x64x16_w32x32_t4x8_s3_v4_p4_k2_r8_e",
      "sgemm_nn_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8_m3_e",
      // C in aligned windows where a case narrows it: registers, cp.async 3xTF32, a thin tile
      "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_c",
      "sgemm_tn_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8_m3_c",
      "sgemm_nn_4x64x8_w4x64_t4x2_s2_v2_p4_k1_r1_c",
      // block sides of three warp tiles (slices that do not divide evenly among the threads):
      // 48 rows through cp.async with split-K and windowed C, 96 columns through registers, staged C
      "sgemm_nn_48x128x16_w16x64_t4x8_s3_v4_p4_k2_r8_c",
      "sgemm_tt_64x96x8_w32x32_t4x8_s2_v4_p4_k1_r8_e",
      // the barrier before the last k-step (early_barrier): 256 threads; split-K with windowed C;
      // 96 columns with staged C
      "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_b",
      "sgemm_nn_64x64x16_w32x64_t8x8_s2_v4_p4_k2_r8_c_b",
      "sgemm_tt_64x96x8_w32x32_t4x8_s2_v4_p4_k1_r8_e_b",
      // the warpgroup instruction (sm_90 only): 3xTF32 with split-K on split copies; 1xTF32
      // reading both operands (nt), or A (nn), in place where the case's rows allow (K 70 padded
      // to 72, K 1000), else from split copies
      "sgemm_tn_128x64x32_w16x64_t2x16_s3_v4_p4_k2_r8_m3_wg1",
      "sgemm_nt_64x128x32_w16x128_t2x32_s2_v4_p4_k1_r8_m1_wg1",
      "sgemm_nn_128x256x32_w16x256_t2x64_s4_v4_p4_k1_r8_m1_wg1",
  };
  struct Case {
    int m, n, k, batch, ld_pad, ptr_offset;
  };
  const Case cases[] = {{7, 13, 11, 1, 0, 0}, {65, 67, 129, 3, 0, 0}, {33, 35, 70, 2, 2, 0},
                        {1, 1, 1, 1, 0, 0},   {5, 37, 1000, 2, 0, 0}, {3, 70, 700, 1, 1, 1}};
  int checked = 0, too_short = 0, packed = 0, staged = 0, windowed = 0, skipped = 0,
      skipped_wgmma = 0, skipped_cluster = 0;
  for (const char* name : names) {
    auto cfg = parse_config_name(name);
    ASSERT_TRUE(cfg.has_value()) << name;
    if (cfg->wgmma && (dev.limits.cc_major != 9 || dev.limits.cc_minor != 0)) {  // sm_90 only
      ++skipped, ++skipped_wgmma;
      continue;
    }
    if (cfg->cluster_splits && dev.limits.cc_major < 9) {  // sm_90 on
      ++skipped, ++skipped_cluster;
      continue;
    }
    ASSERT_FALSE(cfg->validate(dev.limits).has_value())
        << name << ": " << *cfg->validate(dev.limits);
    std::map<std::string, std::unique_ptr<GemmKernel>>
        kernels;  // by instance: fitted to each case's data
    LaunchWorkspace workspace;
    int runs = 0;  // of this config
    for (const Case& c : cases) {
      Problem shape = Problem::packed(cfg->op_a, cfg->op_b, c.m, c.n, c.k, c.batch);
      shape.alpha = 1.25f, shape.beta = checked % 2 ? 0.f : -0.5f;
      ProblemData data(shape, c.ld_pad, c.ptr_offset, rng);
      const GemmConfig fitted = cfg->fitted_to(data.p);
      auto& built = kernels[config_name(fitted)];
      if (!built) built = build_kernel(fitted, arch);
      const GemmKernel& k = *built;
      if (auto why = k.config().can_implement(data.p);
          why && why->find("splits without work") != std::string::npos) {
        ++too_short;  // K too short for this many splits
        continue;
      }
      ASSERT_FALSE(k.config().can_implement(data.p).has_value())
          << *k.config().can_implement(data.p);
      SCOPED_TRACE(std::string(name) + " " + std::to_string(c.m) + "x" + std::to_string(c.n) + "x" +
                   std::to_string(c.k) + " batch " + std::to_string(c.batch));
      DeviceArray<double> ref(size_t(c.m) * c.n * c.batch);
      reference.run(data.p, ref.get(), nullptr);
      k.launch(data.p, nullptr, &workspace);
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      EXPECT_LT(data.error(ref.download()), cfg->math == 1 ? tf32_tolerance(c.k) : 1e-5);
      ++checked;
      packed += k.config().packs_a(data.p) || k.config().packs_b(data.p);
      staged += k.config().stage_c;
      windowed += k.config().window_c;
      ++runs;
    }
    EXPECT_GE(runs, 2) << name << " ran too few of the edge shapes";
  }
  // Six cases per config; split-K configs on the short-K shapes are too short, those with fewer
  // bk slices of K than splits (the warpgroup one on two of them, the ordered reductions on two
  // and one, the cluster ones on three and one, the three-warp 48x128 k2 and the early-barrier
  // 64x64x16 k2 on two each).
  const int ran = int(std::size(names)) - skipped;
  EXPECT_EQ(checked + too_short, 6 * ran);
  EXPECT_EQ(too_short, 39 - (skipped_wgmma ? 2 : 0) - (skipped_cluster ? 4 : 0));
  EXPECT_GE(staged, 6);    // of the staged configs' 16 runs, those with C narrowed
  EXPECT_GE(windowed, 6);  // likewise of the windowed configs' 18
  EXPECT_GE(packed, 8);    // of the repack configs' 11 runs, those with A or B misaligned
}
