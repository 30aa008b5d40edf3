// Merge (idempotent, by natural keys), prune and check.
#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

using Maintenance = ScratchDirTest;

struct Counts {
  std::int64_t gpu_models, sweeps, problems, configs, results, baselines, binaries;
  bool operator==(const Counts&) const = default;
};

Counts counts(Database& db) {
  auto n = [&](const char* t) {
    return scalar(db.path(), std::string("SELECT count(*) FROM ") + t);
  };
  return {n("gpu_models"), n("sweeps"),    n("problems"), n("configs"),
          n("results"),    n("baselines"), n("binaries")};
}

// A database of one sweep on `gpu`: `problems` problems x 3 configs, baselines, a binary.
void fill(Database& db, const GpuModel& gpu, int first_problem, int problems, bool finish = true) {
  const Id g = db.upsert_gpu_model(gpu);
  const Id s = db.begin_sweep(sweep_info(g, "gemmtune sweep on " + gpu.name));
  std::vector<Result> batch;
  for (int p = first_problem; p < first_problem + problems; ++p) {
    const Id pid = db.upsert_problem(sample_problem(64 * (p + 1)));
    db.record_baseline(s, cublas(pid, 5.0));
    for (int c = 0; c < 3; ++c)
      batch.push_back(ok_result(pid, db.upsert_config(sample_config(c + p)), 1.0 + c));
  }
  db.record_results(s, batch);
  Binary b;
  b.key = "bin-" + gpu.name;
  b.arch = "sm_90";
  b.config_name = sample_config(0).name;
  b.cubin = {std::byte{1}, std::byte{2}};
  db.put_binary(b);
  if (finish) db.finish_sweep(s);
}

// A file made before a knob existed (here k_lanes and k_warps, dropped again) merges as it is,
// read-only: its configs take the knobs' defaults, and the file is not changed.
TEST_F(Maintenance, MergeFromAFileThatPredatesAKnob) {
  {
    Database b(path("old.db"), OpenMode::read_write, sample_families());
    fill(b, sample_gpu("NVIDIA H200"), 0, 3);
  }
  {
    Connection raw(path("old.db"), OpenMode::read_write);
    raw.exec("ALTER TABLE configs DROP COLUMN k_warps");
    raw.exec("ALTER TABLE configs DROP COLUMN k_lanes");
  }
  const std::string before = file_bytes(path("old.db"));
  Database a(path("a.db"), OpenMode::read_write, sample_families());
  const MergeStats merged = a.merge_from(path("old.db"));
  EXPECT_GT(merged.configs, 0);
  EXPECT_GT(merged.results, 0);
  EXPECT_TRUE(a.check().ok());
  for (Id id = 1; id <= merged.configs; ++id) {
    std::optional<KernelConfig> c = a.config(id);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->knobs.at("k_lanes"), 1);
    EXPECT_EQ(c->knobs.at("k_warps"), 1);
  }
  EXPECT_EQ(a.merge_from(path("old.db")).results, 0);
  EXPECT_EQ(file_bytes(path("old.db")), before);
}

TEST_F(Maintenance, MergeTwiceAddsNothing) {
  Database a(path("a.db"), OpenMode::read_write);
  fill(a, sample_gpu("NVIDIA H200"), 0, 4);
  {
    // Ids in b differ from a's: other rows were inserted first.
    Database b(path("b.db"), OpenMode::read_write);
    fill(b, sample_gpu("NVIDIA A100", 108), 10, 2);
    fill(b, sample_gpu("NVIDIA H200"), 2, 4);  // overlaps a's problems, configs and GPU model
  }
  const Counts before = counts(a);
  const MergeStats first = a.merge_from(path("b.db"));
  const Counts after = counts(a);
  EXPECT_EQ(first.gpu_models, 1);  // A100 only
  EXPECT_EQ(first.sweeps, 2);
  EXPECT_EQ(first.problems, 2 + 2);  // 10, 11 and 4, 5
  EXPECT_EQ(first.results, 18);
  EXPECT_EQ(first.baselines, 6);
  EXPECT_EQ(first.binaries, 0);  // cached binaries are code: left out unless asked for
  EXPECT_EQ(first.binaries_dropped, 1);
  EXPECT_EQ(after.binaries, before.binaries);
  EXPECT_EQ(after.results, before.results + 18);
  EXPECT_EQ(after.gpu_models, before.gpu_models + 1);

  const MergeStats second = a.merge_from(path("b.db"));
  EXPECT_EQ(counts(a), after);
  EXPECT_EQ(second.results + second.sweeps + second.problems + second.configs + second.gpu_models +
                second.baselines + second.binaries,
            0);
  EXPECT_TRUE(a.check().ok());
  const MergeStats with_binaries = a.merge_from(path("b.db"), ForeignBinaries::copy);
  EXPECT_EQ(with_binaries.binaries, 1);
  EXPECT_EQ(with_binaries.binaries_dropped, 0);
  EXPECT_EQ(a.merge_from(path("b.db"), ForeignBinaries::copy).binaries, 0);

  // The merged rows mean the same thing: b's best for the A100 is a's best now.
  const Id a100 = a.find_gpu_model(sample_gpu("NVIDIA A100", 108)).value();
  const auto best = a.best_for(a100, sample_problem(64 * 11));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config, sample_config(10));  // problem 10: configs 10..12, fastest first
  EXPECT_DOUBLE_EQ(best->cublas_median_ms.value(), 5.0);
  EXPECT_EQ(a.results_for(sample_problem(64 * 3), a.find_gpu_model(sample_gpu()).value()).size(),
            6u);
}

TEST_F(Maintenance, MergeFillsInTheEndOfASweepMergedWhileRunning) {
  Database a(path("a.db"), OpenMode::read_write);
  Id sweep = 0;
  {
    Database b(path("b.db"), OpenMode::read_write);
    fill(b, sample_gpu(), 0, 1, /*finish=*/false);
    sweep = b.sweeps().back().id;
  }
  a.merge_from(path("b.db"));
  EXPECT_FALSE(a.sweeps().back().finished_at);
  Database(path("b.db"), OpenMode::read_write).finish_sweep(sweep);
  EXPECT_EQ(a.merge_from(path("b.db")).sweeps, 1);
  EXPECT_TRUE(a.sweeps().back().finished_at);
  EXPECT_EQ(a.merge_from(path("b.db")).sweeps, 0);
}

TEST_F(Maintenance, MergeRefusesBadSources) {
  Database a(path("a.db"), OpenMode::read_write);
  fill(a, sample_gpu(), 0, 1);
  expect_error([&] { a.merge_from(path("missing.db")); }, {path("missing.db"), "does not exist"});
  std::ofstream(path("junk.db")) << "junk";
  expect_error([&] { a.merge_from(path("junk.db")); }, {path("junk.db"), "not an SQLite database"});
  expect_error([&] { a.merge_from(path("a.db")); }, {"into itself"});
  {
    Database b(path("b.db"), OpenMode::read_write);
    KernelConfig c = sample_config(0);
    c.knobs["tn"] = 2;  // same name, other parameters
    b.upsert_config(c);
  }
  const Counts before = counts(a);
  expect_error([&] { a.merge_from(path("b.db")); }, {sample_config(0).name, "other parameters"});
  EXPECT_EQ(counts(a), before);
  EXPECT_FALSE(fs::exists(path("missing.db")));
}

TEST_F(Maintenance, PruneByTemplateHashAndAge) {
  Database db(path("tuning.db"), OpenMode::read_write);
  const Id g = db.upsert_gpu_model(sample_gpu());
  const Id p = db.upsert_problem(sample_problem(64));
  const Id c = db.upsert_config(sample_config(0));
  auto sweep = [&](const std::string& hash) {
    SweepInfo info = sweep_info(g);
    info.template_hash = hash;
    const Id s = db.begin_sweep(info);
    db.record_results(s, std::vector<Result>{ok_result(p, c, 1.0)});
    db.record_baseline(s, cublas(p, 1.0));
    db.finish_sweep(s);
    return s;
  };
  const Id old_templates = sweep("old");
  const Id current = sweep("new");
  const Id ancient = sweep("new");
  exec_raw(db.path(), "UPDATE sweeps SET started_at = '2020-01-01T00:00:00.000Z' WHERE id = " +
                          std::to_string(ancient));
  PruneOptions by_hash;
  by_hash.keep_template_hash = "new";
  const PruneStats a = db.prune(by_hash);
  EXPECT_EQ(a.sweeps, 1);
  EXPECT_EQ(a.results, 1);
  EXPECT_EQ(a.baselines, 1);
  PruneOptions by_age;
  by_age.older_than_days = 30;
  EXPECT_EQ(db.prune(by_age).sweeps, 1);
  const auto left = db.sweeps();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].id, current);
  EXPECT_EQ(scalar(db.path(), "SELECT count(*) FROM results"), 1);
  EXPECT_EQ(db.prune(PruneOptions{}).sweeps, 0);  // no criterion: nothing
  EXPECT_NE(old_templates, current);
  EXPECT_TRUE(db.check().ok());
}

// A sweep with no end time may still be running: kept, unless asked for and a day old.
TEST_F(Maintenance, PruneKeepsUnfinishedSweeps) {
  Database db(path("tuning.db"), OpenMode::read_write);
  const Id g = db.upsert_gpu_model(sample_gpu());
  SweepInfo info = sweep_info(g);
  info.template_hash = "old";
  const Id running = db.begin_sweep(info), crashed = db.begin_sweep(info);
  exec_raw(db.path(),
           "UPDATE sweeps SET started_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-25 hours') "
           "WHERE id = " +
               std::to_string(crashed));
  PruneOptions stale;
  stale.keep_template_hash = "new";
  PruneStats s = db.prune(stale);
  EXPECT_EQ(s.sweeps, 0);
  EXPECT_EQ(s.unfinished_kept, 2);
  stale.include_unfinished = true;
  s = db.prune(stale);
  EXPECT_EQ(s.sweeps, 1);  // the one that started more than a day ago
  EXPECT_EQ(s.unfinished_kept, 1);
  const auto left = db.sweeps();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].id, running);
}

TEST_F(Maintenance, CheckReportsForeignKeyDamage) {
  Database db(path("tuning.db"), OpenMode::read_write);
  fill(db, sample_gpu(), 0, 1);
  EXPECT_TRUE(db.check().ok());
  exec_raw(db.path(), "PRAGMA foreign_keys = OFF; DELETE FROM configs WHERE id = 1");
  const CheckReport report = db.check();
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.problems[0].find("results"), std::string::npos) << report.problems[0];
}

}  // namespace
}  // namespace gemmtune::db::test
