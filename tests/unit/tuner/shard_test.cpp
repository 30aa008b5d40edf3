// Sharding: --shard I/N and Slurm's array variables are read or refused with the reason; the
// partition is deterministic, covers every item once and balances the estimated cost; the
// estimate weighs big problems over small ones; `sweep --dry-run --shard` and `compile --shard`
// as a user runs them.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "gemmtune/error.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gemmtune/tuner/shard.hpp"
#include "gemmtune/tuner/sweep.hpp"
#include "support/cli.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// An environment of the given variables only.
EnvironmentLookup environment(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

// Every shard of `costs` over `count` tasks: each item's task, and each task's summed cost.
struct Partition {
  std::vector<int> task_of;
  std::vector<double> load;
};
Partition partition(const std::vector<double>& costs, int count) {
  Partition p{std::vector<int>(costs.size(), -1), std::vector<double>(std::size_t(count), 0.0)};
  for (int t = 0; t < count; ++t) {
    for (std::size_t i : shard_items(costs, Shard{t, count})) {
      EXPECT_EQ(p.task_of[i], -1) << "item " << i << " in two shards";
      p.task_of[i] = t;
      p.load[std::size_t(t)] += costs[i];
    }
  }
  for (std::size_t i = 0; i < costs.size(); ++i)
    EXPECT_NE(p.task_of[i], -1) << "item " << i << " in no shard";
  return p;
}

}  // namespace

TEST(Shard, ParsesIndexOverCount) {
  EXPECT_EQ(parse_shard("0/1"), (Shard{0, 1}));
  EXPECT_EQ(parse_shard("2/3"), (Shard{2, 3}));
  EXPECT_EQ(shard_label(Shard{2, 3}), "2/3");
}

TEST(Shard, RefusesBadTextWithTheReason) {
  EXPECT_TRUE(has(error_of([] { parse_shard("3/3"); }), "below the number of tasks (0 to 2)"));
  EXPECT_TRUE(has(error_of([] { parse_shard("0/0"); }), "at least 1"));
  for (const char* bad :
       {"", "1", "a/b", "1/", "/3", "-1/3", "1/-3", "1.0/3", "1/3/4", " 1/3", "1/3x"})
    EXPECT_TRUE(has(error_of([bad] { parse_shard(bad); }), "write I/N")) << "'" << bad << "'";
}

TEST(Shard, FromSlurmArrayVariables) {
  EXPECT_EQ(shard_from_slurm(environment({})), std::nullopt) << "not an array task: no shard";
  EXPECT_EQ(shard_from_slurm(
                environment({{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "3"}})),
            (Shard{2, 3}));
  // --array=1-4: task ids 1..4 are shards 0..3.
  EXPECT_EQ(shard_from_slurm(environment({{"SLURM_ARRAY_TASK_ID", "1"},
                                          {"SLURM_ARRAY_TASK_COUNT", "4"},
                                          {"SLURM_ARRAY_TASK_MIN", "1"},
                                          {"SLURM_ARRAY_TASK_MAX", "4"}})),
            (Shard{0, 4}));
}

TEST(Shard, RefusesSlurmArraysItCannotMap) {
  EXPECT_TRUE(has(error_of([] {
                    shard_from_slurm(environment({{"SLURM_ARRAY_TASK_ID", "x"}}));
                  }),
                  "SLURM_ARRAY_TASK_ID='x' is not a task number"));
  EXPECT_TRUE(has(error_of([] {
                    shard_from_slurm(environment({{"SLURM_ARRAY_TASK_ID", "1"}}));
                  }),
                  "SLURM_ARRAY_TASK_COUNT is not"));
  // --array=1,5,9 (three tasks, ids 1 to 9) and --array=0-8:2.
  const std::string gaps = error_of([] {
    shard_from_slurm(environment({{"SLURM_ARRAY_TASK_ID", "5"},
                                  {"SLURM_ARRAY_TASK_COUNT", "3"},
                                  {"SLURM_ARRAY_TASK_MIN", "1"},
                                  {"SLURM_ARRAY_TASK_MAX", "9"}}));
  });
  EXPECT_TRUE(has(gaps, "not one contiguous range")) << gaps;
  EXPECT_TRUE(has(gaps, "--shard I/N")) << gaps;
  EXPECT_TRUE(has(error_of([] {
                    shard_from_slurm(environment({{"SLURM_ARRAY_TASK_ID", "2"},
                                                  {"SLURM_ARRAY_TASK_COUNT", "5"},
                                                  {"SLURM_ARRAY_TASK_MIN", "0"},
                                                  {"SLURM_ARRAY_TASK_MAX", "8"},
                                                  {"SLURM_ARRAY_TASK_STEP", "2"}}));
                  }),
                  "not one contiguous range"));
}

TEST(Shard, PartitionCoversEveryItemOnceAndIsDeterministic) {
  const std::vector<double> costs = {5, 1, 9, 3, 3, 7, 2, 8, 6, 4, 1, 1};
  for (int count : {1, 2, 3, 5, 12, 20}) {
    Partition p = partition(costs, count);
    EXPECT_EQ(partition(costs, count).task_of, p.task_of) << "same input, same partition";
    if (count > int(costs.size())) {
      EXPECT_TRUE(shard_items(costs, Shard{count - 1, count}).empty()) << "more tasks than items";
    }
  }
  // A shard lists its items in the list's order.
  const auto mine = shard_items(costs, Shard{1, 3});
  EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
}

TEST(Shard, PartitionBalancesCostNotCount) {
  // One heavy problem and many light ones: by count each of 2 tasks would get 6 items; by cost
  // the heavy one is alone with a few light ones.
  const std::vector<double> costs = {100, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10};
  Partition p = partition(costs, 2);
  EXPECT_DOUBLE_EQ(p.load[0], 110);
  EXPECT_DOUBLE_EQ(p.load[1], 100);
  // The heaviest task ends within the largest item of the average.
  std::vector<double> random_costs;
  for (int i = 0; i < 40; ++i) random_costs.push_back(double((i * 7919) % 97 + 1));
  for (int count : {2, 3, 7}) {
    Partition q = partition(random_costs, count);
    const double sum = std::accumulate(random_costs.begin(), random_costs.end(), 0.0);
    const double largest = *std::max_element(random_costs.begin(), random_costs.end());
    EXPECT_LE(*std::max_element(q.load.begin(), q.load.end()), sum / count + largest)
        << count << " tasks";
  }
  // Equal costs: round robin, counts within one.
  Partition even = partition(std::vector<double>(10, 1.0), 3);
  EXPECT_EQ(even.task_of, (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0}));
}

TEST(Shard, EstimateWeighsBigProblemsOverSmallOnes) {
  const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
  const GpuCeilings gpu;
  SweepOptions o;
  DeviceInfo dev;
  dev.limits = limits;
  dev.sm_count = 132;
  const auto valid = valid_space(limits, Op::N, Op::N);
  const auto seconds = [&](int m, int n, int k, StrategyKind kind) {
    const ProblemSpec spec{Op::N, Op::N, m, n, k, 1};
    StrategyOptions so;
    so.kind = kind;
    return estimate_tuning_seconds(spec, sweep_candidates(o, dev, valid, spec.problem()), so, gpu);
  };
  // 8192^3 and 16384^3 have the same 248 candidates (too many waves of tiles for split_tail
  // twins): the time of the kernels tells them apart.
  for (StrategyKind kind : {StrategyKind::model, StrategyKind::halving, StrategyKind::exhaustive}) {
    const double mid = seconds(8192, 8192, 8192, kind), big = seconds(16384, 16384, 16384, kind);
    EXPECT_GT(mid, 0) << strategy_name(kind);
    EXPECT_GT(big, 2 * mid) << strategy_name(kind) << ": 8 times the FLOPs of 8192^3";
  }
  // 1024^3 has 1,440 candidates (small tiles and split-K to fill the SMs): the count matters too.
  EXPECT_GT(seconds(1024, 1024, 1024, StrategyKind::exhaustive),
            seconds(4096, 4096, 4096, StrategyKind::exhaustive));
  EXPECT_GT(seconds(4096, 4096, 4096, StrategyKind::exhaustive),
            seconds(4096, 4096, 4096, StrategyKind::model))
      << "the model strategy measures a fraction of the candidates";
  // A budget caps the estimate (the first measurement always runs).
  StrategyOptions budget;
  budget.kind = StrategyKind::exhaustive;
  budget.budget_s = 2;
  const ProblemSpec big{Op::N, Op::N, 8192, 8192, 8192, 1};
  EXPECT_LT(
      estimate_tuning_seconds(big, sweep_candidates(o, dev, valid, big.problem()), budget, gpu),
      10);
}

TEST(Shard, SweepShardsPartitionTheProblems) {
  SweepOptions o;
  o.problems = preset_problems("suite");
  DeviceInfo dev;
  dev.limits = DeviceLimits::for_arch("sm_90");
  dev.sm_count = 132;
  std::multiset<std::string> seen;
  double total = 0, most = 0;
  for (int t = 0; t < 3; ++t) {
    SweepShard part = plan_sweep_shard(o, dev, Shard{t, 3});
    for (const auto& p : part.problems) seen.insert(problem_label(p));
    total = part.total_seconds;
    most = std::max(most, part.seconds);
    EXPECT_FALSE(part.problems.empty());
  }
  std::multiset<std::string> all;
  for (const auto& p : o.problems) all.insert(problem_label(p));
  EXPECT_EQ(seen, all) << "every problem in exactly one shard";
  EXPECT_LT(most, 0.5 * total) << "no task holds half the work of three";
}

TEST(Shard, SweepConfigsAreTheUnionOfTheCandidatesOnce) {
  SweepOptions o;
  o.problems = {{Op::N, Op::N, 1024, 1024, 1024, 1}, {Op::N, Op::N, 1024, 1024, 2048, 1}};
  DeviceInfo dev;
  dev.limits = DeviceLimits::for_arch("sm_90");
  dev.sm_count = 132;
  const auto configs = sweep_configs(o, dev);
  std::set<std::string> names, expected;
  for (const auto& c : configs)
    EXPECT_TRUE(names.insert(config_name(c)).second) << "twice: " << config_name(c);
  const auto valid = valid_space(dev.limits, Op::N, Op::N);
  for (const auto& spec : o.problems)
    for (const auto& c : sweep_candidates(o, dev, valid, spec.problem()))
      expected.insert(config_name(c));
  EXPECT_EQ(names, expected);
  EXPECT_TRUE(std::is_sorted(configs.begin(), configs.end(), [](const auto& a, const auto& b) {
    return config_name(a) < config_name(b);
  }));
}

class ShardCli : public gemmtune::test::ScratchDirTest {};

TEST_F(ShardCli, SweepDryRunListsOnlyItsShard) {
  std::set<std::string> lines;
  std::size_t problems = 0;
  for (const char* shard : {"0/2", "1/2"}) {
    auto r = gemmtune::test::run_cli(
        {"sweep", "--dry-run", "--preset", "quick", "--shard", shard, "--db", path("t.db")},
        {.unset_env = {"GEMMTUNE_DB", "SLURM_ARRAY_TASK_ID"}});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_TRUE(has(r.out, std::string("shard ") + shard + ": ")) << r.out;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (line.rfind("  ", 0) == 0 && has(line, " candidates, ")) lines.insert(line), ++problems;
  }
  EXPECT_EQ(problems, 4u) << "the quick preset's 4 problems, each in one shard";
  EXPECT_EQ(lines.size(), 4u);
  EXPECT_FALSE(std::filesystem::exists(path("t.db"))) << "a dry run creates no database";
}

TEST_F(ShardCli, BadShardIsAUsageError) {
  for (const char* bad : {"2/2", "0/0", "x"}) {
    auto r = gemmtune::test::run_cli(
        {"sweep", "--dry-run", "--shape", "64x64x64", "--shard", bad, "--db", path("t.db")}, {});
    EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
    EXPECT_TRUE(has(r.err, "--shard")) << r.err;
    auto c = gemmtune::test::run_cli({"compile", "--shard", bad, "--db", path("c.db")}, {});
    EXPECT_EQ(c.status, 2) << bad << ": " << c.err;
  }
  EXPECT_FALSE(std::filesystem::exists(path("c.db"))) << "refused before the database is made";
  auto r = gemmtune::test::run_cli(
      {"sweep", "--dry-run", "--shape", "64x64x64", "--db", path("t.db")},
      {.set_env = {{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "2"}}});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "contiguous")) << r.err;
}

TEST_F(ShardCli, ShardOptionWinsOverSlurmAndSaysSo) {
  auto r = gemmtune::test::run_cli(
      {"sweep", "--dry-run", "--shape", "256x256x256", "--shard", "0/2", "--db", path("t.db")},
      {.set_env = {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "shard 0/2: ")) << r.out;
  EXPECT_TRUE(has(r.err, "--shard 0/2 given: it wins over this Slurm array task's 1/3")) << r.err;
  auto env = gemmtune::test::run_cli(
      {"sweep", "--dry-run", "--shape", "256x256x256", "--db", path("t.db")},
      {.set_env = {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "3"}}});
  ASSERT_EQ(env.status, 0) << env.err;
  EXPECT_TRUE(has(env.out, "shard 1/3: ")) << env.out;
}
