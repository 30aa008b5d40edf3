// The built-in step of the fallback chain: with no tuning data, each shape class gets its own
// kernel path and tile (runtime/src/dispatch/builtin.cpp), valid on every supported
// architecture, able to run the problem, and deterministic when the dispatcher must be.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gemmtune/choice.hpp"

namespace gemmtune::test {
namespace {

struct Shape {
  Op a, b;
  long long m, n, k, batch;
};

// Problems of every class in several layouts, odd sizes among them.
const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all = {
      {Op::N, Op::N, 1, 1, 300000, 1},     {Op::T, Op::T, 1, 1, 3, 1},
      {Op::N, Op::T, 3, 5, 70000, 1},      {Op::N, Op::N, 1, 6000, 3000, 1},
      {Op::N, Op::T, 1, 4001, 4001, 1},    {Op::T, Op::N, 5000, 1, 2500, 1},
      {Op::N, Op::N, 4999, 1, 333, 1},     {Op::N, Op::T, 4, 11008, 4096, 1},
      {Op::N, Op::N, 8, 3000, 3000, 1},    {Op::N, Op::T, 3000, 24, 3000, 1},
      {Op::N, Op::N, 10000, 64, 256, 1},   {Op::N, Op::N, 64, 65536, 64, 1},
      {Op::N, Op::N, 96, 96, 70000, 1},    {Op::T, Op::N, 200, 300, 50000, 1},
      {Op::N, Op::N, 13, 17, 19, 1},       {Op::T, Op::T, 333, 777, 55, 1},
      {Op::N, Op::T, 17, 33, 65, 128},     {Op::N, Op::N, 127, 257, 1023, 1},
      {Op::N, Op::N, 1000, 1000, 1000, 1}, {Op::T, Op::N, 96, 5120, 5120, 1},
      {Op::N, Op::N, 256, 256, 64, 96},    {Op::T, Op::T, 1001, 999, 1003, 1},
      {Op::N, Op::T, 2500, 2500, 2500, 1}, {Op::T, Op::N, 8192, 8192, 8192, 1},
      {Op::N, Op::N, 4096, 4096, 4096, 1}, {Op::N, Op::T, 20, 2, 300, 1},
      {Op::T, Op::N, 3000, 4, 2000, 1},    {Op::T, Op::T, 4000, 3, 500, 1},
      {Op::N, Op::N, 33, 33, 33, 500},     {Op::T, Op::N, 24, 24, 96, 2000},
      {Op::T, Op::N, 16, 60000, 1024, 1},  {Op::N, Op::T, 80000, 48, 256, 1},
      {Op::T, Op::T, 30, 50000, 300, 1},   {Op::N, Op::N, 40, 70000, 128, 1},
      {Op::N, Op::N, 90000, 12, 64, 1},    {Op::T, Op::T, 70000, 30, 100, 1},
  };
  return all;
}

Problem problem_of(const Shape& s) { return shape_only_problem(s.a, s.b, s.m, s.n, s.k, s.batch); }

Choice untuned_choice(const std::string& arch, const Problem& p, bool deterministic = false) {
  TuningSnapshot none;
  none.sm_count = 132;
  return Chooser(DeviceLimits::for_arch(arch), none, deterministic).choose(p);
}

TEST(BuiltinClasses, EveryClassRunsItsOwnConfigOnEveryArchitecture) {
  for (const std::string arch : {"sm_80", "sm_86", "sm_89", "sm_90"})
    for (const Shape& s : shapes()) {
      const Problem p = problem_of(s);
      const Choice c = untuned_choice(arch, p);
      SCOPED_TRACE(arch + " " + p.label() + " -> " + config_name(c.config));
      EXPECT_EQ(c.source, ChoiceSource::builtin);
      EXPECT_EQ(c.config.validate(DeviceLimits::for_arch(arch)), std::nullopt);
      EXPECT_EQ(c.config.can_implement(p), std::nullopt);
      // The class config itself, not the general default the chain ends with when it fails.
      for (const std::string& line : c.trail)
        EXPECT_EQ(line.rfind("builtin:", 0), std::string::npos) << line;
    }
}

TEST(BuiltinClasses, DotAndMatrixVectorProductsTakeTheirPaths) {
  // A dot product: the reduction, split across blocks for a long K.
  Choice dot = untuned_choice("sm_90", shape_only_problem(Op::N, Op::N, 1, 1, 300000));
  EXPECT_TRUE(dot.config.reduces()) << config_name(dot.config);
  EXPECT_GT(dot.config.split_k, 1) << config_name(dot.config);
  // x^T B with B's rows along N: B streamed; x^T B^T: the reduction.
  EXPECT_TRUE(
      untuned_choice("sm_90", shape_only_problem(Op::N, Op::N, 1, 6000, 3000)).config.streams_b());
  EXPECT_TRUE(
      untuned_choice("sm_90", shape_only_problem(Op::N, Op::T, 1, 4001, 4001)).config.reduces());
  // Deep K: split.
  EXPECT_GT(untuned_choice("sm_90", shape_only_problem(Op::N, Op::N, 96, 96, 70000)).config.split_k,
            8);
  // A small problem does not get a 128x128 tile.
  EXPECT_LT(untuned_choice("sm_90", shape_only_problem(Op::N, Op::N, 100, 100, 100)).config.bm,
            128);
}

TEST(BuiltinClasses, AFewColumnsAndBatchesOfSmallMatricesTakeTheirTiles) {
  // A few columns with both operands stored along K (nt): the reduction, whatever K.
  for (long long k : {300LL, 8192LL}) {
    const Choice c = untuned_choice("sm_90", shape_only_problem(Op::N, Op::T, 96, 2, k));
    EXPECT_TRUE(c.config.reduces()) << config_name(c.config);
    EXPECT_EQ(c.config.bn, 4) << config_name(c.config);
  }
  // A few columns of A^T: a tile four columns wide, K split where the tiles leave SMs idle.
  const Choice thin = untuned_choice("sm_90", shape_only_problem(Op::T, Op::N, 3000, 4, 2000));
  EXPECT_EQ(thin.config.bn, 4) << config_name(thin.config);
  EXPECT_GT(thin.config.split_k, 1) << config_name(thin.config);
  // A batch of small matrices: one tile about each, not the skinny rule's 128-row tile.
  for (long long side : {24LL, 33LL, 200LL}) {
    const Choice c =
        untuned_choice("sm_90", shape_only_problem(Op::N, Op::N, side, side, side, 500));
    EXPECT_EQ(c.config.bm, side <= 32 ? 32 : 64) << config_name(c.config);
    EXPECT_EQ(c.config.split_k, 1) << config_name(c.config);
  }
}

TEST(BuiltinClasses, ASkinnyProblemsTileIsAsShortAsItsShortSide) {
  for (long long side : {16LL, 24LL, 48LL}) {
    const Choice wide = untuned_choice("sm_90", shape_only_problem(Op::T, Op::N, side, 60000, 512));
    const Choice tall = untuned_choice("sm_90", shape_only_problem(Op::N, Op::T, 60000, side, 512));
    EXPECT_LE(wide.config.bm, side + 15) << config_name(wide.config);
    EXPECT_LE(tall.config.bn, side + 15) << config_name(tall.config);
    EXPECT_GE(wide.config.bn, 64) << config_name(wide.config);
    EXPECT_GE(tall.config.bm, 64) << config_name(tall.config);
  }
}

TEST(BuiltinClasses, ADeterministicDispatcherGetsNoAtomicSplits) {
  for (const Shape& s : shapes()) {
    const Problem p = problem_of(s);
    const Choice c = untuned_choice("sm_90", p, /*deterministic=*/true);
    SCOPED_TRACE(p.label() + " -> " + config_name(c.config));
    EXPECT_TRUE(c.config.deterministic());
    EXPECT_EQ(c.config.validate(DeviceLimits::for_arch("sm_90")), std::nullopt);
  }
}

TEST(BuiltinClasses, SplitsFollowTheGpusSize) {
  // The same deep-K problem splits less on a GPU of fewer SMs.
  const Problem p = shape_only_problem(Op::N, Op::N, 96, 96, 70000);
  TuningSnapshot small_gpu;
  small_gpu.sm_count = 16;
  const Choice on_16 = Chooser(DeviceLimits::for_arch("sm_90"), small_gpu).choose(p);
  EXPECT_LT(on_16.config.split_k, untuned_choice("sm_90", p).config.split_k);
}

}  // namespace
}  // namespace gemmtune::test
