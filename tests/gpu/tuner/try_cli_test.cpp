// `gemmtune try --json` (the CLI in a child process) on an odd shape: a config that runs gives a
// row verified against the float64 reference, timed next to cuBLAS, with its registers; one that
// cannot run on the shape says why; the exit status is 0 when nothing is wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

namespace gemmtune::tuner::test {
namespace {

using TryCli = ::gemmtune::test::ScratchDirTest;

TEST_F(TryCli, JsonRowsSayWhatRanAndWhatCouldNot) {
  GEMMTUNE_REQUIRE_GPU();
  const std::string json = path("try.json");
  const std::string runs = "sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8";
  const std::string too_many_splits = "sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k512_r8";  // K 67: 5 slices
  const auto r = ::gemmtune::test::run_cli({"try", runs, too_many_splits, "--shape", "127x129x67", "--json", json});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("WRONG"), std::string::npos) << r.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j.at("results").size(), 2u) << j.dump(2);
  const auto& ran = j.at("results")[0];
  EXPECT_EQ(ran.at("status"), "ok") << ran;
  EXPECT_EQ(ran.at("m"), 127);
  EXPECT_EQ(ran.at("layout"), "nt");
  EXPECT_EQ(ran.at("config").get<std::string>().rfind(runs, 0), 0u) << ran;  // fitted: widths added
  EXPECT_LE(ran.at("rel_error").get<double>(), ran.at("tolerance").get<double>()) << ran;
  EXPECT_GT(ran.at("median_ms").get<double>(), 0);
  EXPECT_NEAR(ran.at("speedup").get<double>(),
              ran.at("cublas_ms").get<double>() / ran.at("median_ms").get<double>(), 1e-9);
  EXPECT_GT(ran.at("registers").get<int>(), 0);
  const auto& refused = j.at("results")[1];
  EXPECT_EQ(refused.at("status"), "cannot_run") << refused;
  EXPECT_FALSE(refused.at("reason").get<std::string>().empty());
}

}  // namespace
}  // namespace gemmtune::tuner::test
