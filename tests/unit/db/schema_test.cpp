// Schema versions: a fresh file, migration from every older version, and the config column list.
#include <optional>
#include <set>

#include "gemmtune/db/schema.hpp"
#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

using Schema = ScratchDirTest;

// The schema as SQLite stores it, one object per line, for comparing two files.
std::string schema_text(Connection& conn) {
  Statement st(conn,
               "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name");
  std::string out;
  while (st.step()) out += st.get_text(0) + " " + st.get_text(1) + ": " + st.get_text(2) + "\n";
  return out;
}

std::set<std::string> columns(Connection& conn, const std::string& table) {
  Statement st(conn, "SELECT name FROM pragma_table_info(?1)");
  st.bind_text(1, table);
  std::set<std::string> names;
  while (st.step()) names.insert(st.get_text(0));
  return names;
}

TEST_F(Schema, FreshFileIsAtCurrentVersionInWalMode) {
  Database db(path("tuning.db"), OpenMode::read_write);
  Connection raw(db.path(), OpenMode::read_only);
  EXPECT_EQ(schema_version(raw), kSchemaVersion);
  EXPECT_EQ(scalar(raw, "PRAGMA application_id"), kApplicationId);
  Statement st(raw, "PRAGMA journal_mode");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.get_text(0), "wal");
  EXPECT_TRUE(db.check().ok());
}

// A reader open while the last writer closes keeps the file in WAL mode (the writer cannot switch
// it back, and its last rows stay in the -wal file); the reader, closing last, switches it back:
// the .db file alone, copied, then holds every row (docs/database.md, "At rest").
TEST_F(Schema, TheLastReaderToCloseLeavesTheFileSelfContained) {
  const std::string file = path("tuning.db");
  std::optional<Database> writer(std::in_place, file, OpenMode::read_write);
  writer->upsert_gpu_model(sample_gpu("NVIDIA H200"));
  std::optional<Database> reader(std::in_place, file, OpenMode::read_only);
  writer->upsert_gpu_model(sample_gpu("NVIDIA H100"));
  writer.reset();
  EXPECT_TRUE(fs::exists(file + "-wal"))
      << "the writer switched the file back while a reader had it open";
  reader.reset();
  EXPECT_FALSE(fs::exists(file + "-wal"));
  EXPECT_FALSE(fs::exists(file + "-shm"));
  EXPECT_EQ(file_bytes(file).substr(18, 2), std::string("\x01\x01", 2)) << "still in WAL mode";
  fs::copy_file(file, path("copy.db"));
  EXPECT_EQ(Database(path("copy.db"), OpenMode::read_only).gpu_models().size(), 2u);
}

TEST_F(Schema, ConfigsTableHasAColumnPerKnobOfItsFamilies) {
  Database db(path("tuning.db"), OpenMode::read_write, sample_families());
  Connection raw(db.path(), OpenMode::read_only);
  const auto cols = columns(raw, "configs");
  for (const KnobColumn& knob : sample_families()[0].knobs)
    EXPECT_TRUE(cols.count(knob.name)) << "configs lacks " << knob.name;
  EXPECT_EQ(cols.size(), sample_families()[0].knobs.size() + 5);  // + id, family, name, op_a, op_b
}

// A file made before a knob existed (here: occupancy, dropped again) gets the knob's column,
// filled with its default, the first time it is opened for writing with the knob's family;
// read-only, it reads as if the column held the default, and the file is not changed.
TEST_F(Schema, AKnobAddedLaterGetsItsColumnWithItsDefault) {
  {
    Database db(path("tuning.db"), OpenMode::read_write, sample_families());
    Connection raw(db.path(), OpenMode::read_write);
    raw.exec("ALTER TABLE configs DROP COLUMN occupancy");
    raw.exec(
        "INSERT INTO configs (family, name, op_a, op_b, bm, bn, bk, wm, wn, tm, tn, stages, vec, "
        "pad, split_k, raster) "
        "VALUES ('sgemm', 'sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8', 'n', 'n', 128, 128, 8, "
        "64, 32, 8, 8, 2, 4, 4, 1, 8)");
  }
  {
    Database db(path("tuning.db"), OpenMode::read_only, sample_families());
    std::optional<KernelConfig> config = db.config(1);
    ASSERT_TRUE(config.has_value());
    EXPECT_EQ(config->knobs.at("occupancy"), 1);
    EXPECT_EQ(config->knobs.at("bm"), 128);
    Connection raw(db.path(), OpenMode::read_only);
    EXPECT_FALSE(columns(raw, "configs").count("occupancy"));  // the file itself is unchanged
  }
  // Without the family, a read has no value for the knob (the family's code defaults it).
  EXPECT_FALSE(
      Database(path("tuning.db"), OpenMode::read_only).config(1)->knobs.count("occupancy"));
  Database db(path("tuning.db"), OpenMode::read_write, sample_families());
  Connection raw(db.path(), OpenMode::read_only);
  EXPECT_TRUE(columns(raw, "configs").count("occupancy"));
  EXPECT_EQ(scalar(raw, "SELECT occupancy FROM configs"), 1);
  EXPECT_TRUE(db.check().ok());
}

// Rows as version 1 wrote them; later versions only add, so this is valid SQL for each of them.
constexpr const char* kVersion1Rows =
    "INSERT INTO gpu_models (name, cc_major, cc_minor, sm_count) VALUES ('GPU', 8, 0, 108);"
    "INSERT INTO sweeps (uid, gpu_model_id, command_line) VALUES ('u1', 1, 'old sweep');"
    "INSERT INTO problems (op_a, op_b, m, n, k, alignment) VALUES ('n', 'n', 64, 64, 64, 4);"
    "INSERT INTO configs (family, name, op_a, op_b, bm, bn, bk, wm, wn, tm, tn, stages, vec, pad,"
    " split_k, raster) VALUES ('sgemm', 'c1', 'n', 'n', 64, 64, 8, 32, 32, 4, 4, 2, 4, 4, 1, 1);"
    "INSERT INTO results (sweep_id, problem_id, config_id, status, median_ms)"
    " VALUES (1, 1, 1, 'ok', 0.5);";

// Every older version, with data, migrates to the current one: read-only changes nothing, and
// reads the file (from kOldestReadableVersion) or asks for the migration (before it); read-write
// gives the schema of a fresh file with the data kept.
TEST_F(Schema, MigratesFromEveryOlderVersion) {
  std::string fresh_schema;
  {
    Database fresh(path("fresh.db"), OpenMode::read_write);
    Connection raw(fresh.path(), OpenMode::read_only);
    fresh_schema = schema_text(raw);
  }
  for (int from = 1; from < kSchemaVersion; ++from) {
    SCOPED_TRACE("from version " + std::to_string(from));
    const std::string file = path("v" + std::to_string(from) + ".db");
    {
      Connection raw(file, OpenMode::read_write);
      migrate(raw, from);
      ASSERT_EQ(schema_version(raw), from);
      raw.exec(kVersion1Rows);
    }
    const std::string before = file_bytes(file);
    if (from < kOldestReadableVersion) {
      expect_error([&] { Database db(file, OpenMode::read_only); },
                   {file, "schema version " + std::to_string(from), "older", "read-write"});
    } else {
      Database old(file, OpenMode::read_only);
      const auto best =
          old.best_for(*old.find_gpu_model(GpuModel{"GPU", 8, 0, 108}), sample_problem(64, 64, 64));
      ASSERT_TRUE(best);
      EXPECT_EQ(best->config.name, "c1");
      EXPECT_FALSE(best->wide_error);
      EXPECT_FALSE(old.ceilings(*old.find_gpu_model(GpuModel{"GPU", 8, 0, 108})));
    }
    EXPECT_EQ(file_bytes(file), before);

    Database db(file, OpenMode::read_write);
    Connection migrated(file, OpenMode::read_only);
    EXPECT_EQ(schema_version(migrated), kSchemaVersion);
    EXPECT_EQ(schema_text(migrated), fresh_schema);
    const auto sweeps = db.sweeps();
    ASSERT_EQ(sweeps.size(), 1u);
    EXPECT_EQ(sweeps[0].info.command_line, "old sweep");
    const auto gpu = db.find_gpu_model(GpuModel{"GPU", 8, 0, 108});
    ASSERT_TRUE(gpu);
    const auto best = db.best_for(*gpu, sample_problem(64, 64, 64));
    ASSERT_TRUE(best);
    EXPECT_EQ(best->config.name, "c1");
    EXPECT_EQ(best->config.family, "sgemm");
    EXPECT_EQ(best->config.knobs.at("bm"), 64);
    EXPECT_DOUBLE_EQ(best->median_ms, 0.5);
    // Configs are keyed by (family, name) since version 5: another family may use the name.
    EXPECT_NE(db.upsert_config(KernelConfig{"hgemm", "c1", 'n', 'n', {}}), best->config_id);
    EXPECT_TRUE(db.check().ok());
  }
}

// Version 5 builds `configs` anew with the knob columns the file has, whichever gemmtune added
// them (here k_lanes, after version 4), in their order and with their values; the ids results
// refer to are kept, and foreign keys are enforced again afterwards.
TEST_F(Schema, VersionFiveKeepsEveryKnobColumnAndItsValues) {
  const std::string file = path("v4.db");
  Connection raw(file, OpenMode::read_write);
  migrate(raw, 4);
  raw.exec(kVersion1Rows);
  raw.exec("ALTER TABLE configs ADD COLUMN k_lanes INTEGER NOT NULL DEFAULT 1");
  raw.exec(
      "INSERT INTO configs (family, name, op_a, op_b, bm, bn, bk, wm, wn, tm, tn, stages, vec, pad,"
      " split_k, raster, k_lanes) VALUES ('sgemm', 'c2', 'n', 't', 1, 1, 8, 1, 1, 1, 1, 1, 4, 0,"
      " 4, 1, 32);"
      "INSERT INTO results (sweep_id, problem_id, config_id, status, median_ms)"
      " VALUES (1, 1, 2, 'ok', 0.25);");
  const std::set<std::string> before = columns(raw, "configs");
  migrate(raw);
  EXPECT_EQ(schema_version(raw), kSchemaVersion);
  EXPECT_EQ(columns(raw, "configs"), before);
  EXPECT_EQ(scalar(raw, "SELECT k_lanes FROM configs WHERE name = 'c2'"), 32);
  EXPECT_EQ(scalar(raw, "SELECT config_id FROM best_results"), 2);
  EXPECT_EQ(scalar(raw, "PRAGMA foreign_keys"), 1);
  EXPECT_EQ(scalar(raw, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  EXPECT_THROW(raw.exec("INSERT INTO results (sweep_id, problem_id, config_id, status, median_ms)"
                        " VALUES (1, 1, 99, 'ok', 1)"),
               DatabaseError);
  // The knob columns hold NULL where a config does not set them (another family's).
  raw.exec("INSERT INTO configs (family, name, op_a, op_b) VALUES ('hgemm', 'c2', 'n', 'n')");
  EXPECT_EQ(scalar(raw, "SELECT count(*) FROM configs WHERE family = 'hgemm' AND bm IS NULL"), 1);

  Database db(file, OpenMode::read_only, sample_families());
  const auto best =
      db.best_for(*db.find_gpu_model(GpuModel{"GPU", 8, 0, 108}), sample_problem(64, 64, 64));
  ASSERT_TRUE(best);
  EXPECT_EQ(best->config.name, "c2");
  EXPECT_EQ(best->config.knobs.at("k_lanes"), 32);
  EXPECT_EQ(best->config.knobs.at("k_warps"), 1);  // a knob still later: its default, read-only
}

TEST_F(Schema, MigrationIsIdempotentAndRefusesUnknownTargets) {
  Database db(path("tuning.db"), OpenMode::read_write);
  Connection raw(db.path(), OpenMode::read_write);
  migrate(raw);
  EXPECT_EQ(schema_version(raw), kSchemaVersion);
  EXPECT_THROW(migrate(raw, kSchemaVersion + 1), DatabaseError);
  EXPECT_THROW(migration_sql(kSchemaVersion + 1), DatabaseError);
}

}  // namespace
}  // namespace gemmtune::db::test
