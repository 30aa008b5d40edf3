// waves_of() and split_tail_tiles(): how a grid's blocks spread over the SMs, the one model the
// dispatcher's chooser and the tuner's cost model share.
#include <gtest/gtest.h>

#include <cmath>

#include "gemmtune/waves.hpp"

using namespace gemmtune;

TEST(Waves, BusiestSmRunsRoundsOfResidentBlocks) {
  // 300 blocks on 132 SMs: 3 on the busiest, two at once, so a full round and one block.
  const Waves w = waves_of(300, 132, 2);
  EXPECT_EQ(w.on_busiest, 3);
  EXPECT_EQ(w.resident, 2);
  EXPECT_EQ(w.full_rounds, 1);
  EXPECT_EQ(w.rest, 1);
  EXPECT_DOUBLE_EQ(w.fill, 300.0 / (2 * 132 * 2));  // two waves of 264 slots
  // Exactly full waves.
  const Waves full = waves_of(264, 132, 2);
  EXPECT_EQ(full.full_rounds, 1);
  EXPECT_EQ(full.rest, 0);
  EXPECT_DOUBLE_EQ(full.fill, 1);
  // Fewer blocks than one per SM at once: one round of them.
  const Waves few = waves_of(100, 132, 4);
  EXPECT_EQ(few.on_busiest, 1);
  EXPECT_EQ(few.resident, 1);
  EXPECT_DOUBLE_EQ(few.fill, 100.0 / (132 * 4));
  // No blocks: nothing runs, nothing idles.
  const Waves none = waves_of(0, 132, 2);
  EXPECT_EQ(none.on_busiest, 0);
  EXPECT_EQ(none.full_rounds, 0);
  EXPECT_DOUBLE_EQ(none.fill, 1);
}

// The rounds account for every block of the busiest SM, and the fill is the share of the slots
// of ceil(blocks / (SMs x per SM)) waves.
TEST(Waves, RoundsAndFillAgreeEverywhere) {
  for (int sms : {1, 7, 108, 132})
    for (int per_sm : {1, 2, 3, 4})
      for (double blocks = 1; blocks < 2000; blocks += 13) {
        const Waves w = waves_of(blocks, sms, per_sm);
        EXPECT_EQ(w.full_rounds * w.resident + w.rest, w.on_busiest);
        EXPECT_LT(w.rest, w.resident);
        EXPECT_GE(w.on_busiest * sms, blocks);
        EXPECT_LT((w.on_busiest - 1) * sms, blocks);
        const double slots = double(sms) * per_sm;
        EXPECT_DOUBLE_EQ(w.fill, blocks / (std::ceil(blocks / slots) * slots))
            << blocks << " blocks, " << sms << " SMs, " << per_sm;
        EXPECT_GT(w.fill, 0);
        EXPECT_LE(w.fill, 1);
      }
}

TEST(Waves, HugeGridsAndBadCountsStayFinite) {
  const Waves huge = waves_of(1e30, 132, 4);  // beyond 64 bits: a fill still comes out
  EXPECT_GT(huge.fill, 0.99);
  EXPECT_LE(huge.fill, 1.0);
  const Waves no_sms = waves_of(10, 0, 0);  // counted as one SM holding one block
  EXPECT_EQ(no_sms.on_busiest, 10);
  EXPECT_DOUBLE_EQ(no_sms.fill, 1);
}

TEST(Waves, SplitTailSplitsTheTilesPastWholeRounds) {
  EXPECT_EQ(split_tail_tiles(300, 132), 36);
  EXPECT_EQ(split_tail_tiles(264, 132), 0);
  EXPECT_EQ(split_tail_tiles(100, 132), 100);
}
