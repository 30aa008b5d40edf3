// The compile pool without a GPU: NVRTC on worker threads, results in the planned order, and
// the database's binary cache reused by the next pool.
#include <gtest/gtest.h>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/compile_pool.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {
class Pool : public gemmtune::test::ScratchDirTest {};
}  // namespace

TEST_F(Pool, CompilesAheadAndReusesTheBinaryCache) {
  std::string path = this->path("t.db");
  { db::Database create(path, db::OpenMode::read_write, kernel_families()); }
  GemmConfig a, b;
  b.bm = 64, b.wm = 32, b.wn = 64, b.tm = 4, b.tn = 16;
  ASSERT_FALSE(b.validate(DeviceLimits::for_arch("sm_90")));
  GemmConfig broken;  // not a valid template instance: compile_failed with a log
  broken.wm = 48, broken.tm = 3;
  std::vector<std::shared_ptr<CompiledCandidate>> got;
  {
    CompilePool pool("sm_90", path, 2);
    EXPECT_EQ(pool.threads(), 2u);
    pool.enqueue({a, b, broken});
    for (const auto& c : {a, b, broken}) got.push_back(pool.take(c));
  }
  ASSERT_TRUE(got[0]->ok) << got[0]->log;
  ASSERT_TRUE(got[1]->ok) << got[1]->log;
  EXPECT_FALSE(got[2]->ok);
  EXPECT_FALSE(got[2]->log.empty());
  EXPECT_FALSE(got[0]->from_cache);
  EXPECT_EQ(got[0]->cache_key, binary_key(a, "sm_90"));
  EXPECT_GT(got[0]->resources.registers, 0);
  {
    db::Database db(path, db::OpenMode::read_write, kernel_families());
    db.put_binary(to_binary(*got[0], "sm_90"));
  }
  CompilePool pool("sm_90", path, 1);
  auto again = pool.take(a);  // not queued: looked up on the calling thread
  ASSERT_TRUE(again->ok);
  EXPECT_TRUE(again->from_cache);
  EXPECT_EQ(again->cubin, got[0]->cubin);
  EXPECT_EQ(again->lowered_name, got[0]->lowered_name);
  EXPECT_EQ(again->resources.registers, got[0]->resources.registers);
  pool.enqueue({b, a});
  auto b2 = pool.take(b);
  EXPECT_FALSE(b2->from_cache);  // b was never stored
  EXPECT_TRUE(pool.take(a)->from_cache);
}

// A binary is compiled once in the pool's life: asked for again in a later plan, after clear()
// (the next problem), or while a worker compiles it, it is reused, not compiled again.
TEST_F(Pool, CompilesEachBinaryOnce) {
  GemmConfig a, b;
  b.bm = 64, b.wm = 32, b.wn = 64, b.tm = 4, b.tn = 16;
  CompilePool pool("sm_90", "", 2);
  pool.enqueue({a, b});
  pool.enqueue({b, a, b});  // a new plan naming them again while they compile
  auto first = pool.take(a);
  EXPECT_EQ(first->origin, CompileOrigin::compiled);
  EXPECT_FALSE(first->from_cache);
  pool.clear();  // b may still be compiling: its result is kept when it ends
  pool.wait_idle();
  EXPECT_EQ(pool.stats().compiles, 2u);
  auto b1 = pool.take(b);
  EXPECT_EQ(b1->origin, CompileOrigin::compiled);  // compiled for an earlier plan, first taken now
  pool.enqueue({a, b});                            // the next problem's plan
  pool.wait_idle();
  auto again = pool.take(a);
  EXPECT_EQ(again->origin, CompileOrigin::reused);
  EXPECT_TRUE(again->from_cache);  // stored by whoever took it first
  EXPECT_EQ(again->cubin, first->cubin);
  EXPECT_EQ(again->config, a);
  EXPECT_EQ(pool.take(b)->origin, CompileOrigin::reused);
  const PoolStats s = pool.stats();
  EXPECT_EQ(s.compiles, 2u);
  EXPECT_GE(s.skipped, 3u);
  EXPECT_GT(s.compile_s, 0);
}

// Configs with the same binary identity have the same binary-cache key, and configs of one
// problem's candidate set that differ in name differ in both: the pool's key is the cache's.
TEST_F(Pool, TheBinaryIdentityIsTheCacheKeysText) {
  GemmConfig a, packed;
  packed.repack = true, packed.align_a = 1;  // a define and narrowed widths
  GemmConfig wide = a;
  wide.align_a = 2, wide.vec = 1;  // the same widths as vec 1 with aligned data
  GemmConfig narrow = a;
  narrow.vec = 1;
  for (const auto& [x, y] : {std::pair{a, packed}, {a, narrow}, {wide, narrow}}) {
    EXPECT_EQ(binary_identity(x, "sm_90") == binary_identity(y, "sm_90"),
              binary_key(x, "sm_90") == binary_key(y, "sm_90"))
        << config_name(x) << " / " << config_name(y);
    EXPECT_EQ(binary_identity(x, "sm_90") == binary_identity(y, "sm_90"),
              config_name(x) == config_name(y));
  }
  EXPECT_NE(binary_identity(a, "sm_90"), binary_identity(a, "sm_80"));
}
