// `gemmtune report`: the pictures and the index page exist and are not empty.
#include "unit/tools/tools_fixture.hpp"

namespace gemmtune::tools_test {
namespace {

using Report = CliTest;

bool has_matplotlib() {
  return ::gemmtune::test::run_program({"python3", "-c", "import matplotlib"}).status == 0;
}

bool non_empty(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && fs::file_size(p, ec) > 0;
}

TEST_F(Report, WritesPicturesAndAnIndex) {
  if (!has_matplotlib())
    GTEST_SKIP() << "python3 with matplotlib is needed: pip install matplotlib";
  const fs::path out = dir_ / "report";
  CliRun r = cli({"report", "--out", out.string(), "--db", fixture().string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  for (const char* gpu : {"nvidia_h200", "nvidia_h100_80gb_hbm3"}) {
    for (const char* kind : {"bars", "heatmap", "roofline"}) {
      const fs::path png = out / (std::string(kind) + "_" + gpu + ".png");
      EXPECT_TRUE(non_empty(png)) << png;
      EXPECT_EQ(file_bytes(png).substr(1, 3), "PNG") << png;
    }
  }
  ASSERT_TRUE(non_empty(out / "index.html"));
  const std::string index = file_bytes(out / "index.html");
  EXPECT_NE(index.find("bars_nvidia_h200.png"), std::string::npos);
  EXPECT_NE(index.find("sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8"), std::string::npos);
}

TEST_F(Report, SvgForOneDeviceAndShape) {
  if (!has_matplotlib())
    GTEST_SKIP() << "python3 with matplotlib is needed: pip install matplotlib";
  const fs::path out = dir_ / "svg";
  CliRun r = cli({"report", "--out", out.string(), "--db", fixture().string(), "--device", "H200", "--shape",
                  "1024x1024x2048", "--format", "svg"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(non_empty(out / "heatmap_nvidia_h200.svg"));
  EXPECT_FALSE(fs::exists(out / "bars_nvidia_h100_80gb_hbm3.svg"));
  EXPECT_NE(file_bytes(out / "heatmap_nvidia_h200.svg").find("1024x1024x2048"), std::string::npos);
}

TEST_F(Report, ErrorsAreOneLine) {
  const fs::path text = dir_ / "notes.txt";
  std::ofstream(text) << "not a database\n";
  CliRun bad = cli({"report", "--out", (dir_ / "r").string(), "--db", text.string()});
  EXPECT_NE(bad.status, 0);
  EXPECT_EQ(line_count(bad.err), 1) << bad.err;
  CliRun dev = cli({"report", "--out", (dir_ / "r").string(), "--db", fixture().string(), "--device", "A100"});
  EXPECT_NE(dev.status, 0);
  EXPECT_EQ(line_count(dev.err), 1) << dev.err;
  EXPECT_NE(dev.err.find("unknown GPU model"), std::string::npos) << dev.err;
}

}  // namespace
}  // namespace gemmtune::tools_test
