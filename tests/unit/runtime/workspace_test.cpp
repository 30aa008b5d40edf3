// The launch workspace's sizes, without a GPU: packed copies have rows of a multiple of 4 floats
// and hold every matrix of the batch; only what a config packs (or counts) takes room.
#include <gtest/gtest.h>

#include <cstdint>

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
  const Problem p = Problem::packed(Op::N, Op::T, 2999, 3001, 2003, 2);  // A 2999 x 2003, B 3001 x 2003
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
  EXPECT_EQ(LaunchWorkspace::packed_floats(repack, even_k), size_t(2999) * 2004);  // rows as long as A's, not lda
}
