// Split-K in one launch: the first split of each tile to start scales C by beta, and every split
// adds to it (or, with prescale_c, a kernel before scales C and the splits only add); with ordered splits (reductions) the last split adds up all splits' sums.
// Counters reset themselves between launches (a stale counter would let a split add to C before
// C was scaled, or scale C over the others' sums), so repeated launches on one workspace stay
// right; the workspace grows for a larger problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

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

// The kernel of a valid config name; null (and a failure) otherwise.
std::unique_ptr<GemmKernel> kernel_named(const char* name, const ReferenceSetup& setup) {
  auto cfg = parse_config_name(name);
  if (!cfg) {
    ADD_FAILURE() << name << " is no config name";
    return nullptr;
  }
  if (auto why = cfg->validate(setup.dev.limits)) {
    ADD_FAILURE() << name << ": " << *why;
    return nullptr;
  }
  return build_kernel(*cfg, setup.arch);
}

// Launches `kernel` `runs` times on fresh random data of case `c` (in its config's layout) on
// `workspace`, C reset before each (poisoned where beta is 0), and checks every result against
// the float64 reference; returns the results.
std::vector<std::vector<float>> run_case(const GemmKernel& kernel, const Case& c, int runs,
                                         LaunchWorkspace& workspace, ReferenceSetup& setup) {
  SCOPED_TRACE(config_name(kernel.config()) + " " + describe(c));
  Problem shape =
      Problem::packed(kernel.config().op_a, kernel.config().op_b, c.m, c.n, c.k, c.batch);
  shape.alpha = c.alpha, shape.beta = c.beta;
  ProblemData data(shape, 0, 0, setup.rng);
  if (auto why = kernel.config().can_implement(data.p)) {
    ADD_FAILURE() << *why;
    return {};
  }
  DeviceArray<double> ref(size_t(c.m) * c.n * c.batch);
  setup.reference.run(data.p, ref.get(), nullptr);
  const std::vector<double> expect = ref.download();
  std::vector<std::vector<float>> out;
  for (int run = 0; run < runs; ++run) {
    data.reset_c();
    kernel.launch(data.p, nullptr, &workspace);
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    out.push_back(data.result());
    // The tuner's FP32 criterion, which grows with K: one float sum per lane over a long K range
    // rounds more (1x1x100003, 4 splits of 8 lanes: 1.07e-5 on an H200).
    EXPECT_LT(relative_error(out.back(), data.p.ldc, data.p.stride_c, expect, c.m, c.n, c.batch),
              fp32_tolerance(c.k))
        << "run " << run;
  }
  return out;
}

}  // namespace

TEST(SplitK, RepeatedLaunchesStayCorrect) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  // A shared-memory tile with 16 splits and a streaming one-row tile with 8; vec 1: any shape.
  // Then both, and a reduction, with C scaled by a kernel before (prescale_c, "_z").
  for (const char* name : {"sgemm_nn_32x64x8_w32x32_t4x8_s3_v1_p4_k16_r8",
                           "sgemm_nn_1x128x8_w1x128_t1x4_s2_v1_p4_k8_r1",
                           "sgemm_nn_32x64x8_w32x32_t4x8_s3_v1_p4_k16_r8_z",
                           "sgemm_nn_1x128x8_w1x128_t1x4_s2_v1_p4_k8_r1_z",
                           "sgemm_nn_1x1x8_w1x1_t1x1_s2_v1_p4_k8_r8_l32_j4_z"}) {
    auto kernel = kernel_named(name, setup);
    ASSERT_TRUE(kernel) << name;
    LaunchWorkspace workspace;
    // Small, large (grows the workspace), small again (reuses it); K = 125: the last split of 16
    // gets 5 values.
    const Case cases[] = {{37, 61, 1009, 1, 1.5f, -0.5f},
                          {1, 517, 4099, 3, 1.f, 0.f},
                          {131, 259, 2003, 2, -0.75f, 0.25f},
                          {37, 61, 125, 1, 1.f, 0.f}};
    for (const Case& c : cases) EXPECT_EQ(run_case(*kernel, c, 3, workspace, setup).size(), 3u);
    EXPECT_GE(workspace.bytes(),
              LaunchWorkspace::tile_count(kernel->config(),
                                          Problem::packed(Op::N, Op::N, 131, 259, 1, 2)) *
                  sizeof(int));
  }
}

// With ordered splits the last split of a reduction's tile adds every split's sums in split
// order: the same bits on every run whichever split finishes first (the atomic protocol gives no
// such promise), and the sums' place after the counters survives growing and reuse.
TEST(SplitK, OrderedSplitsGiveTheSameBitsOnEveryRun) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  // A dot product over 32 lanes of 2 warps split 128 ways; rows of A over 8 lanes split 4 ways.
  for (const char* name : {"sgemm_nn_1x1x8_w1x1_t1x1_s2_v1_p4_k128_r8_l32_j2_d",
                           "sgemm_nn_4x1x8_w4x1_t1x1_s2_v1_p4_k4_r8_l8_d"}) {
    auto kernel = kernel_named(name, setup);
    ASSERT_TRUE(kernel) << name;
    EXPECT_TRUE(kernel->config().deterministic());
    LaunchWorkspace workspace;
    const Case cases[] = {{1, 1, 100003, 1, 1.5f, -0.5f},
                          {37, 3, 99991, 2, 1.f, 0.f},
                          {1, 1, 131071, 3, -0.75f, 0.25f}};
    for (const Case& c : cases) {
      const auto runs = run_case(*kernel, c, 5, workspace, setup);
      ASSERT_EQ(runs.size(), 5u) << describe(c);
      for (size_t run = 1; run < runs.size(); ++run)
        EXPECT_TRUE(runs[run] == runs[0])
            << describe(c) << ": run " << run << " differs from the first in some bits";
    }
    EXPECT_GE(workspace.bytes(),
              LaunchWorkspace::counter_words(kernel->config(),
                                             Problem::packed(Op::N, Op::N, 37, 3, 99991, 2)) *
                  sizeof(int));
  }
}

// With cluster splits a reduction's splits are one cluster's blocks and the first adds their sums
// from distributed shared memory in split order: the same bits on every run, no workspace used,
// for batches (one cluster per tile and matrix) and the largest cluster (16 blocks).
TEST(SplitK, ClusterSplitsGiveTheSameBitsOnEveryRunWithoutAWorkspace) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  if (setup.dev.limits.cc_major < 9) GTEST_SKIP() << "thread-block clusters need sm_90 or newer";
  for (const char* name : {"sgemm_nn_1x1x8_w1x1_t1x1_s2_v1_p4_k16_r8_l32_j8_x",
                           "sgemm_nn_4x1x8_w4x1_t1x1_s2_v1_p4_k4_r8_l8_x",
                           "sgemm_nn_1x4x8_w1x4_t1x4_s2_v1_p4_k2_r8_l32_x"}) {
    auto kernel = kernel_named(name, setup);
    ASSERT_TRUE(kernel) << name;
    EXPECT_TRUE(kernel->config().deterministic());
    LaunchWorkspace workspace;
    const Case cases[] = {{1, 1, 100003, 1, 1.5f, -0.5f},
                          {37, 3, 99991, 2, 1.f, 0.f},
                          {1, 1, 131071, 3, -0.75f, 0.25f},
                          {5, 9, 517, 4, 1.f, 1.f}};
    for (const Case& c : cases) {
      const auto runs = run_case(*kernel, c, 5, workspace, setup);
      ASSERT_EQ(runs.size(), 5u) << describe(c);
      for (size_t run = 1; run < runs.size(); ++run)
        EXPECT_TRUE(runs[run] == runs[0])
            << describe(c) << ": run " << run << " differs from the first in some bits";
    }
    EXPECT_EQ(workspace.bytes(), 0u) << "a cluster's splits need no workspace";
  }
}

// One workspace for every launch of a stream: an ordered reduction's sums lie where another
// config's launch keeps tile counters, which must be zero again when that launch starts (a stale
// one would break its protocol: wrong sums, or splits waiting for a flag that never comes).
TEST(SplitK, OrderedSplitsLeaveTheWorkspaceAsTheyFoundIt) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto dot = kernel_named("sgemm_nn_1x1x8_w1x1_t1x1_s2_v1_p4_k128_r8_l32_j2_d", setup);
  auto tiles = kernel_named("sgemm_nn_32x64x8_w32x32_t4x8_s3_v1_p4_k16_r8", setup);
  ASSERT_TRUE(dot && tiles);
  LaunchWorkspace workspace;
  // The dot products' sums: words 64 to 448; the tile kernel's 512 counters: words 0 to 511.
  const Case dots = {1, 1, 131071, 3, 1.f, 0.f}, square = {1024, 1024, 2048, 1, 1.f, 0.f};
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_EQ(run_case(*dot, dots, 1, workspace, setup).size(), 1u);
    EXPECT_EQ(run_case(*tiles, square, 1, workspace, setup).size(), 1u);
  }
}

TEST(SplitK, LaunchWithoutWorkspaceIsAnError) {
  GEMMTUNE_REQUIRE_GPU();
  DeviceInfo dev = device_info(0);
  auto kernel = build_kernel(*parse_config_name("sgemm_nn_32x64x8_w32x32_t4x8_s3_v1_p4_k16_r8"),
                             dev.limits.arch());
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

// A caller's allocator (WorkspaceAllocator, as PyTorch's caching allocator is passed): every
// allocation comes from it with the launch's stream, 256-byte aligned; growing gives the old
// memory back, with its size, and so does the workspace's end; the results stay right.
namespace {
struct CountingAllocator {
  std::vector<std::pair<void*, std::size_t>> live;
  int allocations = 0, frees = 0;
  cudaStream_t last_stream = nullptr;
  static void* allocate(std::size_t bytes, cudaStream_t stream, void* self) {
    auto* a = static_cast<CountingAllocator*>(self);
    void* ptr = nullptr;
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) return nullptr;
    a->live.emplace_back(ptr, bytes), ++a->allocations, a->last_stream = stream;
    return ptr;
  }
  static void free(void* ptr, std::size_t bytes, cudaStream_t, void* self) {
    auto* a = static_cast<CountingAllocator*>(self);
    auto found = std::find(a->live.begin(), a->live.end(), std::make_pair(ptr, bytes));
    EXPECT_NE(found, a->live.end()) << "freed memory it did not allocate, or with another size";
    if (found != a->live.end()) a->live.erase(found);
    ++a->frees;
    cudaFree(ptr);
  }
};
}  // namespace

TEST(SplitK, WorkspaceFromTheCallersAllocator) {
  GEMMTUNE_REQUIRE_GPU();
  ReferenceSetup setup;
  auto kernel = kernel_named("sgemm_nn_32x64x8_w32x32_t4x8_s3_v1_p4_k16_r8", setup);
  ASSERT_TRUE(kernel);
  CountingAllocator counting;
  {
    LaunchWorkspace workspace(
        WorkspaceAllocator{CountingAllocator::allocate, CountingAllocator::free, &counting});
    // Small, then large (grows: the small one is given back), then small again (reuses).
    const Case cases[] = {{37, 61, 1009, 1, 1.5f, -0.5f},
                          {131, 259, 2003, 2, -0.75f, 0.25f},
                          {37, 61, 125, 1, 1.f, 0.f}};
    for (const Case& c : cases) EXPECT_EQ(run_case(*kernel, c, 2, workspace, setup).size(), 2u);
    EXPECT_EQ(counting.allocations, 2);
    EXPECT_EQ(counting.frees, 1);
    ASSERT_EQ(counting.live.size(), 1u);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(counting.live[0].first) % 256, 0u);
    EXPECT_EQ(counting.live[0].second, workspace.bytes());
    EXPECT_EQ(counting.last_stream, nullptr);  // run_case launches on the default stream
  }
  EXPECT_TRUE(counting.live.empty()) << "the workspace's end did not give its memory back";
  EXPECT_EQ(counting.frees, 2);
}
