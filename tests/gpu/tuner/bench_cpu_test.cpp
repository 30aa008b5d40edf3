// `gemmtune bench --cpu` (the CLI in a child process) on two sizes in every layout: each row has
// the CPU time and the GPU time with transfers, which cannot be below the kernel's alone; the
// file names the CPU and its OpenBLAS, and `gemmtune report` reads it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "support/cli.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

namespace gemmtune::tuner::test {
namespace {

using BenchCpu = ::gemmtune::test::ScratchDirTest;

TEST_F(BenchCpu, TimesTheCpuAndTheGpuWithTransfersInEveryLayout) {
  GEMMTUNE_REQUIRE_GPU();
  const std::string json = path("crossover.json");
  const auto r =
      ::gemmtune::test::run_cli({"bench", "--cpu", "--layout", "all", "--shape", "64x64x64",
                                 "--shape", "512x512x512", "--db", path("none.db"), "--out", json});
  if (r.status != 0 && r.err.find("built without OpenBLAS") != std::string::npos)
    GTEST_SKIP() << "this build has no OpenBLAS: " << r.err;
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_GE(j.at("cpu").at("threads").get<int>(), 1);
  EXPECT_NE(j.at("cpu").at("library").get<std::string>().find("OpenBLAS"), std::string::npos);
  EXPECT_GT(j.at("measured_fp32_tflops").get<double>(), 0);
  ASSERT_EQ(j.at("problems").size(), 8u);
  std::set<std::string> layouts;
  for (const auto& p : j.at("problems")) {
    layouts.insert(p.at("layout").get<std::string>());
    EXPECT_GT(p.at("cpu_ms").get<double>(), 0) << p;
    EXPECT_GT(p.at("gemmtune_ms").get<double>(), 0) << p;
    // The transfers come on top of a kernel (timed without the L2 flush, so allow a little).
    EXPECT_GT(p.at("gpu_transfer_ms").get<double>(), 0.9 * p.at("gemmtune_ms").get<double>()) << p;
    EXPECT_EQ(p.at("alignment").get<int>(), 4) << p;
  }
  EXPECT_EQ(layouts, (std::set<std::string>{"nn", "nt", "tn", "tt"}));
  EXPECT_NE(r.out.find("GPU+copies"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gemmtune::tuner::test
