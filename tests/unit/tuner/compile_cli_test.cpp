// `gemmtune compile` as a user runs it, without a GPU: it stores the cubins of exactly the configs
// a sweep of the same problems would compile, under the keys the sweep looks up; a rerun compiles
// nothing; Ctrl-C stops it with status 130, keeping what it stored.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <set>
#include <sstream>
#include <thread>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/shard.hpp"
#include "gemmtune/tuner/sweep.hpp"
#include "support/cli.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

class CompileCli : public gemmtune::test::ScratchDirTest {};

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The configs a sweep of 1x1x1024 could compile on sm_90, 132 SMs: those of the dot product's
// kernel form (nt), which the CLI tunes.
std::vector<GemmConfig> dot_product_configs() {
  SweepOptions o;
  o.problems = {kernel_spec({Op::N, Op::N, 1, 1, 1024, 1})};
  DeviceInfo dev;
  dev.limits = DeviceLimits::for_arch("sm_90");
  dev.sm_count = 132;
  return sweep_configs(o, dev);
}

// How many of `keys` the database at `path` holds a verified cubin for.
std::size_t stored(const std::string& path, const std::vector<std::string>& keys) {
  db::Database db(path, db::OpenMode::read_only, kernel_families());
  std::size_t n = 0;
  for (const auto& key : keys) n += db.get_binary(key).binary.has_value();
  return n;
}

}  // namespace

TEST_F(CompileCli, StoresWhatTheSweepLooksUpAndARerunCompilesNothing) {
  const std::vector<GemmConfig> configs = dot_product_configs();
  ASSERT_GE(configs.size(), 3u);
  // Three of them (NVRTC takes a second or so per config).
  std::vector<std::string> args = {"compile", "--shape", "1x1x1024",  "--arch",
                                   "sm_90",   "--db",    path("c.db")};
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < 3; ++i) {
    args.insert(args.end(), {"--config", config_name(configs[i])});
    keys.push_back(binary_key(configs[i], "sm_90"));
  }
  auto first = gemmtune::test::run_cli(args, {.unset_env = {"SLURM_ARRAY_TASK_ID"}});
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_TRUE(has(first.out, "3 of the 3 configs")) << first.out;
  EXPECT_TRUE(has(first.out, "3 compiled and stored, 0 failed")) << first.out;
  EXPECT_EQ(stored(path("c.db"), keys), 3u)
      << "under the sweep's own keys (binary_key of config and arch)";
  auto again = gemmtune::test::run_cli(args, {.unset_env = {"SLURM_ARRAY_TASK_ID"}});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_TRUE(has(again.out, "3 in the binary cache of " + path("c.db") + ", 0 to compile"))
      << again.out;

  auto none = gemmtune::test::run_cli({"compile", "--shape", "1x1x1024", "--config",
                                       "sgemm_nn_no_such_config", "--db", path("none.db")},
                                      {});
  EXPECT_EQ(none.status, 2) << none.err;
  EXPECT_TRUE(has(none.err, "'sgemm_nn_no_such_config' is not a config name")) << none.err;
}

TEST_F(CompileCli, CtrlCStopsWithStatus130KeepingWhatIsStored) {
  const std::vector<GemmConfig> configs = dot_product_configs();
  std::vector<std::string> keys;
  for (const auto& c : configs) keys.push_back(binary_key(c, "sm_90"));
  gemmtune::test::ChildProcess child(
      gemmtune::test::cli_argv({"compile", "--shape", "1x1x1024", "-j", "1", "--db", path("c.db")}),
      {.unset_env = {"SLURM_ARRAY_TASK_ID"}});
  // Once the first cubin is stored the handler is in place: interrupt then.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    try {
      if (stored(path("c.db"), keys) > 0) break;
    } catch (const std::exception&) {  // the file is still being created
    }
  }
  child.send(SIGINT);
  auto r = child.wait();
  EXPECT_EQ(r.status, 130) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "interrupted: rerun the same command")) << r.out;
  const std::size_t kept = stored(path("c.db"), keys);
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, keys.size()) << "it stopped early";
}

TEST_F(CompileCli, ResourcesShowWhatPtxasReportedForEveryConfigOfTheRun) {
  const std::vector<GemmConfig> configs = dot_product_configs();
  ASSERT_GE(configs.size(), 2u);
  // Two configs: the first compiled by an earlier run (read back from the cache), the second now.
  auto run = [&](std::size_t count) {
    std::vector<std::string> args = {"compile", "--shape",    "1x1x1024",
                                     "--db",    path("c.db"), "--resources"};
    for (std::size_t i = 0; i < count; ++i)
      args.insert(args.end(), {"--config", config_name(configs[i])});
    return gemmtune::test::run_cli(args, {.unset_env = {"SLURM_ARRAY_TASK_ID"}});
  };
  ASSERT_EQ(run(1).status, 0);
  auto r = run(2);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "1 in the binary cache")) << r.out;
  EXPECT_TRUE(has(r.out, "registers")) << r.out;
  db::Database db(path("c.db"), db::OpenMode::read_only, kernel_families());
  for (std::size_t i = 0; i < 2; ++i) {
    const auto b = db.get_binary(binary_key(configs[i], "sm_90")).binary;
    ASSERT_TRUE(b && b->registers) << config_name(configs[i]);
    EXPECT_GT(*b->registers, 0);
    // The config's row: its name, then the registers ptxas reported and no spills.
    const std::size_t row = r.out.find(config_name(configs[i]) + " ");
    ASSERT_NE(row, std::string::npos) << r.out;
    std::istringstream line(r.out.substr(row, r.out.find('\n', row) - row));
    std::string name, registers, spilled, unit;
    line >> name >> registers >> spilled >> unit;
    EXPECT_EQ(registers, std::to_string(*b->registers)) << line.str();
    EXPECT_EQ(spilled + " " + unit, "0 B") << line.str();
  }
}
