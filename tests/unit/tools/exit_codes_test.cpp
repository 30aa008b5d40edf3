// The command line's exit statuses (0 ok, 1 error, 2 usage or bad input, 3 no GPU, 130
// interrupted), CLI11's own errors among them; read-only commands never create a database file;
// `db prune --dry-run` changes nothing.
// (No GPU, status 3: tests/unit/tuner/cli_test.cpp.)
#include "unit/tools/tools_fixture.hpp"

namespace gemmtune::tools_test {
namespace {

using ExitCodes = CliTest;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The first line of `text` that holds `part` ("" when none does).
std::string first_line_with(const std::string& text, const std::string& part) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.find(part) != std::string::npos) return l;
  return "";
}

// Every file under `dir`, recursively.
std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(ExitCodes, HelpAndVersionAreZero) {
  EXPECT_EQ(cli({"--help"}).status, 0);
  EXPECT_EQ(cli({"--version"}).status, 0);
  EXPECT_EQ(cli({"db", "best", "--help"}).status, 0);
}

TEST_F(ExitCodes, CommandLineErrorsAreTwo) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{},
        {"--bogus"},
        {"no-such-command"},
        {"db", "best", "--bogus"},
        {"db", "results"} /* a required argument missing */,
        {"explain", "--shape", "64x64x64", "--batch", "x"},
        {"explain", "--shape", "64xfoo", "--arch", "sm_90"} /* bad input: a shape */,
        {"explain", "--shape", "64x64x64", "--arch", "sm_90", "--alignment", "3"},
        {"db", "replay", "--first-round", "0"},
        // try checks its shapes and names before looking for a GPU
        {"try", "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8", "--shape", "64x64x64", "--shape",
         "64xfoo"},
        {"try", "--shape", "64x64x64", "sgemm_nn_no_such_config"},
        {"try", "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8", "--shape", "64x64x64", "--batch",
         "0"}}) {
    CliRun r = cli(args);
    std::string line;
    for (const auto& a : args) line += a + " ";
    EXPECT_EQ(r.status, 2) << line << "\n" << r.out << r.err;
  }
}

// `space --config` prints the names it was given once each is checked; a name that does not
// parse, or breaks the architecture's rules, is bad input that names it and says why.
TEST_F(ExitCodes, SpaceChecksTheConfigsItIsGiven) {
  const std::string good = "sgemm_nt_128x128x8_w64x64_t16x8_s3_v4_p4_k1_r8";
  CliRun ok =
      cli({"space", "--config", good, "--config", "sgemm_tn_64x64x16_w32x32_t4x8_s2_v4_p4_k1_r8"});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(ok.out, good + "\nsgemm_tn_64x64x16_w32x32_t4x8_s2_v4_p4_k1_r8\n");
  CliRun unparsed = cli({"space", "--config", "sgemm_nn_no_such_config"});
  EXPECT_EQ(unparsed.status, 2) << unparsed.err;
  EXPECT_TRUE(contains(unparsed.err, "'sgemm_nn_no_such_config' is no sgemm config name"))
      << unparsed.err;
  // A 16x16 warp tile of 1x1 thread tiles: 256 thread tiles for the 32 lanes of a warp.
  CliRun invalid = cli({"space", "--config", "sgemm_nn_256x256x8_w16x16_t1x1_s2_v4_p4_k1_r8"});
  EXPECT_EQ(invalid.status, 2) << invalid.err;
  EXPECT_TRUE(contains(invalid.err, "is not valid on sm_90: ")) << invalid.err;
  EXPECT_EQ(invalid.out, "");
}

TEST_F(ExitCodes, AMissingDatabaseFileIsBadInputAndIsNotCreated) {
  const fs::path missing = dir_ / "missing.db";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"devices"},
                                               {"best"},
                                               {"results", "--shape", "64x64x64"},
                                               {"export"},
                                               {"check"},
                                               {"replay"},
                                               {"prune", "--older-than", "1"},
                                               {"prune", "--older-than", "1", "--dry-run"},
                                               {"migrate"}}) {
    CliRun r = db_cmd(args, missing);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(missing.string()), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_FALSE(fs::exists(missing)) << args[0];
  }
  CliRun merge = cli({"db", "merge", missing.string(), "--db", (dir_ / "target.db").string()});
  EXPECT_EQ(merge.status, 2) << merge.err;
  EXPECT_FALSE(fs::exists(dir_ / "target.db"));
}

// One rule for a missing database (docs/cli.md, "A missing database"): the db commands exit 2
// whether the default path, $GEMMTUNE_DB or --db named it; explain runs untuned. None creates it.
TEST_F(ExitCodes, ReadOnlyCommandsCreateNothingAtTheDefaultPath) {
  // No GEMMTUNE_DB: the default path under XDG_CACHE_HOME, which does not exist yet.
  const fs::path cache = dir_ / "cache";
  ::gemmtune::test::RunOptions options;
  options.unset_env = {"GEMMTUNE_DB"};
  options.set_env = {{"XDG_CACHE_HOME", cache.string()}, {"HOME", (dir_ / "home").string()}};
  for (const std::vector<std::string>& args : {std::vector<std::string>{"db", "devices"},
                                               {"db", "best"},
                                               {"db", "results", "--shape", "64x64x64"},
                                               {"db", "export"},
                                               {"db", "replay"}}) {
    CliRun r = ::gemmtune::test::run_cli(args, options);
    EXPECT_EQ(r.status, 2) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "(the default): run gemmtune sweep")) << args[1] << ": " << r.err;
    CliRun named = cli(args, (dir_ / "named.db").string());  // $GEMMTUNE_DB: the same status
    EXPECT_EQ(named.status, 2) << args[1] << ": " << named.err;
    EXPECT_TRUE(contains(named.err, "(named by $GEMMTUNE_DB)")) << args[1] << ": " << named.err;
  }
  CliRun explain =
      ::gemmtune::test::run_cli({"explain", "--shape", "64x64x64", "--arch", "sm_90"}, options);
  EXPECT_EQ(explain.status, 0) << explain.err;
  EXPECT_FALSE(fs::exists(dir_ / "named.db"));
  EXPECT_EQ(files_under(cache), std::vector<std::string>{});
  EXPECT_EQ(files_under(dir_ / "home"), std::vector<std::string>{});
}

TEST_F(ExitCodes, AFailureIsOne) {
  const fs::path db = copy_fixture();
  Connection(db.string(), OpenMode::read_write).exec("UPDATE binaries SET cubin = zeroblob(256)");
  EXPECT_EQ(db_cmd({"check"}, db).status, 1);
  const fs::path garbage = write("garbage.db", std::string(4096, 'x'));  // returns its path
  EXPECT_EQ(db_cmd({"best"}, garbage).status,
            1);  // a file that is not a database: an error, not usage
}

TEST_F(ExitCodes, PruneDryRunSaysWhatWouldGoAndDeletesNothing) {
  const fs::path db = copy_fixture();
  const std::string before = file_bytes(db);
  CliRun dry = db_cmd({"prune", "--older-than", "30", "--dry-run"}, db);
  ASSERT_EQ(dry.status, 0) << dry.err;
  EXPECT_TRUE(
      contains(dry.out, "would prune " + db.string() + ": 1 sweeps, 1 results, 1 baselines"))
      << dry.out;
  EXPECT_TRUE(contains(dry.out, "  sweep ")) << dry.out;
  EXPECT_TRUE(contains(dry.out, "nothing was deleted (--dry-run)")) << dry.out;
  EXPECT_EQ(file_bytes(db), before);
  // The real prune drops what the dry run listed.
  CliRun r = db_cmd({"prune", "--older-than", "30"}, db);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "pruned " + db.string() + ": 1 sweeps, 1 results, 1 baselines"))
      << r.out;
  EXPECT_EQ(first_line_with(r.out, "  sweep "), first_line_with(dry.out, "  sweep "))
      << r.out << dry.out;
}

// Not an exit status, but the database side of deterministic mode: `db best` says which tuned
// bests are split-K (not deterministic).
TEST_F(ExitCodes, BestNamesTheSplitKWinners) {
  const fs::path db = copy_fixture();
  CliRun plain = db_cmd({"best", "--gpu-model", "H200"}, db);
  ASSERT_EQ(plain.status, 0) << plain.err;
  EXPECT_FALSE(contains(plain.out, "split-K")) << plain.out;
  EXPECT_TRUE(contains(db_cmd({"best", "--format", "json"}, db).out, "\"deterministic\":true"));
  {
    Database d(db.string(), OpenMode::read_write, kernel_families());
    SweepInfo info;
    info.gpu_model_id = d.upsert_gpu_model(h200());
    const Id sweep = d.begin_sweep(info);
    KernelConfig split = make_config("nn", 64, 64, 8, 32, 32, 4, 4, 2);
    split.knobs.at("split_k") = 8;
    split.name = "sgemm_nn_64x64x8_w32x32_t4x4_s2_v4_p4_k8_r8";
    const Id problem = d.upsert_problem(make_problem(64, 64, 65536)),
             config = d.upsert_config(split);
    d.record_results(sweep, std::vector<Result>{ok(problem, config, 0.05, 2.0 * 64 * 64 * 65536)});
    d.finish_sweep(sweep);
  }
  CliRun r = db_cmd({"best", "--gpu-model", "H200"}, db);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(config_names_whole(r.out)) << r.out;
  EXPECT_EQ(
      first_line_with(r.out, "split-K, not deterministic"),
      "split-K, not deterministic (a deterministic dispatcher runs another config): 64x64x65536 nn")
      << r.out;
  EXPECT_TRUE(contains(db_cmd({"best", "--format", "json"}, db).out, "\"deterministic\":false"));
}

// The spellings of 0.1 still work for one release, with a note on stderr, and give what the new
// ones give; an old and a new spelling of one option together are a usage error.
TEST_F(ExitCodes, OldSpellingsWorkWithANote) {
  const std::string db = fixture().string();
  struct Pair {
    std::vector<std::string> old_args, new_args;
    std::string note;
  };
  for (const Pair& p : std::vector<Pair>{
           {{"db", "best", "--device", "H200", "--db", db},
            {"db", "best", "--gpu-model", "H200", "--db", db},
            "--device"},
           {{"db", "best", "--json", "--db", db},
            {"db", "best", "--format", "json", "--db", db},
            "--json"},
           {{"db", "results", "4096x4096x4096", "--db", db},
            {"db", "results", "--shape", "4096x4096x4096", "--db", db},
            "a shape without --shape"},
           {{"explain", "64x64x64", "--arch", "sm_90", "--gpu-name", "NVIDIA H200", "--db", db},
            {"explain", "--shape", "64x64x64", "--arch", "sm_90", "--gpu-model", "NVIDIA H200",
             "--db", db},
            "--gpu-name"},
           {{"sweep", "--dry-run", "--devices", "0", "--compile-threads", "2", "--db", db},
            {"sweep", "--dry-run", "--gpus", "0", "-j", "2", "--db", db},
            "--compile-threads"}}) {
    const CliRun old_run = cli(p.old_args), new_run = cli(p.new_args);
    EXPECT_EQ(old_run.status, 0) << p.note << ": " << old_run.err;
    EXPECT_EQ(old_run.out, new_run.out) << p.note;
    EXPECT_TRUE(contains(old_run.err, p.note + " is deprecated")) << old_run.err;
    EXPECT_FALSE(contains(new_run.err, "deprecated")) << new_run.err;
  }
  EXPECT_EQ(cli({"db", "best", "--device", "H200", "--gpu-model", "H200", "--db", db}).status, 2);
  EXPECT_EQ(cli({"db", "best", "--json", "--format", "json", "--db", db}).status, 2);
  EXPECT_EQ(
      cli({"db", "results", "4096x4096x4096", "--shape", "4096x4096x4096", "--db", db}).status, 2);
}

}  // namespace
}  // namespace gemmtune::tools_test
