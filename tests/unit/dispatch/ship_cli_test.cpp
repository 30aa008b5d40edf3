// Making shipped tuning databases: `gemmtune db prune --keep-top --binaries --vacuum` and
// `gemmtune db ship` on a sweep-like database, and the files db/shipped/ holds: one GPU model
// each, named for it, results only, at rest (rollback journal), passing `db check`.
#include <gtest/gtest.h>

#include <fstream>

#include "gemmtune/db/reports.hpp"
#include "gemmtune/shipped.hpp"
#include "support/cli.hpp"
#include "support/sha256.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

namespace fs = std::filesystem;

// The problems whose results the sweep-like database holds.
const db::ProblemKey kMany = db_problem(Op::N, Op::N, 1024, 1024, 1024);
const db::ProblemKey kFew = db_problem(Op::N, Op::T, 33, 4096, 4096);
constexpr int kManyConfigs = 20;

// Whether a closed SQLite file is in rollback-journal mode (header bytes 18 and 19 are 1).
bool at_rest(const std::string& path) {
  const std::string bytes = file_bytes(path);
  return bytes.size() >= 20 && bytes[18] == 1 && bytes[19] == 1;
}

// What a shipped file must be, whatever made it: one GPU model, named for it, results only (the
// fastest few configs of each problem and class), no cached binaries, at rest, checked.
void expect_shipped_format(const std::string& path) {
  SCOPED_TRACE(path);
  EXPECT_TRUE(at_rest(path)) << "left in WAL mode: a read-only install could not read it";
  const db::Database file(path, db::OpenMode::read_only, kernel_families());
  const db::CheckReport report = file.check();
  EXPECT_TRUE(report.ok()) << (report.ok() ? "" : report.problems.front());
  const auto models = file.gpu_models();
  ASSERT_EQ(models.size(), 1u) << "a shipped file holds one GPU model";
  EXPECT_EQ(fs::path(path).filename().string(), shipped_file_name(models[0].model.name));
  EXPECT_TRUE(file.binary_keys().empty()) << "a shipped file holds no cached binaries";
  const db::GpuModelSummary s = db::gpu_model_summary(file, models[0].id);
  EXPECT_GT(s.problems, 0);
  EXPECT_EQ(s.failed, 0) << "failures are left out";
  // Every result is one of the rows the dispatcher reads.
  EXPECT_EQ(s.results, std::int64_t(file.top_configs(models[0].id, kTopConfigsPerProblem).size()));
}

class ShipCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cli_path().empty()) GTEST_SKIP() << "the command line is not built";
    const DeviceLimits limits = DeviceLimits::for_arch("sm_90");
    // FP32 FMA configs only: each precision class keeps its own fastest few.
    nn_ = tuned_pool(limits, Op::N, Op::N);
    auto nt = tuned_pool(limits, Op::N, Op::T);
    for (auto* pool : {&nn_, &nt})
      std::erase_if(*pool, [](const GemmConfig& c) { return c.precision() != Precision::ieee; });
    ASSERT_GE(nn_.size(), std::size_t(kManyConfigs));
    ASSERT_GE(nt.size(), 2u);
    dir_ = scratch_dir("ship_cli");
    sweep_ = (dir_ / "sweep.db").string();
    TuningDbBuilder b(sweep_);
    b.gpu("NVIDIA H200", 9, 0, 132);
    for (int i = 0; i < kManyConfigs; ++i) b.add(kMany, nn_[i], 1.0 + 0.1 * i);
    b.gpu("NVIDIA H200", 9, 0, 132);  // a second sweep
    b.add(kMany, nn_[0], 0.9);        // the same config again, faster: its best counts
    b.add(kFew, nt[0], 0.2);
    b.add(kFew, nt[1], 0.1);
    // A failure and a cached binary: neither is shipped.
    db::Database& d = b.database();
    db::Result failed;
    failed.problem_id = d.upsert_problem(kFew);
    failed.config_id = d.upsert_config(to_db(nn_[1]));
    failed.status = db::Status::compile_failed;
    failed.error = "ptxas: too many resources";
    d.record_results(d.sweeps().back().id, std::span<const db::Result>(&failed, 1));
    db::Binary bin;
    bin.key = "k1", bin.arch = "sm_90", bin.nvrtc_version = "13.0";
    bin.config_name = config_name(nn_[0]), bin.lowered_name = "_Z6kernelv";
    bin.cubin = std::vector<std::byte>(64, std::byte{7});
    d.put_binary(bin);
  }

  std::vector<GemmConfig> nn_;
  fs::path dir_;
  std::string sweep_;
};

TEST_F(ShipCli, PruneKeepsTheFastestConfigsOfEachProblem) {
  const std::string copy = (dir_ / "copy.db").string();
  fs::copy_file(sweep_, copy);
  CliRun dry = run_cli({"db", "prune", "--db", copy, "--keep-top", "3", "--binaries", "--dry-run"},
                       {.merge_stderr = true});
  EXPECT_EQ(dry.status, 0) << dry.out;
  // 1024^3: 21 results of 20 configs, 3 kept; 33x4096x4096: both kept, the failure goes.
  EXPECT_NE(dry.out.find("would prune " + copy +
                         ": 0 sweeps, 19 results, 0 baselines, 17 configs, 1 cached binaries"),
            std::string::npos)
      << dry.out;
  CliRun r = run_cli({"db", "prune", "--db", copy, "--keep-top", "3", "--binaries", "--vacuum"},
                     {.merge_stderr = true});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("pruned " + copy +
                       ": 0 sweeps, 19 results, 0 baselines, 17 configs, 1 cached binaries"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("vacuumed " + copy), std::string::npos) << r.out;
  const db::Database pruned(copy, db::OpenMode::read_only, kernel_families());
  const db::Id model = pruned.gpu_models().front().id;
  const auto kept = pruned.top_configs(model, 100);
  ASSERT_EQ(kept.size(), 5u);
  EXPECT_EQ(kept[0].config.name, config_name(nn_[0]));
  EXPECT_DOUBLE_EQ(kept[0].median_ms, 0.9);  // the config's best result, not its first
  EXPECT_EQ(kept[1].config.name, config_name(nn_[1]));
  EXPECT_EQ(kept[2].config.name, config_name(nn_[2]));
  EXPECT_EQ(db::gpu_model_summary(pruned, model).results, 5);
  EXPECT_TRUE(pruned.binary_keys().empty());
  EXPECT_TRUE(pruned.check().ok());
  // The bests are what they were.
  const db::Database original(sweep_, db::OpenMode::read_only, kernel_families());
  ASSERT_EQ(pruned.bests(model).size(), original.bests(model).size());
  for (std::size_t i = 0; i < pruned.bests(model).size(); ++i)
    EXPECT_EQ(pruned.bests(model)[i].config.name, original.bests(model)[i].config.name);
}

TEST_F(ShipCli, ShipWritesTheModelsFileAtomically) {
  const fs::path out = dir_ / "shipped";
  fs::create_directories(out);
  const std::string before = file_sha256(sweep_);
  CliRun r = run_cli({"db", "ship", "--db", sweep_, "--out", out.string()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  const std::string file = (out / "nvidia-h200.db").string();
  EXPECT_NE(r.out.find("wrote " + file + ": NVIDIA H200 (sm_90, 132 SMs"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2 problems, 18 results"), std::string::npos) << r.out;
  EXPECT_EQ(list_dir(out), std::vector<std::string>{"nvidia-h200.db"}) << "no temporary file left";
  expect_shipped_format(file);
  EXPECT_EQ(file_sha256(sweep_), before) << "the sweep's database is only read";

  // It serves as shipped data: the chooser finds it and answers from it.
  std::vector<std::string> notes;
  const auto found = find_shipped({"NVIDIA H200", 9, 0, 132}, {out.string()}, notes);
  ASSERT_TRUE(found.has_value());
  const TuningSnapshot s = with_shipped(TuningSnapshot{}, {"NVIDIA H200", 9, 0, 132}, *found);
  const Choice c = Chooser(DeviceLimits::for_arch("sm_90"), s)
                       .choose(shape_only_problem(Op::N, Op::N, 1024, 1024, 1024));
  EXPECT_EQ(c.source, ChoiceSource::exact);
  EXPECT_EQ(c.tuned_config, config_name(nn_[0]));
  EXPECT_EQ(c.database, file);

  // Made again from the same sweep: replaced in one rename.
  r = run_cli({"db", "ship", "--db", sweep_, "--out", out.string(), "--keep-top", "2"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 problems, 4 results"), std::string::npos) << r.out;
  EXPECT_EQ(list_dir(out), std::vector<std::string>{"nvidia-h200.db"});
}

TEST_F(ShipCli, ShipRefusesSeveralModelsAndLeavesNothing) {
  {
    TuningDbBuilder b(sweep_);
    b.gpu("NVIDIA H100 80GB HBM3", 9, 0, 132);
    b.add(kMany, nn_[0], 1.0);
  }
  const fs::path out = dir_ / "shipped";
  fs::create_directories(out);
  CliRun r = run_cli({"db", "ship", "--db", sweep_, "--out", out.string()}, {.merge_stderr = true});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("holds 2 GPU models (NVIDIA H200, NVIDIA H100 80GB HBM3)"),
            std::string::npos)
      << r.out;
  EXPECT_TRUE(list_dir(out).empty());
}

TEST_F(ShipCli, ExplainSaysWhichFileAnswered) {
  const fs::path out = dir_ / "shipped";
  fs::create_directories(out);
  ASSERT_EQ(run_cli({"db", "ship", "--db", sweep_, "--out", out.string()}).status, 0);
  const std::string file = (out / "nvidia-h200.db").string();
  const RunOptions shipped_on{.set_env = {{"GEMMTUNE_SHIPPED_DIR", out.string()}},
                              .unset_env = {"GEMMTUNE_NO_SHIPPED"},
                              .merge_stderr = true};
  const std::vector<std::string> explain = {"explain", "--shape", "1024x1024x1024",
                                            "--arch",  "sm_90",   "--gpu-model",
                                            "",        "--db",    (dir_ / "none.db").string()};
  auto run = [&](const std::string& model, const std::vector<std::string>& more = {}) {
    std::vector<std::string> args = explain;
    args[6] = model;
    args.insert(args.end(), more.begin(), more.end());
    return run_cli(args, shipped_on);
  };
  CliRun r = run("NVIDIA H200");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("source   exact"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("from     " + file + " (shipped with gemmtune for this GPU model)"),
            std::string::npos)
      << r.out;
  r = run("NVIDIA H100 80GB HBM3");  // no file of its own: the architecture's
  EXPECT_NE(r.out.find("from     " + file + " (shipped with gemmtune, tuned on another GPU model"),
            std::string::npos)
      << r.out;
  r = run("NVIDIA H200", {"--no-shipped"});
  EXPECT_NE(r.out.find("source   builtin"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\nfrom "), std::string::npos) << r.out;  // no file answered
}

// The files the repository ships (skipped while there are none).
TEST(ShippedFiles, EveryFileInTheRepositoryIsWellFormed) {
  const fs::path dir =
      fs::path(GEMMTUNE_TEST_FIXTURES).parent_path().parent_path() / "db" / "shipped";
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".db") files.push_back(e.path().string());
  if (files.empty()) GTEST_SKIP() << "no shipped tuning database in " << dir << " yet";
  for (const std::string& f : files) expect_shipped_format(f);
}

}  // namespace
}  // namespace gemmtune::test
