// `gemmtune try --out` (the CLI in a child process) on an odd shape: a config that runs gives a
// row verified against the float64 reference, timed next to cuBLAS, with its registers; one that
// cannot run on the shape says why; the exit status is 0 when nothing is wrong. Its compiles go
// through a tuning database's binary cache where that file exists.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
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
  const std::string too_many_splits =
      "sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k512_r8";  // K 67: 5 slices
  const auto r = ::gemmtune::test::run_cli({"try", runs, too_many_splits, "--shape", "127x129x67",
                                            "--out", json, "--db", path("absent.db")});
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

// --batch: every matrix of the batch is computed and verified (C is poisoned before the run, so a
// matrix left out reads NaN and is WRONG), and the row says the batch.
TEST_F(TryCli, BatchedShapesAreVerifiedOverEveryMatrix) {
  GEMMTUNE_REQUIRE_GPU();
  const std::string json = path("try.json");
  const auto r = ::gemmtune::test::run_cli({"try", "sgemm_nt_32x32x8_w16x16_t2x4_s2_v4_p4_k1_r8",
                                            "--shape", "33x35x17", "--batch", "3", "--out", json,
                                            "--db", path("absent.db")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("33x35x17 b3 nt"), std::string::npos) << r.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j.at("results").size(), 1u) << j.dump(2);
  const auto& ran = j.at("results")[0];
  EXPECT_EQ(ran.at("status"), "ok") << ran;
  EXPECT_EQ(ran.at("batch"), 3);
  EXPECT_LE(ran.at("rel_error").get<double>(), ran.at("tolerance").get<double>()) << ran;
}

// A 3xTF32 config is verified as a sweep verifies it: on the random inputs and on wide-range ones,
// whose error its row adds.
TEST_F(TryCli, TensorCoreConfigsAreVerifiedOnWideRangeInputsToo) {
  GEMMTUNE_REQUIRE_GPU();
  const std::string json = path("try.json");
  const auto r = ::gemmtune::test::run_cli(
      {"try", "sgemm_nn_128x128x16_w64x32_t8x8_s3_v4_p4_k1_r8_m3", "--shape", "256x256x64", "--out",
       json, "--db", path("absent.db")});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_EQ(j.at("results").size(), 1u) << j.dump(2);
  const auto& ran = j.at("results")[0];
  EXPECT_EQ(ran.at("status"), "ok") << ran;
  EXPECT_LE(ran.at("rel_error").get<double>(), ran.at("tolerance").get<double>()) << ran;
  ASSERT_TRUE(ran.contains("wide_rel_error")) << ran;
  EXPECT_LE(ran.at("wide_rel_error").get<double>(), ran.at("tolerance").get<double>()) << ran;
}

// A database file that exists: the first run compiles both configs (once for two shapes whose
// data fit them alike) and stores them; the second loads them from there. Without the file
// nothing is created.
TEST_F(TryCli, CompilesOnceIntoTheBinaryCacheOfAnExistingDatabase) {
  GEMMTUNE_REQUIRE_GPU();
  const std::string db_path = path("tuning.db");
  db::Database(db_path, db::OpenMode::read_write, kernel_families());  // an empty tuning database
  const std::vector<std::string> args = {"try",
                                         "sgemm_nt_64x64x16_w32x32_t4x8_s3_v4_p4_k1_r8",
                                         "sgemm_nn_32x32x8_w16x16_t2x4_s2_v4_p4_k1_r8",
                                         "--layout",
                                         "nt",
                                         "--shape",
                                         "128x128x64",
                                         "--shape",
                                         "64x192x128",
                                         "--db",
                                         db_path};
  const auto first = ::gemmtune::test::run_cli(args);
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("2 compiled, 0 from the binary cache"), std::string::npos) << first.out;
  const auto second = ::gemmtune::test::run_cli(args);
  ASSERT_EQ(second.status, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("0 compiled, 2 from the binary cache"), std::string::npos)
      << second.out;
  EXPECT_EQ(second.out.find("WRONG"), std::string::npos) << second.out;

  const std::string absent = path("absent.db");
  std::vector<std::string> without = args;
  without.back() = absent;
  const auto third = ::gemmtune::test::run_cli(without);
  ASSERT_EQ(third.status, 0) << third.out << third.err;
  EXPECT_EQ(third.out.find("from the binary cache"), std::string::npos) << third.out;
  EXPECT_FALSE(std::filesystem::exists(absent));
}

}  // namespace
}  // namespace gemmtune::tuner::test
