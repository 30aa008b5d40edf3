// Operands at addresses whose low 32 bits have bit 31 set. A kernel that takes an address's
// alignment or offset through a 32-bit int sees such an address as negative; cudaMalloc's
// small buffers rarely land there, so the other tests would pass such a kernel (as they did a
// loader tried in the entry of 2026-11-28, docs/PERFORMANCE.md). Here A, B and C lie inside
// one arena at such addresses, one float past alignment (narrowed accesses) and aligned, against
// the float64 reference with C poisoned where beta is 0.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "gemmtune/kernel.hpp"
#include "gemmtune/reference.hpp"
#include "support/gpu_buffers.hpp"
#include "support/gpu_env.hpp"
#include "support/gpu_reference.hpp"

using namespace gemmtune;
using namespace gemmtune::test;

namespace {

constexpr std::uint64_t kBit31 = 1ull << 31;

// Floats from `base` to the first address at which the next `need` bytes all have bit 31 of
// their low 32 bits set.
std::size_t floats_to_high_window(const float* base, std::size_t need) {
  const std::uint64_t low = reinterpret_cast<std::uintptr_t>(base) & 0xffffffffull;
  std::uint64_t skip = 0;
  if (low < kBit31)
    skip = kBit31 - low;
  else if ((1ull << 32) - low < need)
    skip = (1ull << 32) - low + kBit31;  // the next window
  return skip / sizeof(float);
}

}  // namespace

TEST(HighAddresses, OperandsWithBit31SetInTheirAddressesAreCorrect) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto& [dev, arch, reference, rng] = setup;
  // One per loader and pipeline: registers (and their early barrier), cp.async with split-K,
  // windowed and staged C, repack, streamed B, a matrix-vector reduction, a dot, tensor cores.
  const char* names[] = {
      "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8",
      "sgemm_nn_64x64x16_w32x64_t8x8_s2_v4_p4_k2_r8_b",
      "sgemm_tn_64x64x16_w32x32_t4x8_s3_v4_p4_k2_r8",
      "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_c",
      "sgemm_tt_64x96x8_w32x32_t4x8_s2_v4_p4_k1_r8_e",
      "sgemm_nt_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8_q",
      "sgemm_nn_1x256x16_w1x128_t1x4_s2_v4_p4_k8_r8",
      "sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8",
      "sgemm_nt_1x1x16_w1x1_t1x1_s2_v4_p4_k8_r8_l32",
      "sgemm_nn_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8_m3",
  };
  struct Case {
    int m, n, k, offset;
    float beta;
  };
  // Odd sides, one float past alignment (narrowed), and the aligned twin; shapes for the thin
  // tiles and reductions too. Each config runs the cases it can implement.
  const Case cases[] = {{131, 67, 97, 1, 0.f},
                        {128, 64, 96, 0, -0.5f},
                        {1, 1001, 997, 1, 0.f},
                        {4, 1, 4099, 1, 0.5f},
                        {1, 1, 10007, 1, 0.f}};
  const std::size_t need = std::size_t(16)
                           << 20;  // bytes: the largest case (1x1001x997) takes 4 MiB
  // The window begins at most 4 GiB (2^30 floats) past the arena's start.
  std::size_t free_bytes = 0, total_bytes = 0;
  GEMMTUNE_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < (std::size_t(1) << 32) + 2 * need)
    GTEST_SKIP() << "needs 4 GiB of free GPU memory for its arena";
  DeviceArray<float> arena((std::size_t(1) << 30) + need / sizeof(float) + 1024);
  const std::size_t start = floats_to_high_window(arena.get(), need);
  ASSERT_LE(start + need / sizeof(float), arena.size()) << "the arena holds no window of that size";
  LaunchWorkspace workspace;
  std::map<std::string, std::unique_ptr<GemmKernel>> kernels;  // by instance: fitted to each case
  int checked = 0;
  double worst = 0;
  for (const char* name : names) {
    auto cfg = parse_config_name(name);
    ASSERT_TRUE(cfg.has_value()) << name;
    ASSERT_FALSE(cfg->validate(dev.limits).has_value())
        << name << ": " << *cfg->validate(dev.limits);
    for (const Case& c : cases) {
      Problem p = Problem::packed(cfg->op_a, cfg->op_b, c.m, c.n, c.k);
      p.alpha = 1.25f, p.beta = c.beta;
      // A, B and C one after another in the window, each `offset` floats past a 4-float boundary.
      float* at = arena.get() + start;
      auto place = [&](std::size_t count) {
        float* ptr = at + c.offset;
        at += (count + c.offset + 3) / 4 * 4 + 4;
        return ptr;
      };
      const std::size_t a_count = std::size_t(p.a_rows()) * p.a_cols(),
                        b_count = std::size_t(p.b_rows()) * p.b_cols();
      const std::size_t c_count = std::size_t(p.m) * p.n;
      float* a = place(a_count);
      float* b = place(b_count);
      float* cc = place(c_count);
      for (const float* ptr : {static_cast<const float*>(a), static_cast<const float*>(b),
                               static_cast<const float*>(cc)})
        ASSERT_NE(reinterpret_cast<std::uintptr_t>(ptr) & kBit31, 0u) << "not in the window";
      const std::vector<float> ha = random_floats(a_count, rng), hb = random_floats(b_count, rng);
      const std::vector<float> c_init = random_floats(c_count, rng);
      GEMMTUNE_CUDA(cudaMemcpy(a, ha.data(), a_count * sizeof(float), cudaMemcpyHostToDevice));
      GEMMTUNE_CUDA(cudaMemcpy(b, hb.data(), b_count * sizeof(float), cudaMemcpyHostToDevice));
      const std::vector<float> c_start =
          c.beta == 0.f ? std::vector<float>(c_count, std::nanf("")) : c_init;
      GEMMTUNE_CUDA(
          cudaMemcpy(cc, c_start.data(), c_count * sizeof(float), cudaMemcpyHostToDevice));
      p.a = a, p.b = b, p.c = cc;
      const GemmConfig fitted = cfg->fitted_to(p);
      if (fitted.can_implement(p)) continue;
      SCOPED_TRACE(config_name(fitted) + " on " + std::to_string(c.m) + "x" + std::to_string(c.n) +
                   "x" + std::to_string(c.k) + " " + p.label());
      DeviceArray<double> ref(c_count);
      reference.run(p, ref.get(), nullptr);
      auto& kernel = kernels[config_name(fitted)];
      if (!kernel) kernel = build_kernel(fitted, arch);
      kernel->launch(p, nullptr, &workspace);
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      std::vector<float> out(c_count);
      GEMMTUNE_CUDA(cudaMemcpy(out.data(), cc, c_count * sizeof(float), cudaMemcpyDeviceToHost));
      const std::vector<double> expect = ref.download();
      double err = relative_error(out, p.ldc, p.stride_c, expect, p.m, p.n, 1);
      if (c_count == 1) {  // a dot: relative to the size of its terms (ProblemData::error says why)
        double terms = 0;
        for (int k = 0; k < p.k; ++k) terms += std::abs(double(ha[k]) * hb[k]);
        err = std::abs(out[0] - expect[0]) /
              (std::abs(p.alpha) * terms + std::abs(p.beta * c_init[0]));
      }
      EXPECT_LT(err, fitted.math == 0 ? 1e-5 : 1e-4);
      worst = std::max(worst, err);
      ++checked;
    }
  }
  std::cout
      << checked
      << " (config, problem) pairs checked at addresses with bit 31 set, worst relative error "
      << worst << "\n";
  EXPECT_GE(checked, 20);
}
