// The wide-range error of schema version 3: recorded with a result or filled in later, read back
// by every read, merged along; files of version 2 (the fixtures among them) read without it,
// merge both ways and migrate keeping every row.
#include "gemmtune/db/export.hpp"
#include "gemmtune/db/schema.hpp"
#include "unit/db/db_fixture.hpp"

#include <sstream>

namespace gemmtune::db::test {
namespace {

class WideError : public OneGpuDbTest {
 protected:
  void SetUp() override {
    OneGpuDbTest::SetUp();
    sweep_ = db_->begin_sweep(sweep_info(gpu_));
    problem_ = db_->upsert_problem(sample_problem(256));
  }
  // An ok result of config `i` on the problem, with `wide` as its wide-range error.
  Id record(int i, double median_ms, std::optional<double> wide) {
    Result r = ok_result(problem_, db_->upsert_config(sample_config(i)), median_ms);
    r.wide_error = wide;
    db_->record_results(sweep_, std::span<const Result>(&r, 1));
    return scalar(db_->path(), "SELECT max(id) FROM results");
  }
  Id sweep_ = 0, problem_ = 0;
};

TEST_F(WideError, RoundTripsThroughEveryRead) {
  record(0, 1.0, 3.5e-7);
  record(1, 2.0, std::nullopt);
  Result failed =
      failed_result(problem_, db_->upsert_config(sample_config(2)), Status::wrong_result,
                    "on wide-range inputs: relative error 0.01 exceeds the tolerance");
  failed.rel_error = 2e-7;
  failed.wide_error = 0.01;
  db_->record_results(sweep_, std::span<const Result>(&failed, 1));

  const auto rows = db_->results_for(sample_problem(256), gpu_);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].result.wide_error, 3.5e-7);
  EXPECT_FALSE(rows[1].result.wide_error);
  EXPECT_EQ(rows[2].result.status, Status::wrong_result);
  EXPECT_EQ(rows[2].result.wide_error, 0.01);
  EXPECT_EQ(rows[2].result.rel_error, 2e-7);

  const auto best = db_->best_for(gpu_, sample_problem(256));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->wide_error, 3.5e-7);
  EXPECT_EQ(best->rel_error, 1e-6);
  ASSERT_EQ(db_->bests(gpu_).size(), 1u);
  EXPECT_EQ(db_->bests(gpu_)[0].wide_error, 3.5e-7);
  const auto top = db_->top_configs(gpu_, 4);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].wide_error, 3.5e-7);
  EXPECT_FALSE(top[1].wide_error);

  // Recording the result again replaces the row, its wide-range error too.
  record(0, 1.0, std::nullopt);
  EXPECT_FALSE(db_->best_for(gpu_, sample_problem(256))->wide_error);
}

TEST_F(WideError, ExportsNameTheColumn) {
  record(0, 1.0, 3.5e-7);
  std::ostringstream results, bests;
  export_results(*db_, ExportFormat::csv, results);
  export_bests(*db_, ExportFormat::json, bests);
  EXPECT_NE(results.str().find(",rel_error,wide_error,"), std::string::npos) << results.str();
  EXPECT_NE(results.str().find(",3.5e-07,"), std::string::npos) << results.str();
  EXPECT_NE(bests.str().find("\"wide_error\":3.5e-07"), std::string::npos) << bests.str();
}

// A later sweep fills in the error of a result recorded without one, never over a stored one.
TEST_F(WideError, IsFilledInOnlyWhereMissing) {
  const Id fma = record(0, 1.0, std::nullopt);
  const Id measured = record(1, 2.0, 4e-7);
  EXPECT_TRUE(db_->record_wide_error(fma, 2.5e-7));
  EXPECT_EQ(db_->best_for(gpu_, sample_problem(256))->wide_error, 2.5e-7);
  EXPECT_FALSE(db_->record_wide_error(fma, 9e-7));
  EXPECT_FALSE(db_->record_wide_error(measured, 9e-7));
  EXPECT_EQ(db_->results_for(sample_problem(256), gpu_)[0].result.wide_error, 2.5e-7);
  EXPECT_EQ(db_->results_for(sample_problem(256), gpu_)[1].result.wide_error, 4e-7);
  expect_error([&] { db_->record_wide_error(12345, 1e-7); }, {"no result 12345"});
  Database reader(db_->path(), OpenMode::read_only);
  expect_error([&] { reader.record_wide_error(fma, 1e-7); }, {"read-only"});
}

// A copy of a result merged before its wide-range error was filled in gets it from the next merge
// (as a merged running sweep gets its end time); merging again changes nothing.
TEST_F(WideError, MergeCarriesAnErrorFilledInLater) {
  const Id fma = record(0, 1.0, std::nullopt);
  record(1, 2.0, 4e-7);
  Database copy(path("copy.db"), OpenMode::read_write);
  EXPECT_EQ(copy.merge_from(db_->path()).results, 2);
  ASSERT_TRUE(db_->record_wide_error(fma, 2.5e-7));
  const Id copy_gpu = *copy.find_gpu_model(sample_gpu());
  EXPECT_FALSE(copy.best_for(copy_gpu, sample_problem(256))->wide_error);
  EXPECT_EQ(copy.merge_from(db_->path()).results, 1);
  EXPECT_EQ(copy.best_for(copy_gpu, sample_problem(256))->wide_error, 2.5e-7);
  EXPECT_EQ(copy.merge_from(db_->path()).results, 0);
  // A stored error is not replaced by the source's.
  exec_raw(db_->path(), "UPDATE results SET wide_error = 9e-7");
  copy.merge_from(db_->path());
  EXPECT_EQ(copy.best_for(copy_gpu, sample_problem(256))->wide_error, 2.5e-7);
  EXPECT_TRUE(copy.check().ok());
}

// Rows as version 2 wrote them, in a file of that version (without the columns of the knobs
// added since: the version 2 files users have were made before some of them).
void make_version_2_file(const std::string& file) {
  Connection raw(file, OpenMode::read_write);
  migrate(raw, 2);
  raw.exec(
      "INSERT INTO gpu_models (name, cc_major, cc_minor, sm_count) VALUES ('NVIDIA H200', 9, 0, "
      "132);"
      "INSERT INTO sweeps (uid, gpu_model_id, command_line) VALUES ('v2-sweep', 1, 'old sweep');"
      "INSERT INTO problems (op_a, op_b, m, n, k, alignment) VALUES ('n', 'n', 64, 64, 64, 4);"
      "INSERT INTO configs (family, name, op_a, op_b, bm, bn, bk, wm, wn, tm, tn, stages, vec, pad,"
      " split_k, raster) VALUES ('sgemm', 'c1', 'n', 'n', 64, 64, 8, 32, 32, 4, 4, 2, 4, 4, 1, 1);"
      "INSERT INTO results (sweep_id, problem_id, config_id, status, median_ms, rel_error)"
      " VALUES (1, 1, 1, 'ok', 0.5, 3e-7);");
}

// Read-only, a version 2 file reads as if migrated (no wide-range errors) and keeps every byte.
TEST_F(WideError, AVersion2FileReadsWithoutThemUnchanged) {
  const std::string file = path("v2.db");
  make_version_2_file(file);
  const std::string before = file_bytes(file);
  {
    Database old(file, OpenMode::read_only, sample_families());
    const Id gpu = *old.find_gpu_model(sample_gpu());
    const auto best = old.best_for(gpu, sample_problem(64, 64, 64));
    ASSERT_TRUE(best);
    EXPECT_EQ(best->config.name, "c1");
    EXPECT_EQ(best->rel_error, 3e-7);
    EXPECT_FALSE(best->wide_error);
    EXPECT_FALSE(old.results_for(sample_problem(64, 64, 64), gpu)[0].result.wide_error);
    EXPECT_EQ(old.top_configs(gpu, 4).size(), 1u);
    std::ostringstream results, bests;
    export_results(old, ExportFormat::csv, results);
    export_bests(old, ExportFormat::csv, bests);
    EXPECT_NE(results.str().find("wide_error"), std::string::npos);
    EXPECT_NE(bests.str().find("wide_error"), std::string::npos);
    const CheckReport report = old.check();
    EXPECT_TRUE(report.ok()) << report.problems.front();
    EXPECT_EQ(report.schema_version, 2);
  }
  EXPECT_EQ(file_bytes(file), before);
}

// A version 2 file merges into a new one (its results without wide-range errors, the source
// unchanged), and a new file into a version 2 one, which is migrated first and keeps its rows.
TEST_F(WideError, Version2AndNewFilesMergeBothWays) {
  const std::string old_file = path("v2.db");
  make_version_2_file(old_file);
  record(0, 1.0, 3.5e-7);
  const std::string before = file_bytes(old_file);

  const MergeStats in = db_->merge_from(old_file);
  EXPECT_EQ(in.results, 1);
  EXPECT_EQ(file_bytes(old_file), before);
  const auto merged = db_->best_for(gpu_, sample_problem(64, 64, 64));
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->rel_error, 3e-7);
  EXPECT_FALSE(merged->wide_error);

  Database old(old_file, OpenMode::read_write);
  EXPECT_EQ(scalar(old.path(), "PRAGMA user_version"), kSchemaVersion);
  const MergeStats out = old.merge_from(db_->path());
  EXPECT_EQ(out.results, 1);  // its own result is there already
  const Id gpu = *old.find_gpu_model(sample_gpu());
  EXPECT_EQ(old.best_for(gpu, sample_problem(256))->wide_error, 3.5e-7);
  EXPECT_EQ(old.best_for(gpu, sample_problem(64, 64, 64))->rel_error, 3e-7);
  EXPECT_EQ(old.sweeps().front().info.command_line, "old sweep");
  EXPECT_TRUE(old.check().ok());
}

// The recorded databases of tests/fixtures are of version 2: read-only they open unchanged and
// read as before, they merge into a new file whole, and a read-write open migrates a copy
// keeping every row, and every config with its family and knob values (those of knobs added
// since: their defaults, as a read-only open shows them).
TEST(WideErrorFixtures, RecordedDatabasesOpenMergeAndMigrate) {
  const fs::path dir = ::gemmtune::test::scratch_dir("wide_error_fixtures");
  const fs::path copy = dir / "halving.db";
  fs::copy_file(fs::path(GEMMTUNE_TEST_FIXTURES) / "h200-halving-4-problems.db", copy);
  const std::string before = file_bytes(copy.string());
  const std::int64_t results = scalar(copy.string(), "SELECT count(*) FROM results");
  ASSERT_GT(results, 0);
  std::vector<BestRow> bests;
  {
    Database fixture(copy.string(), OpenMode::read_only, sample_families());
    ASSERT_EQ(fixture.gpu_models().size(), 1u);
    bests = fixture.bests();
    EXPECT_EQ(bests.size(), 4u);
    for (const BestRow& b : bests) EXPECT_FALSE(b.wide_error);
    EXPECT_TRUE(fixture.check().ok());
  }
  EXPECT_EQ(file_bytes(copy.string()), before);

  Database merged((dir / "merged.db").string(), OpenMode::read_write, sample_families());
  EXPECT_EQ(merged.merge_from(copy.string()).results, results);
  ASSERT_EQ(merged.bests().size(), bests.size());
  for (std::size_t i = 0; i < bests.size(); ++i)
    EXPECT_EQ(merged.bests()[i].config, bests[i].config);
  EXPECT_EQ(file_bytes(copy.string()), before);

  {
    Database migrated(copy.string(), OpenMode::read_write, sample_families());
    EXPECT_EQ(migrated.check().schema_version, kSchemaVersion);
    EXPECT_TRUE(migrated.check().ok());
    const auto after = migrated.bests();
    ASSERT_EQ(after.size(), bests.size());
    for (std::size_t i = 0; i < after.size(); ++i) {
      EXPECT_EQ(after[i].config, bests[i].config);
      EXPECT_EQ(after[i].config.family, "sgemm");
      EXPECT_EQ(after[i].config.knobs.size(), sample_families()[0].knobs.size());
      EXPECT_EQ(after[i].median_ms, bests[i].median_ms);
    }
  }
  EXPECT_EQ(scalar(copy.string(), "SELECT count(*) FROM results"), results);

  const fs::path exhaustive = fs::path(GEMMTUNE_TEST_UNPACKED_FIXTURES) / "h200-exhaustive.db";
  ASSERT_TRUE(fs::exists(exhaustive)) << "CMake unpacks tests/fixtures/h200-exhaustive.tar.xz";
  Database recorded(exhaustive.string(), OpenMode::read_only, sample_families());
  EXPECT_FALSE(recorded.bests().empty());
  EXPECT_GT(recorded.top_configs(recorded.gpu_models().front().id, 16).size(),
            recorded.bests().size());
}

}  // namespace
}  // namespace gemmtune::db::test
