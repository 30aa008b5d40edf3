// `gemmtune report`: on a recorded exhaustive H200 sweep and a recorded bench file, the pictures
// exist and differ, index.html names the environment and the geometric mean the database holds,
// the axes' labels are distinct, every problem is numbered once on the roofline; the CPU/GPU
// crossover of a bench file is named; errors are one line.
#include <algorithm>
#include <cmath>
#include <regex>
#include <set>

#include "unit/tools/tools_fixture.hpp"

namespace gemmtune::tools_test {
namespace {

using Report = CliTest;

const fs::path kRecordedDb = fs::path(GEMMTUNE_TEST_UNPACKED_FIXTURES) / "h200-exhaustive.db";
const fs::path kRecordedBench = fs::path(GEMMTUNE_TEST_FIXTURES) / ".." / ".." / "docs" / "bench" /
                                "h200-2026-11-23-users-final.json";

// The report's own search: Debian's python3 first, then python3 on PATH.
bool has_matplotlib() {
  for (const char* python : {"/usr/bin/python3", "python3"})
    if (::gemmtune::test::run_program({python, "-c", "import matplotlib"}).status == 0) return true;
  return false;
}

#define SKIP_WITHOUT_MATPLOTLIB() \
  if (!has_matplotlib())          \
  GTEST_SKIP()                    \
      << "Python 3 with matplotlib is needed: apt-get install python3-matplotlib (tools/setup.sh)"

std::uintmax_t size_of(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) ? fs::file_size(p, ec) : 0;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The tick labels of one axis ('x' or 'y') of an SVG by matplotlib: it writes each tick as
// <g id="xtick_N"> holding its line and, when labelled, a <text> (svg.fonttype none). A tick
// without a label matches the next text; only numbers are kept, so axis titles drop out.
std::vector<std::string> tick_labels(const std::string& svg, char axis) {
  std::vector<std::string> out;
  const std::string tick = std::string("<g id=\"") + axis + "tick_";
  for (auto at = svg.find(tick); at != std::string::npos; at = svg.find(tick, at)) {
    const auto open = svg.find("<text", at), start = svg.find('>', open),
               end = svg.find("</text>", start);
    if (open == std::string::npos || start == std::string::npos || end == std::string::npos) break;
    const std::string label = svg.substr(start + 1, end - start - 1);
    if (!label.empty() && (std::isdigit(static_cast<unsigned char>(label[0])) || label[0] == '.'))
      out.push_back(label);
    at = end;
  }
  return out;
}

// The tick labels of an axis are all distinct and there are at least `min_count` of them.
void expect_distinct_ticks(const std::string& svg, char axis, std::size_t min_count,
                           const std::string& what) {
  const std::vector<std::string> ticks = tick_labels(svg, axis);
  const std::set<std::string> unique(ticks.begin(), ticks.end());
  EXPECT_GE(ticks.size(), min_count) << what << " " << axis;
  EXPECT_EQ(unique.size(), ticks.size()) << what << " " << axis << " axis repeats a tick label";
}

// The geometric mean of cuBLAS time / best time over the database's problems, as the report
// should print it.
std::string geomean_in(const fs::path& path) {
  Database db(path.string(), OpenMode::read_only, kernel_families());
  double log_sum = 0;
  int n = 0;
  for (const auto& b : db.bests()) {
    if (auto s = b.speedup_vs_cublas()) log_sum += std::log(*s), ++n;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fx", std::exp(log_sum / n));
  return buf;
}

TEST_F(Report, RecordedH200SweepPicturesAndIndex) {
  SKIP_WITHOUT_MATPLOTLIB();
  ASSERT_TRUE(fs::exists(kRecordedDb)) << "CMake unpacks tests/fixtures/h200-exhaustive.tar.xz";
  const fs::path out = dir_ / "h200";
  CliRun r = cli({"report", "--out", out.string(), "--db", kRecordedDb.string(), "--bench",
                  kRecordedBench.string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::set<std::string> contents;
  for (const char* name :
       {"speedup", "heatmap", "heatmap_*_large", "heatmap_*_small", "heatmap_*_batched",
        "heatmap_*_long_k", "heatmap_*_matrix_vector", "heatmap_*_dot_product", "roofline"}) {
    std::string file = std::string(name) + ".png";
    const auto star = file.find("_*");
    file = star == std::string::npos
               ? std::string(name) + "_nvidia_h200.png"
               : file.substr(0, star) + "_nvidia_h200" + file.substr(star + 2);
    const fs::path png = out / file;
    EXPECT_GT(size_of(png), 10000u) << png << ": missing or too small to hold a chart";
    const std::string bytes = file_bytes(png);
    EXPECT_EQ(bytes.substr(1, 3), "PNG") << png;
    EXPECT_TRUE(contents.insert(bytes).second) << png << " is a copy of another picture";
  }
  const std::string index = file_bytes(out / "index.html");
  EXPECT_NE(index.find("Geometric mean speedup over cuBLAS: " + geomean_in(kRecordedDb)),
            std::string::npos)
      << "expected " << geomean_in(kRecordedDb);
  for (const char* fact :
       {"NVIDIA H200, sm_90, 132 SMs", "<th>NVRTC</th><td>13.0</td>", "2026-11-23T05:39:29",
        "2026-11-23T06:06:17", "FMA 58.5 TFLOP/s, memory 4224 GB/s (measured",
        "for the dispatcher over the 19 problems", "a1/a2: the widest vector"})
    EXPECT_NE(index.find(fact), std::string::npos) << fact;
  // Adaptive units: 4.13 us and 4.83 us stay apart; tiny rates are not 0.0.
  EXPECT_NE(index.find("4.13 us"), std::string::npos);
  EXPECT_NE(index.find("MFLOP/s"), std::string::npos);
  EXPECT_EQ(index.find(">0.0%<"), std::string::npos);
  // Every problem links to its page of candidates, and the page links back.
  for (int n = 1; n <= 30; ++n) {
    const std::string page = "problem_nvidia_h200_" + std::to_string(n) + ".html";
    EXPECT_NE(index.find("href='" + page + "'"), std::string::npos) << page;
    EXPECT_NE(file_bytes(out / page).find("index.html#p" + std::to_string(n)), std::string::npos)
        << page;
  }
}

TEST_F(Report, RecordedH200SweepLabelsAreDistinct) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path out = dir_ / "svg";
  CliRun r = cli({"report", "--out", out.string(), "--db", kRecordedDb.string(), "--bench",
                  kRecordedBench.string(), "--format", "svg"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string roof = file_bytes(out / "roofline_nvidia_h200.svg");
  expect_distinct_ticks(roof, 'x', 4, "roofline");  // 0.1 .. 1000 FLOP/byte
  expect_distinct_ticks(roof, 'y', 6, "roofline");  // 0.0001 .. 100 TFLOP/s
  for (const char* tick : {">0.001<", ">0.01<", ">0.1<"})
    EXPECT_NE(roof.find(tick), std::string::npos) << tick;
  // Each problem's number labels the roofline once (the axes' "1", "10", "100" aside).
  std::vector<std::string> ticks = tick_labels(roof, 'x');
  const std::vector<std::string> y_ticks = tick_labels(roof, 'y');
  ticks.insert(ticks.end(), y_ticks.begin(), y_ticks.end());
  for (int n = 1; n <= 30; ++n) {
    const std::string label = std::to_string(n);
    const auto in_ticks = static_cast<std::size_t>(std::count(ticks.begin(), ticks.end(), label));
    EXPECT_EQ(count_of(roof, ">" + label + "</text>") - in_ticks, 1u) << "problem " << n;
  }
  const std::string speedup = file_bytes(out / "speedup_nvidia_h200.svg");
  expect_distinct_ticks(speedup, 'x', 4, "speedup");
  EXPECT_NE(speedup.find("geomean tuned best " + geomean_in(kRecordedDb)), std::string::npos);
}

// A bench file from `gemmtune bench --cpu` on a ladder of squares. The times follow a simple
// model whose crossover lies between two known rungs: the CPU at 1 TFLOP/s, the GPU kernel 10 us
// plus 50 TFLOP/s, the transfers of A, B and C at 25 GB/s plus 20 us.
std::string crossover_bench(double& gpu_wins_above, double& cpu_wins_at) {
  std::string problems;
  gpu_wins_above = cpu_wins_at = 0;
  for (int n : {64, 128, 256, 512, 1024, 2048, 4096}) {
    const double flop = 2.0 * n * n * double(n), bytes = 3.0 * 4.0 * n * double(n);
    const double cpu = flop / 1e12 * 1e3, kernel = 0.010 + flop / 50e12 * 1e3;
    const double total = kernel + 0.020 + bytes / 25e9 * 1e3;
    if (total >= cpu) cpu_wins_at = n;
    if (total < cpu && gpu_wins_above == 0) gpu_wins_above = n;
    char row[320];
    std::snprintf(row, sizeof row,
                  "%s{\"m\": %d, \"n\": %d, \"k\": %d, \"batch\": 1, \"layout\": \"nn\", "
                  "\"gemmtune_ms\": %.6f, "
                  "\"cublas_ms\": %.6f, \"cpu_ms\": %.6f, \"gpu_transfer_ms\": %.6f}",
                  problems.empty() ? "" : ", ", n, n, n, kernel, kernel, cpu, total);
    problems += row;
  }
  return "{\"gpu\": \"NVIDIA H200\", \"cpu\": {\"name\": \"Test CPU\", \"threads\": 16}, "
         "\"problems\": [" +
         problems + "]}";
}

TEST_F(Report, NamesTheSizeWhereTheGpuStartsToWin) {
  SKIP_WITHOUT_MATPLOTLIB();
  double gpu_from = 0, cpu_at = 0;
  const std::string bench = write("crossover.json", crossover_bench(gpu_from, cpu_at));
  ASSERT_GT(cpu_at, 0);
  ASSERT_GT(gpu_from, cpu_at);
  const fs::path out = dir_ / "crossover";
  CliRun r = cli({"report", "--out", out.string(), "--db", kRecordedDb.string(), "--bench", bench});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_GT(size_of(out / "crossover_nvidia_h200.png"), 10000u);
  const std::string index = file_bytes(out / "index.html");
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(index, found,
                      std::regex("nn</b>: the GPU with transfers wins from n &asymp; ([0-9]+)"));
    return found;
  }();
  ASSERT_FALSE(m.empty()) << index.substr(index.find("crossover"), 600);
  const double named = std::stod(m[1]);
  EXPECT_GT(named, cpu_at);
  EXPECT_LT(named, gpu_from);
  EXPECT_NE(index.find("Test CPU (16 threads)"), std::string::npos);
}

TEST_F(Report, WritesPicturesAndAnIndexPerGpu) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path out = dir_ / "report";
  CliRun r = cli({"report", "--out", out.string(), "--db", fixture().string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  for (const char* gpu : {"nvidia_h200", "nvidia_h100_80gb_hbm3"}) {
    for (const char* kind : {"speedup", "heatmap", "roofline"}) {
      const fs::path png = out / (std::string(kind) + "_" + gpu + ".png");
      EXPECT_GT(size_of(png), 0u) << png;
      EXPECT_EQ(file_bytes(png).substr(1, 3), "PNG") << png;
    }
  }
  const std::string index = file_bytes(out / "index.html");
  EXPECT_NE(index.find("speedup_nvidia_h200.png"), std::string::npos);
  EXPECT_NE(index.find("sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8"), std::string::npos);
  EXPECT_NE(index.find("(datasheet: not measured on this GPU model"), std::string::npos)
      << "nothing measured: the ceilings say where they are from";
  // The config's precision class and its errors (the fixture's: 2e-07 on random inputs, no
  // wide-range error), in the table of bests and on each problem's page.
  EXPECT_NE(index.find("<th>precision</th>"), std::string::npos);
  EXPECT_NE(index.find("<td>ieee</td>"), std::string::npos);
  EXPECT_NE(index.find("<td class=n>2e-07</td><td class=n>-</td></tr>"), std::string::npos)
      << index;
  const std::string page = file_bytes(out / "problem_nvidia_h200_1.html");
  EXPECT_NE(page.find("<th>error</th><th>wide-range</th>"), std::string::npos) << page;
  EXPECT_NE(page.find("<td class=n>2e-07</td><td class=n>-</td></tr>"), std::string::npos) << page;
}

// Ceilings measured by a sweep and stored for the GPU model: the report's roofline and `db best`'s
// % peak both read against them, and say so; the other GPU model keeps the datasheet's, with a
// note. A bench file does not override the database.
TEST_F(Report, ReadsTheCeilingsStoredForTheGpuModel) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path db = copy_fixture("measured.db");
  std::string measured_on;
  {
    Database d(db.string(), OpenMode::read_write, kernel_families());
    const auto gpu = d.find_gpu_model(h200());
    ASSERT_TRUE(gpu);
    ASSERT_TRUE(d.record_ceilings(*gpu, {58.5, 4224, "", "test"}));
    measured_on = d.ceilings(*gpu)->measured_at.substr(0, 10);
  }
  ASSERT_EQ(measured_on.size(), 10u);
  const fs::path out = dir_ / "measured";
  CliRun r = cli({"report", "--out", out.string(), "--db", db.string(), "--bench",
                  kRecordedBench.string(), "--format", "svg"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const std::string index = file_bytes(out / "index.html");
  EXPECT_NE(index.find("FMA 58.5 TFLOP/s, memory 4224 GB/s (measured by gemmtune sweep on " +
                       measured_on + ", stored in the database)"),
            std::string::npos)
      << index;
  const std::string roof = file_bytes(out / "roofline_nvidia_h200.svg");
  EXPECT_NE(roof.find("measured ceilings: 58.5 TFLOP/s FMA, 4224 GB/s"), std::string::npos);
  const std::string other = file_bytes(out / "roofline_nvidia_h100_80gb_hbm3.svg");
  EXPECT_NE(other.find("datasheet: not measured on this GPU model"), std::string::npos);
  EXPECT_NE(other.find("datasheet ceilings"), std::string::npos);

  CliRun best = cli({"db", "best", "--db", db.string()});
  ASSERT_EQ(best.status, 0) << best.err;
  EXPECT_NE(best.out.find("% peak: of the FMA ceiling 58.5 TFLOP/s, measured " + measured_on),
            std::string::npos)
      << best.out;
  EXPECT_NE(best.out.find("% peak: of the FMA ceiling 66.9 TFLOP/s, datasheet"), std::string::npos)
      << best.out;
}

TEST_F(Report, SvgForOneDeviceAndShape) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path out = dir_ / "svg";
  CliRun r = cli({"report", "--out", out.string(), "--db", fixture().string(), "--gpu-model",
                  "H200", "--shape", "1024x1024x2048", "--format", "svg"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_GT(size_of(out / "heatmap_nvidia_h200.svg"), 0u);
  EXPECT_FALSE(fs::exists(out / "speedup_nvidia_h100_80gb_hbm3.svg"));
  EXPECT_NE(file_bytes(out / "heatmap_nvidia_h200.svg").find("1024x1024x2048"), std::string::npos);
}

TEST_F(Report, ErrorsAreOneLine) {
  const fs::path text = dir_ / "notes.txt";
  std::ofstream(text) << "not a database\n";
  CliRun bad = cli({"report", "--out", (dir_ / "r").string(), "--db", text.string()});
  EXPECT_NE(bad.status, 0);
  EXPECT_EQ(line_count(bad.err), 1) << bad.err;
  CliRun dev = cli({"report", "--out", (dir_ / "r").string(), "--db", fixture().string(),
                    "--gpu-model", "A100"});
  EXPECT_NE(dev.status, 0);
  EXPECT_EQ(line_count(dev.err), 1) << dev.err;
  EXPECT_NE(dev.err.find("unknown GPU model"), std::string::npos) << dev.err;
  if (has_matplotlib()) {
    CliRun bench = cli({"report", "--out", (dir_ / "r").string(), "--db", fixture().string(),
                        "--bench", text.string()});
    EXPECT_NE(bench.status, 0);
    EXPECT_EQ(line_count(bench.err), 1) << bench.err;
    EXPECT_NE(bench.err.find("not a gemmtune bench JSON file"), std::string::npos) << bench.err;
  }
}

// The file named is the file read, whatever its name: a '%' in it is no URI escape (x%41y.db is
// not xAy.db, which holds another GPU here).
TEST_F(Report, ReadsTheFileNamedWithAPercentSign) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path named = copy_fixture("x%41y.db"), decoy = copy_fixture("xAy.db");
  Connection(decoy.string(), OpenMode::read_write)
      .exec("UPDATE gpu_models SET name = 'Decoy GPU ' || id");
  CliRun r = cli(
      {"report", "--out", (dir_ / "r").string(), "--db", named.string(), "--gpu-model", "H200"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string index = file_bytes(dir_ / "r" / "index.html");
  EXPECT_NE(index.find("NVIDIA H200"), std::string::npos);
  EXPECT_EQ(index.find("Decoy GPU"), std::string::npos) << "the report read xAy.db";
}

// What a database may record draws a report, never a traceback: a GPU name with '$' (matplotlib
// math otherwise), one of 300 characters (a file name too long otherwise), 0 SMs, a clock of 0.
TEST_F(Report, OddRecordedValuesDrawAReport) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path db = copy_fixture();
  {
    Connection c(db.string(), OpenMode::read_write);
    c.exec(
        "UPDATE gpu_models SET name = '$x^2$ and $y ' || name || ' ' || "
        "replace(hex(zeroblob(150)), '0', 'N'), "
        "sm_count = 0, clock_khz = 0 WHERE name LIKE '%H200%'");
  }
  CliRun r =
      cli({"report", "--out", (dir_ / "r").string(), "--db", db.string(), "--gpu-model", "H200"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
  const std::string index = file_bytes(dir_ / "r" / "index.html");
  EXPECT_NE(index.find("$x^2$ and $y NVIDIA H200 NNNN"), std::string::npos);
  EXPECT_NE(index.find("FMA unknown"), std::string::npos);
  for (const std::string& name : ::gemmtune::test::list_dir(dir_ / "r"))
    EXPECT_LE(name.size(), 100u) << name;
}

// The report writes no file through a symbolic link someone left in its folder: one line, the
// file it points to untouched.
TEST_F(Report, WritesNoFileThroughALink) {
  SKIP_WITHOUT_MATPLOTLIB();
  const fs::path out = dir_ / "r";
  fs::create_directory(out);
  const std::string elsewhere = write("elsewhere.png", "not the report's\n");
  fs::create_symlink(elsewhere, out / "speedup_nvidia_h200.png");  // the first file it writes
  CliRun r =
      cli({"report", "--out", out.string(), "--db", fixture().string(), "--gpu-model", "H200"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("is a symbolic link"), std::string::npos) << r.err;
  EXPECT_EQ(file_bytes(elsewhere), "not the report's\n");
}

TEST_F(Report, SaysWhatToInstallWithoutMatplotlib) {
  ::gemmtune::test::RunOptions options;
  options.set_env = {{"GEMMTUNE_PYTHON", (dir_ / "no-such-python").string()}};
  CliRun r = ::gemmtune::test::run_cli(
      {"report", "--out", (dir_ / "r").string(), "--db", fixture().string()}, options);
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("apt-get install python3-matplotlib"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no-such-python (not installed)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gemmtune::tools_test
