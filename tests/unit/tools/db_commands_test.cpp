// `gemmtune db ...` run as a user runs it, against a database that simulates recorded sweeps.
#include "gemmtune/db/schema.hpp"
#include "unit/tools/tools_fixture.hpp"

namespace gemmtune::tools_test {
namespace {

using DbCommands = CliTest;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The line of `text` that contains `part`, or "".
std::string line_with(const std::string& text, const std::string& part) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (contains(l, part)) return l;
  return "";
}

TEST_F(DbCommands, DevicesListsEveryGpuWithCounts) {
  CliRun r = db_cmd({"devices"}, fixture());
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string h200 = line_with(r.out, "NVIDIA H200");
  ASSERT_FALSE(h200.empty()) << r.out;
  EXPECT_TRUE(contains(h200, "sm_90")) << h200;
  EXPECT_TRUE(contains(h200, "66.9 TFLOP/s")) << h200;  // 2 * 128 * 132 SMs * 1.98 GHz
  EXPECT_TRUE(contains(h200, "150.0 GiB")) << h200;
  EXPECT_FALSE(line_with(r.out, "H100").empty()) << r.out;
  EXPECT_TRUE(fits_100_columns(r.out));

  CliRun j = db_cmd({"devices", "--format", "json"}, fixture());
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(json_parses(j.out)) << j.out;
  // 2 sweeps, 3 problems, 11 results of which 4 failed.
  EXPECT_TRUE(contains(line_with(j.out, "NVIDIA H200"),
                       "\"sweeps\":2,\"problems\":3,\"results\":11,\"failed\":4"))
      << j.out;
}

TEST_F(DbCommands, BestShowsTheWinnerWithSpeedupSpreadAndMargin) {
  CliRun r = db_cmd({"best", "--gpu-model", "H200"}, fixture());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(config_names_whole(r.out)) << r.out;
  EXPECT_TRUE(contains(r.out, "NVIDIA H200 (sm_90, 132 SMs, FP32 peak 66.9 TFLOP/s)")) << r.out;
  EXPECT_FALSE(contains(r.out, "H100")) << r.out;
  const std::string big = line_with(r.out, "4096x4096x4096 nn");
  ASSERT_FALSE(big.empty()) << r.out;
  EXPECT_TRUE(contains(big, "128x128x8_w64x32_t8x8_s2")) << big;  // the best config
  EXPECT_TRUE(contains(big, "3.00 ms")) << big;
  EXPECT_TRUE(contains(big, "45.8")) << big;     // 2*4096^3 / 3 ms
  EXPECT_TRUE(contains(big, "68.5%")) << big;    // of 66.9 TFLOP/s
  EXPECT_TRUE(contains(big, "3.60 ms")) << big;  // cuBLAS in the same sweep
  EXPECT_TRUE(contains(big, "1.20x")) << big;    // 3.6 / 3.0
  EXPECT_TRUE(contains(big, "10.0%")) << big;    // (3.15 - 2.85) / 3.0
  EXPECT_TRUE(contains(big, "5.0%")) << big;     // runner-up 3.15 ms
  const std::string mid = line_with(r.out, "1024x1024x2048 nn");
  EXPECT_TRUE(contains(mid, "128x64x8_w64x32_t8x4_s2")) << mid;
  EXPECT_TRUE(contains(mid, "200 us")) << mid;
  EXPECT_TRUE(contains(mid, "1.05x")) << mid;  // 0.21 / 0.2
  EXPECT_TRUE(contains(r.out, "2048x2048x2048 nt")) << r.out;
  EXPECT_TRUE(contains(r.out, "a1/a2: the widest vector (floats)"))
      << r.out;  // the problem column explained
}

TEST_F(DbCommands, BestFiltersByShapeAndLayoutAndWritesJson) {
  CliRun r = db_cmd({"best", "--shape", "4096x4096x4096", "--format", "json"}, fixture());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(json_parses(r.out)) << r.out;
  EXPECT_EQ(line_count(r.out), 4) << r.out;  // [ + a row per GPU + ]
  EXPECT_TRUE(contains(r.out, "\"config\":\"sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8\""))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\"speedup_vs_cublas\":1.2")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"gpu\":\"NVIDIA H100 80GB HBM3\"")) << r.out;
  // The problem as separate fields, not one string to parse.
  EXPECT_TRUE(contains(
      r.out, "\"m\":4096,\"n\":4096,\"k\":4096,\"batch\":1,\"layout\":\"nn\",\"alignment\":4"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "\"problem\"")) << r.out;

  CliRun nt = db_cmd({"best", "--layout", "nt"}, fixture());
  ASSERT_EQ(nt.status, 0) << nt.err;
  EXPECT_TRUE(contains(nt.out, "2048x2048x2048 nt")) << nt.out;
  EXPECT_FALSE(contains(nt.out, "4096x4096x4096")) << nt.out;
}

// Each best (and each ranked result) with its precision class and its errors on both verification
// inputs: a 3xTF32 best measured on both, an FP32 FMA best without a wide-range error ("-", null:
// not measured).
TEST_F(DbCommands, BestAndResultsShowThePrecisionClassAndBothErrors) {
  const fs::path file = dir_ / "classes.db";
  {
    Database db(file.string(), OpenMode::read_write, kernel_families());
    const Id gpu = db.upsert_gpu_model(h200());
    const Id big = db.upsert_problem(make_problem(4096, 4096, 4096)),
             mid = db.upsert_problem(make_problem(1024, 1024, 2048));
    KernelConfig tc = make_config("nn", 128, 128, 16, 64, 32, 8, 8, 3);
    tc.knobs.at("math") = 3;
    tc.name += "_m3";
    Result three = ok(big, db.upsert_config(tc), 2.5, 2.0 * 4096 * 4096 * 4096);
    three.rel_error = 3.1e-7;
    three.wide_error = 2.9e-7;
    Result fma = ok(mid, db.upsert_config(cfg_best()), 0.25, 2.0 * 1024 * 1024 * 2048);
    SweepInfo info;
    info.gpu_model_id = gpu;
    const Id sweep = db.begin_sweep(info);
    db.record_results(sweep, std::vector<Result>{three, fma});
  }
  CliRun r = db_cmd({"best"}, file);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string big = line_with(r.out, "4096x4096x4096 nn"),
                    mid = line_with(r.out, "1024x1024x2048 nn");
  EXPECT_TRUE(std::regex_search(big, std::regex("_m3 +fp32 "))) << r.out;
  EXPECT_TRUE(std::regex_search(big, std::regex(" 3\\.1e-07 +2\\.9e-07$"))) << r.out;
  EXPECT_TRUE(std::regex_search(mid, std::regex("_r8 +ieee "))) << r.out;
  EXPECT_TRUE(std::regex_search(mid, std::regex(" 2e-07 +-$"))) << r.out;
  EXPECT_TRUE(contains(r.out, "class: ieee FP32 FMA, fp32 3xTF32, tf32 1xTF32")) << r.out;

  CliRun j = db_cmd({"best", "--format", "json"}, file);
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(json_parses(j.out)) << j.out;
  const std::string big_json = line_with(j.out, "\"m\":4096"),
                    mid_json = line_with(j.out, "\"m\":1024");
  EXPECT_TRUE(contains(big_json, "\"precision_class\":\"fp32\"")) << j.out;
  EXPECT_TRUE(contains(big_json, "\"rel_error\":3.1e-07,\"wide_error\":2.9e-07")) << j.out;
  EXPECT_TRUE(contains(mid_json, "\"precision_class\":\"ieee\"")) << j.out;
  EXPECT_TRUE(contains(mid_json, "\"rel_error\":2e-07,\"wide_error\":null")) << j.out;

  // db results shows them for every ranked candidate.
  CliRun res = db_cmd({"results", "--shape", "4096x4096x4096"}, file);
  ASSERT_EQ(res.status, 0) << res.err;
  const std::string row = line_with(res.out, "_m3");
  EXPECT_TRUE(std::regex_search(row, std::regex("_m3 +fp32 "))) << res.out;
  EXPECT_TRUE(std::regex_search(row, std::regex(" 3\\.1e-07 +2\\.9e-07 "))) << res.out;
  EXPECT_TRUE(contains(res.out, "class: ieee FP32 FMA")) << res.out;
  CliRun res_json = db_cmd({"results", "--shape", "1024x1024x2048", "--format", "json"}, file);
  ASSERT_EQ(res_json.status, 0) << res_json.err;
  EXPECT_TRUE(contains(res_json.out, "\"precision_class\":\"ieee\"")) << res_json.out;
  EXPECT_TRUE(contains(res_json.out, "\"rel_error\":2e-07,\"wide_error\":null")) << res_json.out;
}

TEST_F(DbCommands, ResultsRanksCandidatesWithResources) {
  CliRun r =
      db_cmd({"results", "--shape", "4096x4096x4096", "--gpu-model", "NVIDIA H200"}, fixture());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(config_names_whole(r.out)) << r.out;
  const auto first = line_with(r.out, "128x128x8_w64x32_t8x8_s2"),
             second = line_with(r.out, "128x64x8_w64x32_t8x4_s2");
  EXPECT_EQ(first.substr(0, 2), "1 ") << r.out;
  EXPECT_EQ(second.substr(0, 2), "2 ") << r.out;
  EXPECT_TRUE(contains(second, "5.0%")) << second;  // slower than the best
  EXPECT_TRUE(contains(first, "16 KiB")) << first;  // shared memory
  EXPECT_TRUE(contains(first, "128")) << first;     // registers
  EXPECT_TRUE(
      contains(r.out, "4 configs ran; 4 failed: 1 compile_failed, 2 invalid, 1 wrong_result"))
      << r.out;

  CliRun top = db_cmd({"results", "--shape", "4096x4096x4096", "--gpu-model", "H200", "--top", "2"},
                      fixture());
  ASSERT_EQ(top.status, 0) << top.err;
  EXPECT_TRUE(line_with(top.out, "64x64x8_w32x32_t4x4_s1").empty()) << top.out;
  EXPECT_TRUE(contains(top.out, "the fastest 2 of 4")) << top.out;

  CliRun j = db_cmd({"results", "--shape", "4096x4096x4096", "--format", "json"}, fixture());
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(json_parses(j.out)) << j.out;
}

TEST_F(DbCommands, ResultsGroupsFailuresByReason) {
  CliRun r = db_cmd({"results", "--shape", "4096x4096x4096", "--gpu-model", "H200", "--failed"},
                    fixture());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(config_names_whole(r.out)) << r.out;
  const std::string invalid = line_with(r.out, "invalid   ");
  EXPECT_TRUE(contains(invalid, " 2 needs 264 KiB of shared memory"))
      << invalid;  // two configs, one reason
  EXPECT_TRUE(contains(invalid, "+1 more")) << invalid;
  EXPECT_TRUE(contains(line_with(r.out, "compile_failed   "), "too much shared data")) << r.out;
  EXPECT_TRUE(contains(line_with(r.out, "wrong_result   "), "relative error")) << r.out;

  CliRun j = db_cmd({"results", "--shape", "4096x4096x4096", "--gpu-model", "H200", "--failed",
                     "--format", "json"},
                    fixture());
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(json_parses(j.out)) << j.out;
  EXPECT_EQ(line_count(j.out), 5) << j.out;  // three groups
}

TEST_F(DbCommands, CompareShowsCommonProblems) {
  CliRun r = db_cmd({"compare", "H200", "H100"}, fixture());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(config_names_whole(r.out)) << r.out;
  const std::string big = line_with(r.out, "4096x4096x4096 nn");
  EXPECT_TRUE(contains(big, "45.8")) << big;              // A: 3.0 ms
  EXPECT_TRUE(contains(big, "34.4")) << big;              // B: 4.0 ms
  EXPECT_TRUE(contains(big, "0.75x")) << big;             // B vs A: 3.0 / 4.0
  EXPECT_FALSE(contains(r.out, "512x512x512")) << r.out;  // only on B
  EXPECT_TRUE(contains(r.out, "2 common problems")) << r.out;
  EXPECT_TRUE(contains(r.out, "only on A: 1, only on B: 1")) << r.out;

  CliRun j = db_cmd({"compare", "H200", "H100", "--format", "json"}, fixture());
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(json_parses(j.out)) << j.out;
}

TEST_F(DbCommands, CompareTwoDatabaseFiles) {
  // Split the fixture into an H200-only and an H100-only file by pruning... simpler: export each
  // GPU's view by comparing the fixture with itself for one device.
  const fs::path a = copy_fixture("a.db"), b = copy_fixture("b.db");
  CliRun r = cli({"db", "compare", a.string(), b.string(), "--gpu-model", "H100"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "3 common problems")) << r.out;
  EXPECT_TRUE(contains(r.out, "(same)")) << r.out;
  EXPECT_TRUE(contains(line_with(r.out, "4096x4096x4096"), "1.00x")) << r.out;

  CliRun several = cli({"db", "compare", a.string(), b.string()});
  EXPECT_NE(several.status, 0);
  EXPECT_TRUE(contains(several.err, "several GPU models")) << several.err;
  EXPECT_EQ(line_count(several.err), 1) << several.err;
}

TEST_F(DbCommands, ExportCsvAndJson) {
  CliRun csv = db_cmd({"export", "--format", "csv"}, fixture());
  ASSERT_EQ(csv.status, 0) << csv.err;
  EXPECT_EQ(line_count(csv.out), 1 + 15) << csv.out;  // header + every result
  EXPECT_TRUE(contains(csv.out, "ptxas error")) << csv.out;

  const fs::path out = dir_ / "bests.json";
  CliRun json =
      db_cmd({"export", "--format", "json", "--what", "bests", "--out", out.string()}, fixture());
  ASSERT_EQ(json.status, 0) << json.err;
  const std::string text = file_bytes(out);
  EXPECT_TRUE(json_parses(text)) << text;
  EXPECT_TRUE(contains(text, "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8")) << text;

  CliRun bad = db_cmd({"export", "--format", "xml"}, fixture());
  EXPECT_NE(bad.status, 0);

  CliRun device = db_cmd({"export", "--out", "/dev/stdout"}, fixture());  // written, not replaced
  ASSERT_EQ(device.status, 0) << device.err;
  EXPECT_EQ(device.out, csv.out);
}

TEST_F(DbCommands, ExportRefusesToWriteOverTheDatabase) {
  const fs::path db = copy_fixture();
  const std::string before = file_bytes(db);
  fs::create_symlink(db, dir_ / "link.db");
  fs::create_directory(dir_ / "sub");
  const std::string via_link = (dir_ / "link.db").string(),
                    roundabout = (dir_ / "sub" / ".." / "copy.db").string();
  for (const auto& [out, default_db] : std::vector<std::pair<std::string, std::string>>{
           {db.string(), ""}, {via_link, ""}, {roundabout, ""}, {db.string(), db.string()}}) {
    std::vector<std::string> args = {"db", "export", "--out", out};
    if (default_db.empty()) args.insert(args.end(), {"--db", db.string()});
    CliRun r = cli(args, default_db);  // without --db: $GEMMTUNE_DB names the database
    EXPECT_NE(r.status, 0) << out;
    EXPECT_EQ(line_count(r.err), 1) << r.err;
    EXPECT_TRUE(contains(r.err, "is the database")) << r.err;
    EXPECT_TRUE(file_bytes(db) == before) << "export through " << out << " changed the database";
  }
  CliRun wal = db_cmd({"export", "--out", db.string() + "-wal"}, db);
  EXPECT_NE(wal.status, 0);
  EXPECT_FALSE(fs::exists(db.string() + "-wal"));
}

TEST_F(DbCommands, FailedExportLeavesTheOutputFileAlone) {
  const fs::path db = copy_fixture();
  Connection(db.string(), OpenMode::read_write).exec("DROP VIEW best_results");  // the query fails
  const std::string out = write("bests.csv", "an earlier export\n");
  CliRun r = db_cmd({"export", "--what", "bests", "--out", out}, db);
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(file_bytes(out), "an earlier export\n");
  for (const std::string& name : ::gemmtune::test::list_dir(dir_))  // no temporary file left behind
    EXPECT_TRUE(name == "bests.csv" || name.rfind("copy.db", 0) == 0) << name;
}

// --out never writes through a symbolic link (refused, the file it points to untouched), keeps an
// existing file's permissions, and fails with status 1 (not 2, a usage error) when the write
// itself fails.
TEST_F(DbCommands, ExportWritesNoFileThroughALinkAndKeepsPermissions) {
  const std::string elsewhere = write("elsewhere.csv", "not for the export\n");
  const fs::path link = dir_ / "out.csv";
  fs::create_symlink(elsewhere, link);
  CliRun through = db_cmd({"export", "--out", link.string()}, fixture());
  EXPECT_EQ(through.status, 2) << through.err;
  EXPECT_TRUE(contains(through.err, "is a symbolic link")) << through.err;
  EXPECT_EQ(file_bytes(elsewhere), "not for the export\n");
  EXPECT_TRUE(fs::is_symlink(link));

  const std::string kept = write("kept.csv", "an earlier export\n");
  fs::permissions(kept, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  CliRun r = db_cmd({"export", "--out", kept}, fixture());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(file_bytes(kept), "ptxas error"));
  EXPECT_EQ(fs::status(kept).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  for (const std::string& name : ::gemmtune::test::list_dir(dir_))  // no temporary file left behind
    EXPECT_TRUE(name == "elsewhere.csv" || name == "out.csv" || name == "kept.csv") << name;

  CliRun full = db_cmd({"export", "--out", "/dev/full"}, fixture());
  EXPECT_EQ(full.status, 1) << full.err;
  EXPECT_TRUE(contains(full.err, "writing '/dev/full' failed: No space left on device"))
      << full.err;
}

TEST_F(DbCommands, MergeTwiceAddsNothing) {
  const fs::path target = dir_ / "merged.db";
  CliRun first = cli({"db", "merge", fixture().string(), "--db", target.string()});
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_TRUE(contains(first.out, "15 results")) << first.out;
  CliRun second = cli({"db", "merge", fixture().string(), "--db", target.string()});
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_TRUE(contains(second.out, "nothing new")) << second.out;
  CliRun best = db_cmd({"best", "--gpu-model", "H200", "--shape", "4096x4096x4096"}, target);
  EXPECT_TRUE(contains(best.out, "1.20x")) << best.out;

  CliRun self = cli({"db", "merge", target.string(), "--db", target.string()});
  EXPECT_NE(self.status, 0);
  EXPECT_EQ(line_count(self.err), 1) << self.err;
}

TEST_F(DbCommands, PruneRemovesOldSweeps) {
  const fs::path db = copy_fixture();
  CliRun none = cli({"db", "prune", "--db", db.string()});
  EXPECT_NE(none.status, 0);
  EXPECT_TRUE(contains(none.err, "--older-than")) << none.err;

  CliRun r = cli({"db", "prune", "--older-than", "30", "--db", db.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "1 sweeps, 1 results, 1 baselines")) << r.out;
  CliRun devices = db_cmd({"devices", "--format", "json"}, db);
  EXPECT_TRUE(contains(line_with(devices.out, "H200"), "\"sweeps\":1")) << devices.out;
  CliRun again = cli({"db", "prune", "--older-than", "30", "--db", db.string()});
  EXPECT_TRUE(contains(again.out, "nothing to prune")) << again.out;
}

TEST_F(DbCommands, PruneStaleTemplatesKeepsCurrentOnes) {
  const fs::path db = copy_fixture();
  CliRun r = cli({"db", "prune", "--stale-templates", "--db", db.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "1 sweeps")) << r.out;  // only the sweep with the stale hash
  CliRun best = db_cmd({"best", "--gpu-model", "H200", "--shape", "4096x4096x4096"}, db);
  EXPECT_TRUE(contains(best.out, "1.20x")) << best.out;
}

TEST_F(DbCommands, PruneKeepsUnfinishedSweepsUnlessAskedAndADayOld) {
  const fs::path db = copy_fixture();
  Id running = 0, crashed = 0, gpu = 0;
  {
    Database d(db.string(), OpenMode::read_write, kernel_families());
    gpu = d.upsert_gpu_model(h200());
    SweepInfo info;
    info.gpu_model_id = gpu;
    info.template_hash = "0123456789abcdef";  // stale
    running = d.begin_sweep(info);            // started now, never finished (yet)
    crashed = d.begin_sweep(info);
  }
  Connection(db.string(), OpenMode::read_write)
      .exec("UPDATE sweeps SET started_at = '2020-01-02T00:00:00.000Z' WHERE id = " +
            std::to_string(crashed));
  const auto exists = [&](Id sweep) {
    Connection conn(db.string(), OpenMode::read_only);
    Statement st(conn, "SELECT count(*) FROM sweeps WHERE id = ?1");
    st.bind_int(1, sweep);
    return st.step() && st.get_int(0) == 1;
  };

  CliRun r = db_cmd({"prune", "--older-than", "30", "--stale-templates"}, db);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "pruned " + db.string() + ": 1 sweeps"))
      << r.out;  // the finished old one
  EXPECT_TRUE(
      contains(r.out, "kept 2 unfinished sweeps: they may still be running; --include-unfinished"))
      << r.out;
  EXPECT_TRUE(exists(running));
  EXPECT_TRUE(exists(crashed));

  r = db_cmd({"prune", "--older-than", "30", "--stale-templates", "--include-unfinished"}, db);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, ": 1 sweeps")) << r.out;
  EXPECT_TRUE(contains(r.out, "kept 1 unfinished sweeps")) << r.out;
  EXPECT_FALSE(exists(crashed));
  ASSERT_TRUE(exists(running));
  Database d(db.string(), OpenMode::read_write,
             kernel_families());  // the running sweep goes on writing
  const Id problem = d.upsert_problem(make_problem(64, 64, 64)),
           config = d.upsert_config(cfg_best());
  EXPECT_NO_THROW(d.record_results(
      running, std::vector<Result>{ok(problem, config, 0.01, 2.0 * 64 * 64 * 64)}));
  EXPECT_NO_THROW(d.finish_sweep(running));
}

TEST_F(DbCommands, PruneRefusesBadDaysAndAMissingFile) {
  const fs::path db = copy_fixture();
  for (const char* days : {"nan", "inf", "-1", "1e400", "30x", ""}) {
    CliRun r = db_cmd({"prune", "--older-than", days}, db);
    EXPECT_NE(r.status, 0) << days;
    EXPECT_TRUE(contains(r.err, "--older-than")) << days << ": " << r.err;
    EXPECT_LT(r.err.size(), 200u) << days << ": " << r.err;
  }
  EXPECT_EQ(db_cmd({"prune", "--older-than", "0.5"}, db).status, 0);

  const fs::path typo = dir_ / "typo.db";
  CliRun r = db_cmd({"prune", "--older-than", "30"}, typo);
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_TRUE(contains(r.err, "no tuning database at '" + typo.string() + "'")) << r.err;
  EXPECT_FALSE(fs::exists(typo));
}

TEST_F(DbCommands, CheckPassesAGoodDatabaseAndReportsACorruptBinary) {
  CliRun good = db_cmd({"check"}, fixture());
  EXPECT_EQ(good.status, 0) << good.out << good.err;
  EXPECT_TRUE(contains(good.out, "schema version")) << good.out;
  EXPECT_TRUE(contains(good.out, "ok")) << good.out;

  const fs::path db = copy_fixture();
  Connection(db.string(), OpenMode::read_write).exec("UPDATE binaries SET cubin = zeroblob(256)");
  CliRun bad = db_cmd({"check"}, db);
  EXPECT_EQ(bad.status, 1) << bad.out << bad.err;
  EXPECT_TRUE(contains(bad.out, "fixture-binary")) << bad.out;
}

// A cached binary planted as a hostile writer would (another config's kernel under this one's
// key, its SHA-256 recomputed) hashes right, but is not the config's kernel: `db check` says so.
TEST_F(DbCommands, CheckReportsABinaryThatIsNotItsConfigsKernel) {
  const fs::path db = copy_fixture();
  {
    Database d(db.string(), OpenMode::read_write, kernel_families());
    Binary b = d.get_binary("fixture-binary").binary.value();
    b.lowered_name = fixture_entry_name(cfg_second());
    const std::vector<char> cubin = ::gemmtune::test::fake_cubin(b.lowered_name);
    b.cubin.assign(reinterpret_cast<const std::byte*>(cubin.data()),
                   reinterpret_cast<const std::byte*>(cubin.data()) + cubin.size());
    d.put_binary(b);
  }
  CliRun r = db_cmd({"check"}, db);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "cached binary 'fixture-binary' (config " + cfg_best().name +
                                  ") is never loaded: "
                                  "its entry point"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "is not the config's kernel")) << r.out;
}

// Rows that break the schema's CHECK constraints (written with them switched off) are damage that
// other commands refuse; SQLite leaves those constraints out of a read-only integrity check, and
// `db check` reads the file read-only: it checks them on a copy.
TEST_F(DbCommands, CheckReportsRowsThatBreakTheSchemasConstraints) {
  for (const auto& [table, change] : std::vector<std::pair<std::string, std::string>>{
           {"results",
            "UPDATE results SET status = 'unheard_of' WHERE id = (SELECT min(id) FROM results)"},
           {"problems", "UPDATE problems SET m = -1 WHERE id = (SELECT min(id) FROM problems)"}}) {
    const fs::path db = copy_fixture();
    {
      Connection c(db.string(), OpenMode::read_write);
      c.exec("PRAGMA ignore_check_constraints = 1");
      c.exec(change);
    }
    const std::string before = file_bytes(db);
    CliRun r = db_cmd({"check"}, db);
    EXPECT_EQ(r.status, 1) << table << ": " << r.out << r.err;
    EXPECT_TRUE(contains(r.out, "constraint: CHECK constraint failed in " + table)) << r.out;
    EXPECT_TRUE(file_bytes(db) == before) << "db check changed the file";
  }
}

// `db replay` models only what it can: a GPU row with 0 or -1 SMs or a clock of 0 is skipped with
// a line that says why, and a recorded config that is not valid on the GPU (tiles of 999999999,
// which parse) is not replayed; never a crash.
TEST_F(DbCommands, ReplaySkipsWhatItCannotModel) {
  for (const char* change :
       {"UPDATE gpu_models SET sm_count = 0", "UPDATE gpu_models SET sm_count = -1",
        "UPDATE gpu_models SET clock_khz = 0"}) {
    const fs::path db = copy_fixture();
    Connection(db.string(), OpenMode::read_write).exec(change);
    CliRun r = db_cmd({"replay"}, db);
    EXPECT_EQ(r.status, 2) << change << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "gemmtune: skipping: GPU model 'NVIDIA H200' records ")) << r.err;
    EXPECT_TRUE(contains(r.err, "can be replayed")) << r.err;
  }
  const fs::path db = copy_fixture();
  Connection(db.string(), OpenMode::read_write)
      .exec(
          "UPDATE configs SET name = 'sgemm_nn_999999999x999999999x8_w64x32_t8x8_s2_v4_p4_k1_r8', "
          "bm = 999999999, bn = 999999999 WHERE name = '" +
          cfg_best().name + "'");
  CliRun r = db_cmd({"replay"}, db);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(contains(r.out, "999999999")) << r.out;
}

// `db fallback` leaves each tuned problem out and times the dispatcher's pick from the recording:
// on the H200 of the fixture the two nn problems lend each other their fastest config (nearest),
// and the one nt problem, with no neighbour, gets the large-tile class config (builtin), which
// is the config the fixture recorded there.
TEST_F(DbCommands, FallbackTimesEachLeftOutProblemsPickFromTheRecording) {
  CliRun r = db_cmd({"fallback", "--gpu-model", "H200"}, fixture());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "each problem left out")) << r.out;
  const std::string cfg = cfg_best().name;
  // 4096^3 borrows 1024x1024x2048's cfg_best, its own best (1.000, 1.200x cuBLAS's 3.6 ms);
  // 1024x1024x2048 borrows 4096^3's, which ran 0.25 ms there against 0.2: 0.800, 0.840x.
  EXPECT_TRUE(contains(line_with(r.out, "4096x4096x4096 nn"), "nearest " + cfg)) << r.out;
  EXPECT_TRUE(contains(line_with(r.out, "4096x4096x4096 nn"), "1.000")) << r.out;
  EXPECT_TRUE(contains(line_with(r.out, "1024x1024x2048 nn"), "0.800")) << r.out;
  EXPECT_TRUE(contains(line_with(r.out, "1024x1024x2048 nn"), "0.840")) << r.out;
  EXPECT_TRUE(contains(line_with(r.out, "2048x2048x2048 nt"), "builtin")) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "nearest           2 problems,    2 picks recorded: 0.894 of the "
                       "recorded best, 1.004x cuBLAS, 0 below 0.80x"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "builtin           1 problems,    1 picks recorded")) << r.out;
  CliRun one = db_cmd({"fallback", "--gpu-model", "H200", "--shape", "2048x2048x2048"}, fixture());
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_FALSE(contains(one.out, "4096x4096x4096")) << one.out;
  CliRun none = db_cmd({"fallback", "--shape", "7x7x7"}, fixture());
  EXPECT_NE(none.status, 0);
  EXPECT_TRUE(contains(none.err, "no tuned problem matches")) << none.err;
}

TEST_F(DbCommands, MigrateIsWhatTheHintOfAnOlderDatabaseSays) {
  const fs::path old = dir_ / "old.db";
  {
    Connection raw(old.string(), OpenMode::read_write);
    migrate(raw, 1);
  }
  CliRun refused = db_cmd({"best"}, old);
  EXPECT_NE(refused.status, 0);
  EXPECT_TRUE(contains(refused.err, "`gemmtune db migrate --db '" + old.string() + "'`"))
      << refused.err;
  CliRun r = db_cmd({"migrate"}, old);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "migrated " + old.string() + " from schema version 1 to " +
                                  std::to_string(kSchemaVersion)))
      << r.out;
  EXPECT_EQ(db_cmd({"check"}, old).status, 0);
  CliRun again = db_cmd({"migrate"}, old);
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_TRUE(contains(again.out, "up to date")) << again.out;

  const fs::path no_knob = copy_fixture();  // made before the occupancy knob had a column
  Connection(no_knob.string(), OpenMode::read_write)
      .exec("ALTER TABLE configs DROP COLUMN occupancy");
  CliRun before = db_cmd({"best"}, no_knob);  // read-only: the knob reads as its default
  EXPECT_EQ(before.status, 0) << before.err;
  r = db_cmd({"migrate"}, no_knob);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "added the column of kernel knob occupancy")) << r.out;
  CliRun after = db_cmd({"best"}, no_knob);
  EXPECT_EQ(after.status, 0) << after.err;
  EXPECT_EQ(after.out, before.out);

  CliRun missing = db_cmd({"migrate"}, dir_ / "typo.db");
  EXPECT_NE(missing.status, 0);
  EXPECT_TRUE(contains(missing.err, "typo.db")) << missing.err;
  EXPECT_FALSE(fs::exists(dir_ / "typo.db"));
}

// A merge that fails after it created its target (here the source lacks a table) leaves no file.
TEST_F(DbCommands, FailedMergeLeavesNoNewTargetBehind) {
  const fs::path damaged = copy_fixture();
  Connection(damaged.string(), OpenMode::read_write).exec("DROP TABLE baselines");
  const fs::path target = dir_ / "new.db";
  CliRun r = db_cmd({"merge", damaged.string()}, target);
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.err, "baselines")) << r.err;
  for (const char* suffix : {"", "-wal", "-shm"})
    EXPECT_FALSE(fs::exists(target.string() + suffix)) << suffix;
}

// Many files at once (the shards of a cluster sweep): one that cannot be merged is named, the
// others come in, and the same merge run again adds nothing new.
TEST_F(DbCommands, MergeOfManyFilesGoesOnPastOneThatFails) {
  const fs::path damaged = copy_fixture();
  Connection(damaged.string(), OpenMode::read_write).exec("DROP TABLE baselines");
  const fs::path empty = dir_ / "empty.db";
  { Database d(empty.string(), OpenMode::read_write, kernel_families()); }
  const fs::path target = dir_ / "merged.db";
  const std::vector<std::string> merge = {
      "db", "merge", fixture().string(), damaged.string(), empty.string(), "--db", target.string()};
  CliRun first = cli(merge);
  EXPECT_EQ(first.status, 1) << first.err;
  EXPECT_TRUE(contains(first.err, "1 of 3 files not merged (" + damaged.string() + ")"))
      << first.err;
  EXPECT_TRUE(contains(line_with(first.out, "merged " + fixture().string()), "15 results"))
      << first.out;
  EXPECT_TRUE(contains(first.out, "nothing new in " + empty.string())) << first.out;
  EXPECT_TRUE(contains(first.out, "2 of 3 files merged into " + target.string())) << first.out;
  CliRun best = db_cmd({"best", "--gpu-model", "H200", "--shape", "4096x4096x4096"}, target);
  EXPECT_TRUE(contains(best.out, "1.20x")) << best.out;

  CliRun again = cli(merge);
  EXPECT_EQ(again.status, 1) << again.err;
  EXPECT_TRUE(contains(again.out, "nothing new in " + fixture().string())) << again.out;
  CliRun good = cli({"db", "merge", fixture().string(), empty.string(), "--db", target.string()});
  EXPECT_EQ(good.status, 0) << good.err;
  EXPECT_TRUE(contains(good.out, "2 of 2 files merged")) << good.out;
  EXPECT_TRUE(contains(good.out, "0 results")) << good.out;

  // Every file must be a tuning database before anything is merged.
  const fs::path text = dir_ / "notes.txt";
  std::ofstream(text) << "not a database\n";
  const fs::path untouched = dir_ / "untouched.db";
  CliRun refused =
      cli({"db", "merge", fixture().string(), text.string(), "--db", untouched.string()});
  EXPECT_NE(refused.status, 0);
  EXPECT_FALSE(fs::exists(untouched)) << "refused before the target was made";
}

TEST_F(DbCommands, EmptyDatabaseSaysNoResultsYet) {
  const fs::path empty = dir_ / "empty.db";
  { Database d(empty.string(), OpenMode::read_write, kernel_families()); }
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"best"}, {"devices"}, {"results", "--shape", "64x64x64"}, {"compare", "A", "B"}}) {
    CliRun r = db_cmd(args, empty);
    EXPECT_EQ(r.status, 0) << args[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.out, "no results yet: run gemmtune sweep")) << args[0] << ": " << r.out;
  }
  CliRun json = db_cmd({"best", "--format", "json"}, empty);
  EXPECT_EQ(json.out, "[]\n");
  // No database file at all: bad input (2) wherever its path came from, and a hint.
  CliRun fresh = cli({"db", "best"}, (dir_ / "nothing-here.db").string());
  EXPECT_EQ(fresh.status, 2) << fresh.err;
  EXPECT_TRUE(contains(fresh.err, "run gemmtune sweep")) << fresh.err;
  EXPECT_FALSE(fs::exists(dir_ / "nothing-here.db"));  // read commands create nothing
}

TEST_F(DbCommands, UnknownDeviceOrShapeIsOneClearLine) {
  CliRun dev = db_cmd({"best", "--gpu-model", "RTX 9090"}, fixture());
  EXPECT_NE(dev.status, 0);
  EXPECT_EQ(line_count(dev.err), 1) << dev.err;
  EXPECT_TRUE(contains(dev.err, "unknown GPU model 'RTX 9090'")) << dev.err;
  EXPECT_TRUE(contains(dev.err, "NVIDIA H200")) << dev.err;  // says what there is

  CliRun ambiguous = db_cmd({"best", "--gpu-model", "NVIDIA"}, fixture());
  EXPECT_NE(ambiguous.status, 0);
  EXPECT_TRUE(contains(ambiguous.err, "matches several")) << ambiguous.err;

  CliRun shape = db_cmd({"results", "--shape", "4096x4096x1"}, fixture());
  EXPECT_NE(shape.status, 0);
  EXPECT_EQ(line_count(shape.err), 1) << shape.err;
  EXPECT_TRUE(contains(shape.err, "no results for shape 4096x4096x1")) << shape.err;
  EXPECT_TRUE(contains(shape.err, "4096x4096x4096")) << shape.err;

  CliRun best_shape = db_cmd({"best", "--shape", "7x7x7"}, fixture());
  EXPECT_NE(best_shape.status, 0);
  EXPECT_EQ(line_count(best_shape.err), 1) << best_shape.err;

  CliRun malformed = db_cmd({"results", "--shape", "4096x4096"}, fixture());
  EXPECT_NE(malformed.status, 0);
  EXPECT_TRUE(contains(malformed.err, "not a shape")) << malformed.err;
}

TEST_F(DbCommands, NotADatabaseIsOneClearLine) {
  const fs::path text = dir_ / "notes.txt";
  std::ofstream(text) << "this is not a database\n";
  const fs::path other = dir_ / "other.sqlite";
  {
    Connection c(other.string(), OpenMode::read_write);
    c.exec("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)");
  }
  const fs::path missing = dir_ / "missing.db";
  for (const fs::path& f : {text, other, missing}) {
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"best"}, {"devices"}, {"check"}, {"export"}}) {
      CliRun r = db_cmd(args, f);
      EXPECT_NE(r.status, 0) << f << " " << args[0];
      EXPECT_EQ(line_count(r.err), 1) << f << " " << args[0] << ": " << r.err;
      EXPECT_TRUE(contains(r.err, f.string())) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
  EXPECT_TRUE(contains(db_cmd({"best"}, text).err, "not an SQLite database"));
  CliRun merge = cli({"db", "merge", text.string(), "--db", (dir_ / "target.db").string()});
  EXPECT_NE(merge.status, 0);
  EXPECT_EQ(line_count(merge.err), 1) << merge.err;
  EXPECT_FALSE(fs::exists(dir_ / "target.db"));
}

TEST_F(DbCommands, EveryCommandHasHelp) {
  for (const char* sub :
       {"devices", "best", "results", "compare", "export", "merge", "prune", "check", "migrate"}) {
    CliRun r = cli({"db", sub, "--help"});
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_TRUE(contains(r.out, "Usage:")) << sub << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "--db")) << sub;
  }
}

}  // namespace
}  // namespace gemmtune::tools_test
