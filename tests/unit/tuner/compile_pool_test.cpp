// The compile pool without a GPU: NVRTC on worker threads, results in the planned order, and
// the database's binary cache reused by the next pool.
#include <gtest/gtest.h>

#include "gemmtune/db/database.hpp"
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
  { db::Database create(path, db::OpenMode::read_write); }
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
    db::Database db(path, db::OpenMode::read_write);
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
