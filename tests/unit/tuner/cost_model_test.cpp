// The cost model's terms each move the prediction the way the hardware does: these are the
// rankings it must get right, not its milliseconds.
#include <gtest/gtest.h>

#include "gemmtune/tuner/cost_model.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

GpuCeilings h200() {
  GpuCeilings g;
  g.limits = DeviceLimits::for_arch("sm_90");
  return g;
}

GemmConfig tile(int bm, int bn, int bk, int wm, int wn, int tm, int tn, int split_k = 1,
                int stages = 2) {
  GemmConfig c;
  c.bm = bm, c.bn = bn, c.bk = bk, c.wm = wm, c.wn = wn, c.tm = tm, c.tn = tn;
  c.split_k = split_k, c.stages = stages;
  return c;
}

double tflops(const GemmConfig& c, const Problem& p) {
  return p.flops() / predict(c, p, h200()).ms / 1e9;
}

}  // namespace

TEST(CostModel, LargeThreadTilesBeatSmallOnesOnLargeSquares) {
  const Problem p = Problem::packed(Op::N, Op::N, 4096, 4096, 4096);
  const GemmConfig big = tile(128, 128, 8, 64, 32, 8, 8);
  const GemmConfig small = tile(32, 32, 8, 16, 8, 2, 2);
  EXPECT_LT(predict(big, p, h200()).ms, predict(small, p, h200()).ms);
  // No config beats the FMA peak.
  EXPECT_LT(tflops(big, p), h200().fp32_tflops);
  EXPECT_GT(tflops(big, p), 0.3 * h200().fp32_tflops);
}

TEST(CostModel, TailOfOneExtraWaveCosts) {
  const GemmConfig c = tile(128, 128, 8, 64, 32, 8, 8);
  const int per_wave = h200().sm_count * blocks_per_sm(c, h200());
  ASSERT_GT(per_wave, 0);
  // Exactly one full wave of 128x128 tiles, then one tile more: the extra tile runs alone.
  const Problem full = Problem::packed(Op::N, Op::N, 128 * per_wave, 128, 2048);
  const Problem tail = Problem::packed(Op::N, Op::N, 128 * (per_wave + 1), 128, 2048);
  EXPECT_LT(tflops(c, tail), 0.8 * tflops(c, full));
}

TEST(CostModel, SplitKHelpsDeepKWithFewTiles) {
  const Problem p = Problem::packed(Op::N, Op::N, 64, 64, 65536);
  const GemmConfig one = tile(64, 64, 16, 32, 16, 4, 4, 1);
  const GemmConfig split = tile(64, 64, 16, 32, 16, 4, 4, 64);
  EXPECT_LT(predict(split, p, h200()).ms, 0.2 * predict(one, p, h200()).ms);
  // ...but not where the tiles already fill the GPU: the atomics only add traffic.
  const Problem wide = Problem::packed(Op::N, Op::N, 4096, 4096, 4096);
  EXPECT_GT(predict(tile(64, 64, 16, 32, 16, 4, 4, 8), wide, h200()).ms,
            predict(tile(64, 64, 16, 32, 16, 4, 4, 1), wide, h200()).ms);
}

TEST(CostModel, MatrixVectorIsBoundByBandwidth) {
  const Problem p = Problem::packed(Op::N, Op::N, 1, 4096, 4096);
  const GemmConfig thin = tile(1, 256, 16, 1, 256, 1, 8, 8);
  const Prediction pred = predict(thin, p, h200());
  EXPECT_GT(pred.memory_ms, pred.compute_ms);
  // At least the time to read B (64 MiB) once at the copy bandwidth.
  EXPECT_GE(pred.ms, 4.0 * 4096 * 4096 / (h200().dram_gbs * 1e6));
}

TEST(CostModel, OccupancyFollowsSharedMemoryAndThreads) {
  GpuCeilings g = h200();
  GemmConfig c = tile(128, 128, 32, 64, 32, 8, 8, 1, 3);  // 3 x 32 x 264 x 4 B = 101 KB
  EXPECT_EQ(blocks_per_sm(c, g), g.limits.max_smem_per_sm / c.smem_bytes());
  // Same threads and shared memory, 8x the accumulators: registers allow fewer blocks.
  const GemmConfig small = tile(64, 64, 8, 32, 16, 4, 4), large = tile(128, 128, 8, 64, 32, 8, 8);
  ASSERT_EQ(small.threads(), large.threads());
  EXPECT_LE(blocks_per_sm(small, g), g.max_threads_per_sm / small.threads());
  EXPECT_LT(blocks_per_sm(large, g), blocks_per_sm(small, g));
}

TEST(CostModel, RankByTimeIsStableFastestFirst) {
  EXPECT_EQ(rank_by_time({3.0, 1.0, 2.0, 1.0}), (std::vector<std::size_t>{1, 3, 2, 0}));
  EXPECT_TRUE(rank_by_time({}).empty());
}

// The exhaustive H200 recording (tests/fixtures/h200-exhaustive.tar.xz): on 100^3 a small
// cp.async tile without split-K ran in 5.7 us, a 32x256 tile split twice in 13.4 us. A block
// cannot have the SM's whole FMA rate: with few warps and few steps the load latency binds.
TEST(CostModel, SmallProblemsAreBoundByLoadLatencyNotTheFmaRate) {
  const Problem p = Problem::packed(Op::N, Op::N, 100, 100, 100);
  const GemmConfig small = tile(16, 32, 32, 16, 16, 2, 4, 1, 3);
  const GemmConfig split = tile(32, 256, 8, 32, 64, 8, 8, 2);
  EXPECT_LT(predict(small, p, h200()).ms, predict(split, p, h200()).ms);
  // Fewer K steps of the same latency: a deeper slice helps when latency binds.
  EXPECT_LT(predict(tile(16, 32, 32, 16, 16, 2, 4, 1, 3), p, h200()).compute_ms,
            predict(tile(16, 32, 8, 16, 16, 2, 4, 1, 3), p, h200()).compute_ms);
}

// A reduction whose lanes all lie along K reads an operand stored along the outputs in short
// runs: 1x4096x4096 nn (x^T B) ran 35 us that way, 24 us with a streaming tile.
TEST(CostModel, ReductionsPayForShortRunsAlongTheOutputs) {
  const Problem p = Problem::packed(Op::N, Op::N, 1, 4096, 4096);
  GemmConfig along_k = tile(1, 8, 8, 1, 8, 1, 8);
  along_k.k_lanes = 32;
  GemmConfig along_outputs = tile(1, 128, 16, 1, 32, 1, 4);
  along_outputs.k_lanes = 4;
  ASSERT_FALSE(along_k.validate(h200().limits)) << *along_k.validate(h200().limits);
  ASSERT_FALSE(along_outputs.validate(h200().limits)) << *along_outputs.validate(h200().limits);
  EXPECT_GT(predict(along_k, p, h200()).memory_ms,
            1.3 * predict(along_outputs, p, h200()).memory_ms);
  // With B stored along K (nt) the same lanes read long runs: no penalty.
  GemmConfig nt = along_k;
  nt.op_b = Op::T;
  const Problem pt = Problem::packed(Op::N, Op::T, 1, 4096, 4096);
  EXPECT_LT(predict(nt, pt, h200()).memory_ms, predict(along_k, p, h200()).memory_ms);
}

TEST(CostModel, RepackPaysForItsCopies) {
  // 2999x3001x2003 nn: every leading dimension odd.
  const Problem p = Problem::packed(Op::N, Op::N, 2999, 3001, 2003);
  GemmConfig c = tile(64, 128, 16, 32, 64, 8, 8);
  const GemmConfig narrow = c.fitted_to(p);
  c.repack = true;
  const GemmConfig packed = c.fitted_to(p);
  ASSERT_TRUE(packed.repack);
  ASSERT_EQ(packed.width_a(), 4);
  const double copies =
      predict(packed, p, h200()).overhead_ms - predict(narrow, p, h200()).overhead_ms;
  // A (2999 x 2003) and B (2003 x 3001) read and written once, two launches: about 30 us.
  EXPECT_GT(copies, 0.02);
  EXPECT_LT(copies, 0.05);
  EXPECT_LT(predict(narrow, p, h200()).memory_ms / predict(packed, p, h200()).memory_ms, 2.0);
  EXPECT_GT(predict(narrow, p, h200()).memory_ms, predict(packed, p, h200()).memory_ms);
}

TEST(CostModel, NarrowedReadsCostTheStepsWhatACopyCostsOnlyOnce) {
  // Large odd problems: the narrowed loads slow every step, so the copied twin leads (4097^3 nt
  // on an H200: 128x256 tiles narrowed 4.40 ms, copied 3.74 ms). Small ones: the copies'
  // launches outweigh it (999^3: 128x128 t8x8 k2 narrowed 69.0 us, copied 73.1 us).
  GemmConfig c = tile(128, 256, 8, 64, 64, 16, 8);
  GemmConfig copied = c;
  copied.repack = true;
  const Problem large = Problem::packed(Op::N, Op::T, 4097, 4097, 4097);
  EXPECT_LT(predict(copied.fitted_to(large), large, h200()).ms,
            predict(c.fitted_to(large), large, h200()).ms);
  GemmConfig small_tile = tile(128, 128, 8, 32, 64, 8, 8, 2);
  small_tile.window_c = true;
  GemmConfig small_copied = small_tile;
  small_copied.repack = true;
  const Problem small = Problem::packed(Op::N, Op::N, 999, 999, 999);
  EXPECT_LT(predict(small_tile.fitted_to(small), small, h200()).ms,
            predict(small_copied.fitted_to(small), small, h200()).ms);
  // The charge is on the steps: a narrowed C alone costs none of it.
  const Problem odd_c = Problem::packed(Op::N, Op::T, 4096, 4093, 4096);  // the same tiles
  const GemmConfig c_only = c.fitted_to(odd_c);
  ASSERT_EQ(c_only.width_a(), 4);
  ASSERT_EQ(c_only.width_b(), 4);
  const Problem aligned = Problem::packed(Op::N, Op::T, 4096, 4096, 4096);
  EXPECT_NEAR(predict(c_only, odd_c, h200()).compute_ms, predict(c, aligned, h200()).compute_ms,
              0.02 * predict(c, aligned, h200()).compute_ms);
}

TEST(CostModel, SplittingOnlyTheLastWavesTilesBeatsSplittingNoneOrAll) {
  // 1531^3 in 128x128 tiles: 144 tiles, one for each of 132 SMs and 12 left over.
  const Problem p = Problem::packed(Op::N, Op::N, 1531, 1531, 1531);
  const GemmConfig whole = tile(128, 128, 8, 64, 64, 16, 8, 1);
  GemmConfig all = tile(128, 128, 8, 64, 64, 16, 8, 8), tail = all;
  tail.split_tail = true;
  EXPECT_EQ(predict(tail, p, h200()).blocks, 132 + 12 * 8);
  EXPECT_LT(predict(tail, p, h200()).ms, 0.75 * predict(whole, p, h200()).ms);
  EXPECT_LT(predict(tail, p, h200()).ms, predict(all, p, h200()).ms);
}

// A tile row reads all of B's panel however few of its rows hold data: 97 rows in 32-row tiles
// read B four times, as 128 rows do (the count was M / bm, 3.03 times).
TEST(CostModel, ALastTileRowOfOneRowReadsAllOfB) {
  const GemmConfig c = tile(32, 128, 16, 16, 32, 4, 4);
  ASSERT_FALSE(c.validate(h200().limits)) << *c.validate(h200().limits);
  const Problem odd = Problem::packed(Op::N, Op::N, 97, 4096, 4096);
  const Problem full = Problem::packed(Op::N, Op::N, 128, 4096, 4096);
  EXPECT_GT(predict(c, odd, h200()).memory_ms, 0.95 * predict(c, full, h200()).memory_ms);
}

// One 4-warp block per SM leaves each scheduler a lone warp, which stalls on its fragment loads
// with no other warp to issue: a second block per SM costs less than a second round (the model
// had a lone warp issue every cycle, and ranked split tails of 2500^3 20% ahead of unsplit tiles
// that measured the same on an H200; docs/PERFORMANCE.md, entries of 2026-11-28 and 2026-11-29).
TEST(CostModel, ALoneWarpPerSchedulerLeavesIssueSlotsForASecondBlock) {
  const GemmConfig c = tile(128, 128, 8, 32, 128, 8, 16);
  ASSERT_EQ(c.threads(), 128);
  ASSERT_GE(blocks_per_sm(c, h200()), 2);
  const Problem one_per_sm = Problem::packed(Op::N, Op::N, 128 * 132, 128, 4096);
  const Problem two_per_sm = Problem::packed(Op::N, Op::N, 128 * 264, 128, 4096);
  const double one = predict(c, one_per_sm, h200()).compute_ms;
  const double two = predict(c, two_per_sm, h200()).compute_ms;
  EXPECT_GT(two, 1.5 * one);
  EXPECT_LT(two, 1.9 * one);
}

// A sweep models the GPU it runs on from what the runtime reports. An H200's report gives the
// model's defaults (fitted there), so its rankings are unchanged; another GPU gets its own.
TEST(CostModel, CeilingsComeFromTheDevicesReport) {
  DeviceInfo h200_info;
  h200_info.sm_count = 132;
  h200_info.clock_khz = 1980000;
  h200_info.limits = DeviceLimits::for_arch("sm_90");
  const DeviceReport h200_report{3201000, 6016, 2048, 32};  // cudaDeviceGetAttribute on an H200
  const GpuCeilings g = GpuCeilings::of(h200_info, h200_report);
  EXPECT_NEAR(g.dram_gbs, h200().dram_gbs, 1e-9);
  EXPECT_NEAR(g.fp32_tflops, h200().fp32_tflops, 0.01);
  EXPECT_EQ(g.sm_count, h200().sm_count);
  EXPECT_EQ(g.max_threads_per_sm, h200().max_threads_per_sm);
  EXPECT_EQ(g.max_blocks_per_sm, h200().max_blocks_per_sm);
  // The same ranking as the defaults on shapes of every regime.
  const std::vector<GemmConfig> configs = {
      tile(128, 128, 8, 64, 32, 8, 8),   tile(64, 64, 16, 32, 32, 4, 8),
      tile(32, 32, 8, 16, 8, 2, 2),      tile(64, 64, 8, 32, 32, 4, 8, 8),
      tile(128, 64, 8, 64, 32, 8, 4, 4), tile(16, 64, 16, 16, 32, 2, 4, 16)};
  for (const Problem& p :
       {Problem::packed(Op::N, Op::N, 4096, 4096, 4096),
        Problem::packed(Op::N, Op::T, 64, 64, 65536), Problem::packed(Op::T, Op::N, 33, 2000, 1000),
        Problem::packed(Op::N, Op::N, 1000, 1000, 1000)}) {
    std::vector<double> mine, defaults;
    for (const GemmConfig& c : configs) {
      GemmConfig fitted = c;
      fitted.op_a = p.op_a, fitted.op_b = p.op_b;
      mine.push_back(predict(fitted, p, g).ms);
      defaults.push_back(predict(fitted, p, h200()).ms);
    }
    EXPECT_EQ(rank_by_time(mine), rank_by_time(defaults)) << p.label();
  }
  // An A100 (80 GB): its own bandwidth and per-SM limits.
  DeviceInfo a100 = h200_info;
  a100.sm_count = 108, a100.clock_khz = 1410000, a100.limits = DeviceLimits::for_arch("sm_80");
  const GpuCeilings ga = GpuCeilings::of(a100, DeviceReport{1593000, 5120, 2048, 32});
  EXPECT_NEAR(ga.dram_gbs, 2039 * kCopyShareOfDramPeak, 1);
  EXPECT_EQ(ga.sm_count, 108);
  EXPECT_LT(ga.fp32_tflops, g.fp32_tflops);
}
