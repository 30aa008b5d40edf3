// Kernel families share the `configs` table: each declares its knob columns, a config is keyed by
// (family, name), and a family's rows hold NULL in the columns only other families declare.
#include <vector>

#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

// A made-up second family (test-only): a half-precision GEMM whose block tile shares sgemm's
// columns bm and bn, with defaults of its own, and a knob sgemm lacks.
const FamilySchema kHalf{"hgemm", {{"bm", 64}, {"bn", 64}, {"chunks", 2}}};

std::vector<FamilySchema> both_families() {
  std::vector<FamilySchema> families(sample_families().begin(), sample_families().end());
  families.push_back(kHalf);
  return families;
}

KernelConfig half_config(int bm, int chunks) {
  KernelConfig c;
  c.family = "hgemm";
  c.name = "hgemm_nn_" + std::to_string(bm) + "x64_c" + std::to_string(chunks);
  c.knobs = {{"bm", bm}, {"bn", 64}, {"chunks", chunks}};
  return c;
}

// The columns of sgemm's knobs that hgemm does not declare.
std::vector<std::string> sgemm_only_columns() {
  std::vector<std::string> out;
  for (const KnobColumn& knob : sample_families()[0].knobs)
    if (knob.name != "bm" && knob.name != "bn") out.push_back(knob.name);
  return out;
}

// Every knob value of the sgemm rows, as text: what a second family must not touch.
std::string sgemm_values(const std::string& file) {
  Connection conn(file, OpenMode::read_only);
  std::string columns = "name";
  for (const KnobColumn& knob : sample_families()[0].knobs) columns += ", " + knob.name;
  Statement st(conn, "SELECT " + columns + " FROM configs WHERE family = 'sgemm' ORDER BY id");
  std::string out;
  while (st.step()) {
    for (int i = 0; i < st.column_count(); ++i)
      out += st.get_text(i) + (st.is_null(i) ? "~," : ",");
    out += "\n";
  }
  return out;
}

// Name, type, NOT NULL and default of every column of configs, a line each.
std::string column_definitions(const std::string& file) {
  Connection conn(file, OpenMode::read_only);
  Statement st(conn,
               "SELECT name, type, \"notnull\", ifnull(dflt_value, 'NULL') FROM "
               "pragma_table_info('configs')");
  std::string out;
  while (st.step())
    out +=
        st.get_text(0) + " " + st.get_text(1) + " " + st.get_text(2) + " " + st.get_text(3) + "\n";
  return out;
}

using Families = ScratchDirTest;

TEST_F(Families, ConfigsOfTwoFamiliesAreStoredAndReadBackSideBySide) {
  Database db(path("tuning.db"), OpenMode::read_write, both_families());
  const Id gpu = db.upsert_gpu_model(sample_gpu());
  const Id single = db.upsert_config(sample_config(0));
  const Id half = db.upsert_config(half_config(128, 4));
  EXPECT_NE(single, half);
  EXPECT_EQ(db.upsert_config(half_config(128, 4)), half);
  EXPECT_EQ(db.config(single), sample_config(0));
  EXPECT_EQ(db.config(half), half_config(128, 4));  // no value in sgemm's columns

  // Each family's rows leave the columns only the other declares NULL.
  std::string sgemm_set;
  for (const std::string& column : sgemm_only_columns())
    sgemm_set += " OR " + column + " IS NOT NULL";
  EXPECT_EQ(scalar(db.path(),
                   "SELECT count(*) FROM configs WHERE family = 'hgemm' AND (0" + sgemm_set + ")"),
            0);
  EXPECT_EQ(scalar(db.path(), "SELECT count(*) FROM configs WHERE chunks IS NOT NULL"), 1);

  // Results of both read back with their configs' families.
  ProblemKey f16 = sample_problem(256);
  f16.dtype = "f16";
  const Id p32 = db.upsert_problem(sample_problem(256)), p16 = db.upsert_problem(f16);
  const Id sweep = db.begin_sweep(sweep_info(gpu));
  db.record_results(sweep,
                    std::vector<Result>{ok_result(p32, single, 1.0), ok_result(p16, half, 0.5),
                                        ok_result(p16, single, 0.75)});
  EXPECT_EQ(db.best_for(gpu, f16)->config, half_config(128, 4));
  EXPECT_EQ(db.best_for(gpu, sample_problem(256))->config, sample_config(0));
  const auto rows = db.results_for(f16, gpu);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].config.family, "hgemm");
  EXPECT_EQ(rows[1].config.family, "sgemm");
  EXPECT_TRUE(db.check().ok());
}

// A config's key is (family, name): the same name in two families is two configs, and within a
// family other parameters under a stored name are refused, as before.
TEST_F(Families, ANameIsUniqueWithinItsFamily) {
  Database db(path("tuning.db"), OpenMode::read_write, both_families());
  KernelConfig same_name = half_config(128, 4);
  same_name.name = sample_config(0).name;
  const Id single = db.upsert_config(sample_config(0));
  const Id half = db.upsert_config(same_name);
  EXPECT_NE(single, half);
  EXPECT_EQ(db.config(single), sample_config(0));
  EXPECT_EQ(db.config(half), same_name);
  same_name.knobs["chunks"] = 8;
  expect_error([&] { db.upsert_config(same_name); }, {same_name.name, "hgemm", "other parameters"});
}

// A family added to a file that sgemm filled: its columns are added, NULL in sgemm's rows, and
// sgemm's columns and values are untouched; a file read by a gemmtune that knows only sgemm
// still reads both families' configs.
TEST_F(Families, ASecondFamilyLeavesTheFirstFamilysColumnsAlone) {
  const std::string file = path("tuning.db");
  {
    Database db(file, OpenMode::read_write, sample_families());
    for (int i = 0; i < 5; ++i) db.upsert_config(sample_config(i));
  }
  const std::string before = sgemm_values(file);
  const std::string definitions = column_definitions(file);
  Id half = 0;
  {
    Database db(file, OpenMode::read_write, both_families());
    half = db.upsert_config(half_config(64, 2));
    EXPECT_EQ(scalar(file, "SELECT count(*) FROM configs WHERE chunks IS NOT NULL"), 1);
  }
  EXPECT_EQ(sgemm_values(file), before);
  EXPECT_EQ(column_definitions(file), definitions + "chunks INTEGER 0 NULL\n")
      << "one column more, for the new knob";

  Database sgemm_only(file, OpenMode::read_only, sample_families());
  EXPECT_EQ(sgemm_only.config(half), half_config(64, 2));
  EXPECT_EQ(sgemm_only.config(1), sample_config(0));
}

// A knob a family adds later gets its column filled with that family's default in its rows only;
// a config that names a knob the file has no column for is refused, and one with no family.
TEST_F(Families, AKnobAddedLaterFillsOnlyItsFamilysRows) {
  const std::string file = path("tuning.db");
  {
    Database db(file, OpenMode::read_write, both_families());
    db.upsert_config(sample_config(0));
    db.upsert_config(half_config(64, 2));
    KernelConfig wider = half_config(64, 2);
    wider.name += "_s3";
    wider.knobs["swizzle"] = 3;
    expect_error([&] { db.upsert_config(wider); },
                 {wider.name, "no column for its knob 'swizzle'", "FamilySchema"});
    KernelConfig nameless = sample_config(1);
    nameless.family.clear();
    expect_error([&] { db.upsert_config(nameless); }, {"no kernel family"});
  }
  std::vector<FamilySchema> later = both_families();
  later.back().knobs.push_back({"swizzle", 1});
  Database db(file, OpenMode::read_write, later);
  EXPECT_EQ(scalar(file, "SELECT swizzle FROM configs WHERE family = 'hgemm'"), 1);
  EXPECT_EQ(scalar(file, "SELECT count(*) FROM configs WHERE swizzle IS NULL"), 1);  // sgemm's
  EXPECT_EQ(db.config(1), sample_config(0));
}

// Merging matches configs by family and name and keeps each family's columns.
TEST_F(Families, MergeKeepsBothFamilies) {
  {
    Database b(path("b.db"), OpenMode::read_write, both_families());
    KernelConfig same_name = half_config(128, 4);
    same_name.name = sample_config(0).name;
    b.upsert_config(same_name);
    b.upsert_config(sample_config(0));
  }
  Database a(path("a.db"), OpenMode::read_write, both_families());
  const Id single = a.upsert_config(sample_config(0));
  EXPECT_EQ(a.merge_from(path("b.db")).configs, 1);
  EXPECT_EQ(a.merge_from(path("b.db")).configs, 0);
  EXPECT_EQ(a.config(single), sample_config(0));
  EXPECT_EQ(scalar(a.path(),
                   "SELECT count(*) FROM configs WHERE family = 'hgemm' AND "
                   "chunks = 4 AND bm = 128 AND stages IS NULL"),
            1);
  {
    Database c(path("c.db"), OpenMode::read_write, both_families());
    KernelConfig clash = half_config(128, 8);
    clash.name = sample_config(0).name;
    c.upsert_config(clash);
  }
  expect_error([&] { a.merge_from(path("c.db")); }, {sample_config(0).name, "other parameters"});
}

TEST_F(Families, NamesThatCannotBeColumnsAreRefused) {
  for (const FamilySchema& bad : {FamilySchema{"hgemm", {{"bm; DROP TABLE configs", 1}}},
                                  FamilySchema{"hgemm", {{"name", 1}}},
                                  FamilySchema{"Half GEMM", {}}, FamilySchema{"", {}}}) {
    expect_error(
        [&] {
          Database(path("tuning.db"), OpenMode::read_write, {&bad, 1});
        },
        {"cannot name"});
  }
}

// The fastest configs are ranked within the precision classes each family declares: a family
// without them (hgemm) is one class, and needs no column of another family's (sgemm's math).
TEST_F(Families, EachFamilyRanksItsTopConfigsInItsOwnPrecisionClasses) {
  const ProblemKey problem = sample_problem(512);
  {
    Database half_only(path("half.db"), OpenMode::read_write, {&kHalf, 1});
    const Id gpu = half_only.upsert_gpu_model(sample_gpu());
    const Id p = half_only.upsert_problem(problem), sweep = half_only.begin_sweep(sweep_info(gpu));
    std::vector<Result> results;
    for (int chunks : {1, 2, 3})
      results.push_back(ok_result(p, half_only.upsert_config(half_config(64, chunks)), chunks));
    half_only.record_results(sweep, results);
    const auto top = half_only.top_configs(gpu, 2);
    ASSERT_EQ(top.size(), 2u);
    EXPECT_EQ(top[0].config, half_config(64, 1));
    EXPECT_EQ(top[1].config, half_config(64, 2));
  }
  Database db(path("tuning.db"), OpenMode::read_write, both_families());
  const Id gpu = db.upsert_gpu_model(sample_gpu());
  const Id p = db.upsert_problem(problem), sweep = db.begin_sweep(sweep_info(gpu));
  // sgemm: two configs of math 0 and one of math 2 (another class), slowest of all; hgemm: two.
  std::vector<Result> results;
  for (int i : {0, 1, 2}) {
    KernelConfig c = sample_config(i);
    c.knobs["math"] = i == 2 ? 2 : 0;
    results.push_back(ok_result(p, db.upsert_config(c), 1.0 + i));
  }
  for (int chunks : {1, 2})
    results.push_back(ok_result(p, db.upsert_config(half_config(64, chunks)), 0.5 * chunks));
  db.record_results(sweep, results);
  std::vector<std::string> top;
  for (const BestRow& row : db.top_configs(gpu, 1)) top.push_back(row.config.name);
  // One a class: hgemm's fastest (its one class, which the ieee sgemm configs share: class 0),
  // and the math-2 sgemm config, alone in its class.
  EXPECT_EQ(top, (std::vector<std::string>{half_config(64, 1).name, sample_config(2).name}));
}

TEST_F(Families, APrecisionColumnThatIsNoKnobIsRefused) {
  const FamilySchema bad{"hgemm", {{"bm", 64}}, {"math", {{0, 0}}, 1}};
  expect_error(
      [&] {
        Database(path("tuning.db"), OpenMode::read_write, {&bad, 1});
      },
      {"ranks precision classes by 'math'", "none of its knob columns"});
}

}  // namespace
}  // namespace gemmtune::db::test
