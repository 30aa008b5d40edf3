// The runtime <-> database rows module: what the tuner and the dispatcher store reads back the same.
#include <gtest/gtest.h>

#include "gemmtune/db_rows.hpp"
#include "gemmtune/tuner/space.hpp"

using namespace gemmtune;

TEST(DbRows, ConfigsRoundTripInEveryLayout) {
  const DeviceLimits sm90 = DeviceLimits::for_arch("sm_90");
  for (Op a : {Op::N, Op::T})
    for (Op b : {Op::N, Op::T})
      for (const GemmConfig& c : tuner::coverage_sample(sm90, a, b)) {
        db::KernelConfig row = to_db(c);
        EXPECT_EQ(row.name, config_name(c));
        EXPECT_EQ(row.op_a, op_char(a));
        EXPECT_EQ(row.op_b, op_char(b));
        for (const Knob& knob : kSgemmKnobs) EXPECT_EQ(knob.get(row), knob.get(c)) << knob.name;
        EXPECT_EQ(from_db(row), c) << row.name;
        const GemmConfig narrowed = c.fitted_to(Problem::packed(a, b, 7, 13, 11));  // odd: 1-float accesses
        EXPECT_EQ(from_db(to_db(narrowed)), narrowed) << config_name(narrowed);
      }
}

TEST(DbRows, RowsOfAnotherFamilyOrLayoutAreNotConfigs) {
  db::KernelConfig row = to_db(GemmConfig{});
  row.family = "hgemm";
  EXPECT_FALSE(from_db(row));
  row = to_db(GemmConfig{});
  row.op_b = 'x';
  EXPECT_FALSE(from_db(row));
}

// The binary cache's smem_bytes holds all of a block's shared memory (dynamic + static), whoever
// stored it: a kernel cached by the dispatcher reads back in the tuner with its static share.
TEST(DbRows, BinariesKeepTheirResources) {
  GemmConfig c;
  c.stages = 3, c.bk = 16;
  CompiledKernel k{{'\x7f', 'E', 'L', 'F'}, "_Z5sgemm", {}};
  k.resources.registers = 128;
  k.resources.spill_stores = 8;
  k.resources.static_smem = 4;
  db::Binary row = to_binary(c, "sm_90", "key", k);
  EXPECT_EQ(row.smem_bytes, c.smem_bytes() + 4);
  EXPECT_EQ(row.registers, 128);
  EXPECT_EQ(row.config_name, config_name(c));
  CompiledKernel back = from_binary(c, row);
  EXPECT_EQ(back.cubin, k.cubin);
  EXPECT_EQ(back.lowered_name, k.lowered_name);
  EXPECT_EQ(back.resources.registers, 128);
  EXPECT_EQ(back.resources.spill_stores, 8);
  EXPECT_EQ(back.resources.static_smem, 4);

  k.resources.registers = -1;  // unknown: stored as NULL, read back as unknown
  EXPECT_FALSE(to_binary(c, "sm_90", "key", k).registers);
  EXPECT_EQ(from_binary(c, to_binary(c, "sm_90", "key", k)).resources.registers, -1);
}

// Repack has no column (nor do the access widths): the name carries it, and from_db reads it
// back; the plain and the repack instance are two rows with the same knob columns.
TEST(DbRows, RepackConfigsRoundTripThroughTheName) {
  GemmConfig c;
  c.op_b = Op::T, c.repack = true;
  const GemmConfig fitted = c.fitted_to(Problem::packed(Op::N, Op::T, 2999, 3001, 2003));
  ASSERT_TRUE(fitted.repack);
  const db::KernelConfig row = to_db(fitted);
  EXPECT_TRUE(row.name.ends_with("_g4x4x1_q")) << row.name;
  EXPECT_EQ(from_db(row), fitted) << row.name;
  GemmConfig plain = fitted;
  plain.repack = false;
  const db::KernelConfig plain_row = to_db(plain);
  EXPECT_NE(plain_row.name, row.name);
  EXPECT_EQ(static_cast<const SgemmKnobs&>(plain_row), static_cast<const SgemmKnobs&>(row));
  EXPECT_EQ(from_db(plain_row), plain);
}
