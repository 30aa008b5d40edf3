// The launch workspace's sizes, without a GPU: packed copies have rows of a multiple of 4 floats
// and hold every matrix of the batch; only what a config packs (or counts) takes room.
#include <gtest/gtest.h>

#include <cstdint>

#include "gemmtune/kernel_args.h"
#include "gemmtune/workspace.hpp"

using namespace gemmtune;

TEST(Workspace, PackedRowsAndMatricesAreMultiplesOfFourFloats) {
  for (int cols : {1, 2, 3, 4, 5, 2003}) {
    const PackedOperand op = PackedOperand::layout(7, cols);
    EXPECT_EQ(op.ld % 4, 0) << cols;
    EXPECT_GE(op.ld, cols);
    EXPECT_LT(op.ld, cols + 4);
    EXPECT_EQ(op.stride, op.ld * 7);
    EXPECT_EQ(op.floats(3), size_t(op.stride) * 3);
  }
  EXPECT_EQ(PackedOperand::layout(1, 1).ld, 4);
}

TEST(Workspace, SizesFollowWhatTheConfigPacksAndCounts) {
  const Problem p =
      Problem::packed(Op::N, Op::T, 2999, 3001, 2003, 2);  // A 2999 x 2003, B 3001 x 2003
  GemmConfig plain;
  plain.op_b = Op::T;
  EXPECT_EQ(LaunchWorkspace::packed_floats(plain, p), 0u);
  EXPECT_EQ(LaunchWorkspace::tile_count(plain, p), 0u);
  GemmConfig repack = plain;
  repack.repack = true, repack.split_k = 2;
  EXPECT_EQ(LaunchWorkspace::packed_floats(repack, p), size_t(2) * (2999 * 2004 + 3001 * 2004));
  EXPECT_EQ(LaunchWorkspace::tile_count(repack, p), size_t(24 * 24 * 2));
  // B aligned (rows of K = 2004 floats, 16-byte aligned pointer): only A is copied.
  Problem even_k = Problem::packed(Op::N, Op::T, 2999, 3001, 2004);
  even_k.a = even_k.b = reinterpret_cast<const float*>(std::uintptr_t(0x1000));
  even_k.c = reinterpret_cast<float*>(std::uintptr_t(0x1000));
  even_k.lda = 2005, even_k.stride_a = 2005 * 2999;
  EXPECT_EQ(LaunchWorkspace::packed_floats(repack, even_k),
            size_t(2999) * 2004);  // rows as long as A's, not lda
}

// Split configs take one counter per tile; ordered splits (a split reduction's) also their
// sums, from the first multiple of kSplitSumsAlign counters on (the Epilogue finds them there).
TEST(Workspace, OrderedSplitsKeepTheirSumsAfterTheCounters) {
  GemmConfig split;
  split.split_k = 4;
  const Problem square = Problem::packed(Op::N, Op::N, 256, 256, 4096, 3);
  EXPECT_EQ(LaunchWorkspace::counter_words(split, square),
            LaunchWorkspace::tile_count(split, square));
  auto atomic_dot = parse_config_name("sgemm_nn_1x1x8_w1x1_t1x1_s2_v4_p4_k128_r8_l32_j2");
  ASSERT_TRUE(atomic_dot.has_value());
  EXPECT_EQ(
      LaunchWorkspace::counter_words(*atomic_dot, Problem::packed(Op::N, Op::N, 1, 1, 100000)), 1u);
  auto dot = parse_config_name("sgemm_nn_1x1x8_w1x1_t1x1_s2_v4_p4_k128_r8_l32_j2_d");
  ASSERT_TRUE(dot.has_value());
  const Problem dots = Problem::packed(Op::N, Op::N, 1, 1, 100000, 3);  // one tile per matrix
  EXPECT_EQ(LaunchWorkspace::tile_count(*dot, dots), 3u);
  EXPECT_EQ(LaunchWorkspace::counter_words(*dot, dots), size_t(kSplitSumsAlign) + 3 * 128);
  auto rows =
      parse_config_name("sgemm_nn_4x1x8_w4x1_t1x1_s2_v4_p4_k4_r8_l8_d");  // 4 outputs a tile
  ASSERT_TRUE(rows.has_value());
  const Problem mv = Problem::packed(Op::N, Op::N, 4099, 1, 700);  // 1025 tiles
  EXPECT_EQ(LaunchWorkspace::counter_words(*rows, mv), size_t(1088) + 1025 * 4 * 4);
  EXPECT_EQ(LaunchWorkspace::counter_words(*dot, Problem::packed(Op::N, Op::N, 1, 1, 100000)),
            size_t(kSplitSumsAlign) + 128);
}

TEST(Workspace, WarpgroupConfigsSplitBothOperandsIntoWholeTiles) {
  const Problem p = Problem::packed(Op::N, Op::T, 2999, 3001, 2003, 2);
  GemmConfig c;
  c.op_b = Op::T;
  c.bm = 128, c.bn = 64, c.bk = 32, c.wm = 16, c.wn = 64, c.tm = 2, c.tn = 16, c.stages = 3,
  c.math = 3, c.wgmma = 1;
  // K = 2003 in rows of 2016 floats; A's 2999 rows in 24 tiles of 128, B's 3001 in 47 of 64; two
  // planes each, two matrices.
  const PackedOperand a = PackedOperand::split_layout(2999, 2003, 128, 2);
  EXPECT_EQ(a.ld, 2016);
  EXPECT_EQ(a.plane, 3072LL * 2016);
  EXPECT_EQ(a.stride, 2 * a.plane);
  EXPECT_EQ(LaunchWorkspace::packed_floats(c, p), size_t(2) * 2 * 2016 * (3072 + 3008));
  GemmConfig tf32 = c;
  tf32.math = 1;  // big parts only
  EXPECT_EQ(LaunchWorkspace::packed_floats(tf32, p), size_t(2) * 2016 * (3072 + 3008));
  EXPECT_EQ(LaunchWorkspace::tile_count(c, p), 0u);
  // With K a multiple of 4 a 1xTF32 config reads both operands of nt in place: nothing to copy;
  // in nn it copies B only.
  const Problem aligned_k = Problem::packed(Op::N, Op::T, 2999, 3001, 2004, 2);
  EXPECT_EQ(LaunchWorkspace::packed_floats(tf32, aligned_k), 0u);
  EXPECT_EQ(LaunchWorkspace::packed_floats(c, aligned_k), size_t(2) * 2 * 2016 * (3072 + 3008));
  GemmConfig nn = tf32;
  nn.op_b = Op::N;
  EXPECT_EQ(LaunchWorkspace::packed_floats(nn, Problem::packed(Op::N, Op::N, 2999, 3001, 2004, 2)),
            size_t(2) * 2016 * 3008);
}
