// The compile pool without a GPU: NVRTC on worker threads, results in the planned order, and
// the database's binary cache reused by the next pool.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/compile_pool.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {
class Pool : public gemmtune::test::ScratchDirTest {};

// Four configs with distinct binaries, valid on sm_90.
std::vector<GemmConfig> four_configs() {
  GemmConfig a, b;
  b.bm = 64, b.wm = 32, b.wn = 64, b.tm = 4, b.tn = 16;
  GemmConfig c = a, d = b;
  c.vec = 1, d.vec = 1;
  return {a, b, c, d};
}

// Waits until the pool has run `n` NVRTC compiles; false after two minutes.
bool wait_for_compiles(CompilePool& pool, std::size_t n) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (pool.stats().compiles < n) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// One worker, one result ahead: `first` compiled by the worker and `held` left in the queue until
// `first` is taken, so the worker is idle with the current plan's queue not empty.
void hold(CompilePool& pool, const GemmConfig& first, const GemmConfig& held) {
  ASSERT_EQ(pool.threads(), 1u);
  pool.enqueue({first, held});
  ASSERT_TRUE(wait_for_compiles(pool, 1));
}
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

TEST_F(Pool, FourDistinctValidConfigs) {
  const auto configs = four_configs();
  std::set<std::string> binaries;
  for (const auto& c : configs) {
    EXPECT_FALSE(c.validate(DeviceLimits::for_arch("sm_90"))) << config_name(c);
    binaries.insert(binary_identity(c, "sm_90"));
  }
  EXPECT_EQ(binaries.size(), configs.size());
}

// The next problem's first round (enqueue_next) is compiled by idle workers, kept like any
// other result, and kept by clear(), which ends the current problem.
TEST_F(Pool, CompilesTheNextQueueOnceTheQueueIsEmpty) {
  const auto cfg = four_configs();
  {
    CompilePool pool("sm_90", "", 2);
    pool.enqueue_next({cfg[0], cfg[1]});
    ASSERT_TRUE(wait_for_compiles(pool, 2));
    EXPECT_EQ(pool.take(cfg[0])->origin, CompileOrigin::compiled);
    EXPECT_EQ(pool.take(cfg[1])->origin, CompileOrigin::compiled);
    EXPECT_EQ(pool.stats().compiles, 2u);
  }
  CompilePool pool("sm_90", "", 1, 1);
  hold(pool, cfg[2], cfg[3]);
  pool.enqueue_next({cfg[0]});  // not compiled while the queue holds cfg[3]
  pool.clear();                 // the current problem ends: cfg[3] dropped, cfg[0] not
  ASSERT_TRUE(wait_for_compiles(pool, 2));
  pool.wait_idle();
  EXPECT_EQ(pool.take(cfg[0])->origin, CompileOrigin::compiled);
  EXPECT_EQ(pool.stats().compiles, 2u);  // cfg[3] never
}

// The current plan's queue goes first: with it held back, the next queue waits; once it moves,
// its configs are compiled before the next queue's.
TEST_F(Pool, TheCurrentPlanGoesBeforeTheNextQueue) {
  const auto cfg = four_configs();
  CompilePool pool("sm_90", "", 1, 1, 1);  // keeps only the newest result
  hold(pool, cfg[2], cfg[1]);
  pool.enqueue_next({cfg[0]});
  pool.take(cfg[2]);  // room ahead: cfg[1], then cfg[0]
  ASSERT_TRUE(wait_for_compiles(pool, 3));
  // cfg[0] is the newest result, kept; had it gone first, cfg[1] would have pushed it out.
  EXPECT_EQ(pool.take(cfg[0])->origin, CompileOrigin::compiled);
  EXPECT_EQ(pool.stats().compiles, 3u);
}

// A take() of a config waiting in the next queue compiles it on the calling thread and removes it
// there: it is compiled once, and no worker meets it again.
TEST_F(Pool, TakesAConfigWaitingInTheNextQueue) {
  const auto cfg = four_configs();
  CompilePool pool("sm_90", "", 1, 1);
  hold(pool, cfg[2], cfg[3]);
  pool.enqueue_next({cfg[0], cfg[1]});
  auto a = pool.take(cfg[0]);
  ASSERT_TRUE(a->ok) << a->log;
  EXPECT_EQ(a->origin, CompileOrigin::compiled);
  EXPECT_EQ(pool.stats().compiles, 2u);
  pool.take(cfg[2]);  // room ahead: the worker goes on with cfg[3], then the next queue's cfg[1]
  pool.take(cfg[3]);
  ASSERT_TRUE(wait_for_compiles(pool, 4));
  pool.wait_idle();
  EXPECT_EQ(pool.take(cfg[0])->origin, CompileOrigin::reused);
  EXPECT_EQ(pool.take(cfg[1])->origin, CompileOrigin::compiled);
  const PoolStats s = pool.stats();
  EXPECT_EQ(s.compiles, 4u);
  EXPECT_EQ(s.skipped, 0u);  // cfg[0] was no longer in the next queue
}

// wait_idle() drops the next queue: nothing of it is compiled afterwards.
TEST_F(Pool, WaitIdleDropsTheNextQueue) {
  const auto cfg = four_configs();
  CompilePool pool("sm_90", "", 1, 1);
  hold(pool, cfg[2], cfg[3]);
  pool.enqueue_next({cfg[0]});
  pool.wait_idle();  // the held queue counts as idle
  pool.clear();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  pool.wait_idle();
  EXPECT_EQ(pool.stats().compiles, 1u);
}

// The next queue's results wait for the next problem: they hold no room of the current plan's
// look-ahead (here one result).
TEST_F(Pool, TheNextQueuesResultsAreNotAhead) {
  const auto cfg = four_configs();
  CompilePool pool("sm_90", "", 1, 1);
  pool.enqueue_next({cfg[0]});
  ASSERT_TRUE(wait_for_compiles(pool, 1));
  pool.enqueue({cfg[1]});
  EXPECT_TRUE(wait_for_compiles(pool, 2));
}
