// docs/cluster.md on one GPU: `gemmtune compile` fills a binary cache without using the GPU, two
// tasks of tools/slurm/sweep.sbatch (run as plain processes, with the variables a Slurm array
// sets) each tune their shard from a copy of it, `db merge` joins them. The merged database must
// hold every row of the two tasks once, the same (problem, config) pairs and the same best per
// problem (within timing noise) as one unsharded sweep, and the sweeps must have compiled nothing.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/sgemm/tuning/candidates.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gpu/tuner/tuner_fixture.hpp"
#include "support/cli.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

namespace fs = std::filesystem;

// The rows of `sql` on the database at `path` (read-only), columns joined by '|'.
std::vector<std::string> query(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> rows;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path;
    sqlite3_close(db);
    return rows;
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    ADD_FAILURE() << sqlite3_errmsg(db);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    std::string row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) {
      const auto* text = sqlite3_column_text(st, i);
      if (i) row += '|';
      row += text ? reinterpret_cast<const char*>(text) : "NULL";
    }
    rows.push_back(row);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rows;
}

// Every result row of a file, as "problem|config|status", with repeats (a config re-timed as a
// finalist has several rows).
std::multiset<std::string> result_rows(const std::string& path) {
  const auto rows = query(
      path,
      "SELECT p.m || 'x' || p.n || 'x' || p.k || p.op_a || p.op_b, c.name, r.status "
      "FROM results r JOIN problems p ON p.id = r.problem_id JOIN configs c ON c.id = r.config_id");
  return {rows.begin(), rows.end()};
}

// Per problem of a file, each ok config's best median in ms.
std::map<std::string, std::map<std::string, double>> ok_medians(const std::string& path) {
  std::map<std::string, std::map<std::string, double>> out;
  for (const std::string& row :
       query(path,
             "SELECT p.m || 'x' || p.n || 'x' || p.k || p.op_a || p.op_b, c.name, "
             "min(r.median_ms) FROM results r JOIN problems p ON p.id = r.problem_id "
             "JOIN configs c ON c.id = r.config_id WHERE r.status = 'ok' "
             "GROUP BY r.problem_id, r.config_id")) {
    const auto a = row.find('|'), b = row.rfind('|');
    out[row.substr(0, a)][row.substr(a + 1, b - a - 1)] = std::stod(row.substr(b + 1));
  }
  return out;
}

// The config with the least median of `medians`.
std::string fastest(const std::map<std::string, double>& medians) {
  std::string best;
  for (const auto& [name, ms] : medians)
    if (best.empty() || ms < medians.at(best)) best = name;
  return best;
}

class ShardedSweep : public gemmtune::test::ScratchDirTest {};

}  // namespace

TEST_F(ShardedSweep, TwoShardsMergedMatchOneSweep) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceInfo dev = device_info(0);
  const std::string arch = dev.limits.arch(), sms = std::to_string(dev.sm_count);
  // Four small problems, and ten configs of the first one's candidates (each problem tunes those
  // of them that are its candidates too), exhaustively: the sweeps take seconds.
  const std::vector<ProblemSpec> problems = {{Op::N, Op::N, 256, 256, 256, 1},
                                             {Op::N, Op::N, 192, 128, 320, 1},
                                             {Op::N, Op::N, 512, 256, 384, 1},
                                             {Op::N, Op::N, 320, 320, 320, 1}};
  write("problems.csv",
        "m,n,k,layout\n256,256,256,nn\n192,128,320,nn\n512,256,384,nn\n320,320,320,nn\n");
  const std::vector<std::string> strategy = {"--strategy", "exhaustive", "--seed", "5"};
  std::vector<std::string> candidates = {"--arch", arch, "--sms", sms};
  std::string candidate_names;  // for the script: CANDIDATES
  const auto valid = valid_space(dev.limits, Op::N, Op::N);
  for (const auto& c :
       candidate_configs(valid, problems[0].problem(), dev.sm_count, SpaceKind::reduced)) {
    if (c.split_k != 1 || candidates.size() == 4 + 2 * 10) continue;
    candidates.insert(candidates.end(), {"--config", config_name(c)});
    candidate_names += " --config " + config_name(c);
  }
  ASSERT_EQ(candidates.size(), 4u + 2 * 10);
  std::vector<std::string> args = strategy, compile_args = candidates;
  args.insert(args.end(), candidates.begin(), candidates.end());

  // The binary cache, as a CPU node makes it.
  std::vector<std::string> compile = {"compile", "--file", path("problems.csv"), "--db",
                                      path("cache.db")};
  compile.insert(compile.end(), compile_args.begin(), compile_args.end());
  auto built =
      gemmtune::test::run_cli(compile, {.unset_env = {"GEMMTUNE_DB", "SLURM_ARRAY_TASK_ID"}});
  ASSERT_EQ(built.status, 0) << built.out << built.err;
  const auto cache = query(path("cache.db"), "SELECT key, created_at FROM binaries ORDER BY key");
  ASSERT_FALSE(cache.empty()) << built.out;

  // One unsharded sweep from a copy of the cache.
  fs::copy_file(path("cache.db"), path("one.db"));
  std::vector<std::string> one = {"sweep", "--file", path("problems.csv"), "--db", path("one.db")};
  one.insert(one.end(), args.begin(), args.end());
  auto unsharded =
      gemmtune::test::run_cli(one, {.unset_env = {"GEMMTUNE_DB", "SLURM_ARRAY_TASK_ID"}});
  ASSERT_EQ(unsharded.status, 0) << unsharded.out << unsharded.err;
  EXPECT_EQ(query(path("one.db"), "SELECT key, created_at FROM binaries ORDER BY key"), cache)
      << "the sweep compiled what `gemmtune compile` had stored: it did not find the cache";

  // Two tasks of the Slurm script, as plain processes, then the merge.
  std::string sweep_args;
  for (const auto& a : strategy) sweep_args += " " + a;
  const std::string script =
      std::string(GEMMTUNE_TEST_FIXTURES) + "/../../tools/slurm/sweep.sbatch";
  fs::create_directories(path("out"));
  for (const char* task : {"0", "1"}) {
    auto r = gemmtune::test::run_program({"bash", script},
                                         {.set_env = {{"GEMMTUNE", gemmtune::test::cli_path()},
                                                      {"PROBLEMS", path("problems.csv")},
                                                      {"CACHE", path("cache.db")},
                                                      {"OUT", path("out")},
                                                      {"TMPDIR", dir_.string()},
                                                      {"ARCH", arch},
                                                      {"SMS", sms},
                                                      {"CANDIDATES", candidate_names},
                                                      {"SWEEP_ARGS", sweep_args},
                                                      {"SLURM_JOB_ID", std::string("7") + task},
                                                      {"SLURM_ARRAY_TASK_ID", task},
                                                      {"SLURM_ARRAY_TASK_COUNT", "2"}},
                                          .unset_env = {"GEMMTUNE_DB", "SHARD"}});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find(std::string("shard ") + task + "/2: "), std::string::npos) << r.out;
    EXPECT_EQ(query(path("out/sweep-") + task + ".db",
                    "SELECT key, created_at FROM binaries ORDER BY key"),
              cache)
        << "task " << task << " compiled what the cache held";
  }
  auto merged = gemmtune::test::run_cli(
      {"db", "merge", path("out/sweep-0.db"), path("out/sweep-1.db"), "--db", path("merged.db")},
      {});
  ASSERT_EQ(merged.status, 0) << merged.out << merged.err;
  auto check = gemmtune::test::run_cli({"db", "check", "--db", path("merged.db")}, {});
  EXPECT_EQ(check.status, 0) << check.out << check.err;

  // No row lost or duplicated: the merged rows are the two tasks' rows, and the tasks' problems
  // are disjoint and cover the list.
  const auto rows0 = result_rows(path("out/sweep-0.db")),
             rows1 = result_rows(path("out/sweep-1.db"));
  std::multiset<std::string> both = rows0;
  both.insert(rows1.begin(), rows1.end());
  EXPECT_EQ(result_rows(path("merged.db")), both);
  const auto medians0 = ok_medians(path("out/sweep-0.db")),
             medians1 = ok_medians(path("out/sweep-1.db"));
  for (const auto& [problem, configs] : medians0)
    EXPECT_FALSE(medians1.count(problem)) << problem << " in both tasks";
  EXPECT_FALSE(medians0.empty());
  EXPECT_FALSE(medians1.empty());

  // Against the unsharded sweep: the same (problem, config) pairs measured, the same statuses,
  // and each problem's pick as fast, in the unsharded sweep's own timing, within noise.
  const auto distinct = [](const std::multiset<std::string>& rows) {
    return std::set<std::string>(rows.begin(), rows.end());
  };
  EXPECT_EQ(distinct(result_rows(path("merged.db"))), distinct(result_rows(path("one.db"))));
  const auto sharded = ok_medians(path("merged.db")), single = ok_medians(path("one.db"));
  ASSERT_EQ(sharded.size(), problems.size());
  ASSERT_EQ(single.size(), problems.size());
  for (const auto& [problem, configs] : single) {
    const std::string best = fastest(configs), pick = fastest(sharded.at(problem));
    const double best_ms = configs.at(best), pick_ms = configs.at(pick);
    // Timing noise: 10%, and at least 2 us for kernels of a few microseconds.
    EXPECT_LE(pick_ms, std::max(best_ms * 1.10, best_ms + 0.002))
        << problem << ": the shards picked " << pick << " (" << pick_ms
        << " ms in the unsharded sweep), the unsharded " << best << " (" << best_ms << " ms)";
  }
}
