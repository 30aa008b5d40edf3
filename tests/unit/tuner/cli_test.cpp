// The sweep command as a user meets it without a GPU: one plain line and exit status 3; a dry
// run plans without a GPU; bad problems are named.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/cli.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

namespace {

using gemmtune::test::CliRun;

// Runs `gemmtune sweep <args>`, stdout and stderr together as `out`, GEMMTUNE_DB unset.
CliRun sweep(std::vector<std::string> args) {
  args.insert(args.begin(), "sweep");
  return gemmtune::test::run_cli(args, {.unset_env = {"GEMMTUNE_DB"}, .merge_stderr = true});
}

bool have_gpu() { return gemmtune::test::gpu_unavailable_reason().empty(); }

class SweepCli : public gemmtune::test::ScratchDirTest {};

}  // namespace

TEST_F(SweepCli, NoGpuIsOnePlainLineAndExitThree) {
  if (have_gpu()) GTEST_SKIP() << "this machine has a GPU";
  CliRun r = sweep({"--shape", "64x64x64", "--db", path("t.db")});
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_EQ(r.out.rfind("gemmtune sweep: no CUDA device / driver found: ", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_FALSE(std::filesystem::exists(path("t.db"))) << "no database is created without a GPU";
}

TEST_F(SweepCli, ExplainWithoutArchNeedsAGpu) {
  if (have_gpu()) GTEST_SKIP() << "this machine has a GPU";
  CliRun r = gemmtune::test::run_cli({"explain", "--shape", "64x64x64"}, {});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("--arch"), std::string::npos) << r.err;
}

// Config names after a --shape are names, not more shapes: with no GPU the run gets as far as
// looking for one.
TEST_F(SweepCli, TryTakesNamesAfterAShape) {
  if (have_gpu()) GTEST_SKIP() << "this machine has a GPU";
  CliRun r = gemmtune::test::run_cli({"try", "--shape", "64x64x64", "--shape", "7x9x13",
                                      "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8", "default"},
                                     {});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("no CUDA device"), std::string::npos) << r.out << r.err;
}

// --out files are checked before any GPU work, and written only once the results are in: a run
// that fails leaves the file that was there as it was.
TEST_F(SweepCli, JsonFilesAreCheckedFirstAndKeptWhenTheRunFails) {
  const std::string name = "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8";
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"try", name, "--shape", "64x64x64", "--out"},
        std::vector<std::string>{"bench", "--shape", "64x64x64", "--db", path("none.db"),
                                 "--out"}}) {
    std::vector<std::string> missing_dir = args;
    missing_dir.push_back(path("no/such/dir/out.json"));
    CliRun r = gemmtune::test::run_cli(missing_dir, {});
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
    std::vector<std::string> a_directory = args;
    a_directory.push_back(dir_.string());
    r = gemmtune::test::run_cli(a_directory, {});
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  }
  if (have_gpu()) return;  // the rest needs a run that fails: no GPU
  // A device is written directly: it passes the check, and the run then fails for want of a GPU.
  EXPECT_EQ(gemmtune::test::run_cli({"try", name, "--shape", "64x64x64", "--out", "/dev/null"}, {})
                .status,
            3);
  const std::string kept = write("kept.json", "{\"earlier\": true}\n");
  CliRun r = gemmtune::test::run_cli({"try", name, "--shape", "64x64x64", "--out", kept}, {});
  EXPECT_EQ(r.status, 3) << r.err;
  std::ifstream in(kept);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\"earlier\": true}\n");
}

TEST_F(SweepCli, DryRunNeedsNoGpu) {
  CliRun r =
      sweep({"--dry-run", "--preset", "quick", "--shape", "64x64x65536", "--db", path("t.db")});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("5 problems"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("127x257x1023 nn"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("64x64x65536 nn"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("space reduced"), std::string::npos) << r.out;  // the default space
  r = sweep({"--dry-run", "--db", path("t.db")});
  EXPECT_NE(r.out.find("4 problems"), std::string::npos) << r.out;  // quick by default
  EXPECT_NE(r.out.find("space reduced"), std::string::npos) << r.out;
}

TEST_F(SweepCli, BadInputsAreNamed) {
  CliRun r = sweep({"--dry-run", "--shape", "12x3"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("'12x3'"), std::string::npos) << r.out;
  std::string f = write("p.csv", "m,n,k\n1,2,-3\n");
  r = sweep({"--dry-run", "--file", f});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find(f + ":2:"), std::string::npos) << r.out;
  r = sweep({"--dry-run", "--strategy", "greedy"});
  EXPECT_NE(r.out.find("'greedy'"), std::string::npos) << r.out;
  r = sweep({"--dry-run", "--strategy", "halving", "--max-configs", "5"});
  EXPECT_NE(r.out.find("--max-configs applies to --strategy random"), std::string::npos) << r.out;
}

TEST_F(SweepCli, CompileJobsOutOfRangeAreRefused) {
  for (const char* threads : {"100000", "-1", "257"}) {
    for (const char* spelling : {"--jobs", "--compile-threads"}) {  // the new spelling and the old
      CliRun r = sweep({"--dry-run", spelling, threads, "--db", path("t.db")});
      EXPECT_NE(r.status, 0) << threads << ": " << r.out;
      EXPECT_NE(r.out.find(spelling), std::string::npos) << r.out;
    }
  }
  CliRun r = sweep({"--dry-run", "-j", "0", "--db", path("t.db")});  // one per core
  EXPECT_EQ(r.status, 0) << r.out;
}

// Numbers a sweep or a replay cannot use are refused before anything runs, in one line: a budget
// of nan ("no limit" before), inf or below 0; a hang timeout of 0 (running kernels recorded as
// timeouts that later sweeps skip), below 0 or nan; a GPU listed twice; a config name that is
// none (compile refused it, a dry run did not).
TEST_F(SweepCli, NumbersAndNamesItCannotUseAreRefused) {
  const std::string db = path("t.db");
  const std::vector<std::vector<std::string>> refused = {
      {"--budget", "nan"},     {"--budget", "-1"},       {"--budget", "inf"},
      {"--hang-timeout", "0"}, {"--hang-timeout", "-1"}, {"--hang-timeout", "nan"},
      {"--gpus", "0,0"},       {"--gpus", "1,0,1"},      {"--config", "sgemm_nn_bogus"}};
  for (const auto& option : refused) {
    std::vector<std::string> args = {"--dry-run", "--db", db};
    args.insert(args.end(), option.begin(), option.end());
    CliRun r = sweep(args);
    EXPECT_EQ(r.status, 2) << option[0] << " " << option[1] << ": " << r.out;
    EXPECT_NE(r.out.find(option[0]), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("dry run"), std::string::npos) << r.out;
  }
  for (const char* budget : {"nan", "-1"}) {
    CliRun r = gemmtune::test::run_cli({"db", "replay", "--db", db, "--budget", budget},
                                       {.merge_stderr = true});
    EXPECT_EQ(r.status, 2) << budget << ": " << r.out;
    EXPECT_NE(r.out.find("--budget"), std::string::npos) << r.out;
  }
  CliRun r =
      sweep({"--dry-run", "--db", db, "--budget", "0", "--hang-timeout", "0.5", "--gpus", "0,1"});
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST_F(SweepCli, AProblemFileWithoutProblemsIsRefused) {
  const std::string f = write("empty.csv", "# shapes to come\n");
  CliRun r = sweep({"--dry-run", "--file", f, "--db", path("t.db")});
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(f), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("dry run"), std::string::npos)
      << "swept the quick preset instead: " << r.out;
}

// --family names the kernel family a sweep tunes: sgemm, the default, or another registered one.
// An unknown name is refused before anything runs, a GPU looked for or a database made, with the
// registered families listed (this CLI has sgemm alone; a family of the tests' own is swept in
// tests/unit/family/sweep_family_test.cpp and tests/gpu/family).
TEST_F(SweepCli, AnUnknownFamilyIsRefusedWithTheRegisteredOnes) {
  const std::string db = path("t.db");
  for (const bool dry_run : {true, false}) {
    std::vector<std::string> args = {"--family", "nosuch", "--shape", "64x64x64", "--db", db};
    if (dry_run) args.push_back("--dry-run");
    CliRun r = sweep(args);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("no kernel family 'nosuch': the registered families are sgemm"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("dry run"), std::string::npos) << r.out;
    EXPECT_FALSE(std::filesystem::exists(db)) << r.out;
  }
  CliRun r = sweep({"--dry-run", "--family", "sgemm", "--shape", "64x64x64", "--db", db});
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("strategy model, space reduced"), std::string::npos) << r.out;
  r = gemmtune::test::run_cli({"sweep", "--help"}, {});
  EXPECT_NE(r.out.find("--family"), std::string::npos) << r.out;
}
