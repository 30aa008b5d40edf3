// The sweep command as a user meets it without a GPU: one plain line and exit status 2; a dry
// run plans without a GPU; bad problems are named.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>

#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"
#include "tmp_dir.hpp"

namespace {

struct CliRun {
  int status = -1;
  std::string output;
};

// Runs the CLI with `args`, stdout and stderr together, environment GEMMTUNE_DB unset.
CliRun run_cli(const std::string& args) {
  std::string cmd = std::string("env -u GEMMTUNE_DB '") + GEMMTUNE_CLI_PATH + "' " + args + " 2>&1";
  CliRun r;
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return r;
  std::array<char, 4096> buf;
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), f)) r.output.append(buf.data(), n);
  int st = pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool have_gpu() {
  try {
    gemmtune::device_count();
    return true;
  } catch (const gemmtune::Error&) {
    return false;
  }
}

class SweepCli : public gemmtune::tuner::test::TmpDirTest {};

}  // namespace

TEST_F(SweepCli, NoGpuIsOnePlainLineAndExitTwo) {
  if (have_gpu()) GTEST_SKIP() << "this machine has a GPU";
  CliRun r = run_cli("sweep --shape 64x64x64 --db " + path("t.db"));
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(r.output.rfind("gemmtune sweep: no CUDA device / driver found: ", 0), 0u) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  EXPECT_FALSE(std::filesystem::exists(path("t.db"))) << "no database is created without a GPU";
}

TEST_F(SweepCli, DryRunNeedsNoGpu) {
  CliRun r = run_cli("sweep --dry-run --preset quick --shape 64x64x65536 --db " + path("t.db"));
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("5 problems"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("127x257x1023 nn"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("64x64x65536 nn"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("space reduced"), std::string::npos) << r.output;  // the default space
  r = run_cli("sweep --dry-run --db " + path("t.db"));
  EXPECT_NE(r.output.find("4 problems"), std::string::npos) << r.output;  // quick by default
  EXPECT_NE(r.output.find("space reduced"), std::string::npos) << r.output;
}

TEST_F(SweepCli, BadInputsAreNamed) {
  CliRun r = run_cli("sweep --dry-run --shape 12x3");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find("'12x3'"), std::string::npos) << r.output;
  std::string f = write("p.csv", "m,n,k\n1,2,-3\n");
  r = run_cli("sweep --dry-run --file " + f);
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.output.find(f + ":2:"), std::string::npos) << r.output;
  r = run_cli("sweep --dry-run --strategy greedy");
  EXPECT_NE(r.output.find("'greedy'"), std::string::npos) << r.output;
  r = run_cli("sweep --dry-run --strategy halving --max-configs 5");
  EXPECT_NE(r.output.find("--max-configs applies to --strategy random"), std::string::npos) << r.output;
}
