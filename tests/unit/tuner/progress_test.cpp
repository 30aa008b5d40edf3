// Progress off a terminal is plain lines (no carriage returns); on a terminal one updating line.
#include <gtest/gtest.h>

#include <sstream>

#include "gemmtune/tuner/progress.hpp"
#include "gemmtune/tuner/summary.hpp"

using namespace gemmtune::tuner;

namespace {
std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST(Progress, PlainLinesOffATerminal) {
  std::ostringstream out;
  double now = 0;
  ProgressReporter p(out, false, [&] { return now; });
  p.begin_problem(1, 2, "1024x1024x1024 nn", 100);
  for (std::size_t i = 1; i <= 100; ++i) {
    now += 1;
    p.update(i, 100, 20.0 + i * 0.1);
  }
  p.end_problem("best sgemm_x 30.0 TFLOP/s");
  std::string s = out.str();
  EXPECT_EQ(s.find('\r'), std::string::npos);
  EXPECT_EQ(s.find('\033'), std::string::npos);
  EXPECT_EQ(count(s, "\n"), 12u) << s;  // start, every 10%, end
  EXPECT_NE(s.find("[1/2] 1024x1024x1024 nn: 100 candidates\n"), std::string::npos) << s;
  EXPECT_NE(s.find("[1/2] 1024x1024x1024 nn: 50/100 measured (50%), best 25.0 TFLOP/s, ETA 50s\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("best sgemm_x 30.0 TFLOP/s (1m40s)\n"), std::string::npos) << s;
}

TEST(Progress, UpdatingLineOnATerminal) {
  std::ostringstream out;
  double now = 0;
  ProgressReporter p(out, true, [&] { return now; });
  p.begin_problem(2, 3, "8x8x8 tt", 4, "[gpu 1] ");
  p.update(1, 4, std::nullopt);
  now = 30;
  p.update(2, 4, 1.5);
  p.note("a message");
  p.end_problem("done");
  std::string s = out.str();
  EXPECT_EQ(count(s, "\r\033[K"), 3u) << s;  // two updates and the clear before the note
  EXPECT_NE(s.find("[gpu 1] [2/3] 8x8x8 tt: 2/4 measured (50%), best 1.5 TFLOP/s, ETA 30s"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("1/4 measured (25%), best -, ETA 0s"), std::string::npos) << s;
  EXPECT_NE(s.find("\r\033[Ka message\n"), std::string::npos) << s;
}

TEST(Progress, Durations) {
  EXPECT_EQ(ProgressReporter::format_duration(42), "42s");
  EXPECT_EQ(ProgressReporter::format_duration(185), "3m05s");
  EXPECT_EQ(ProgressReporter::format_duration(3720), "1h02m");
}

// A row of a tuned problem: its best config, time, rate, share of the peak, cuBLAS and compiles.
SummaryRow tuned_row() {
  return {"NVIDIA H200",
          "4096x4096x4096 nn",
          "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8",
          3.0,
          45.8,
          71.6,
          2.7,
          "",
          CompileCounts{41, 3, 2},
          6.14};
}

TEST(Summary, TableWithMissingValues) {
  const SummaryRow a = tuned_row();
  SummaryRow b{"NVIDIA H200", "1x2x3 nn",   "", std::nullopt, std::nullopt, std::nullopt, 0.01,
               "interrupted", std::nullopt, 0};
  std::string t = format_summary({a, b});
  EXPECT_NE(t.find("compiled/cached/reused"), std::string::npos) << t;
  EXPECT_NE(t.find("41/3/2 6.1 s"), std::string::npos) << t;
  EXPECT_EQ(compiles_cell(b), "-");
  EXPECT_NE(t.find("best config"), std::string::npos);
  EXPECT_NE(t.find("0.90x"), std::string::npos) << t;
  EXPECT_NE(t.find("72%"), std::string::npos) << t;
  EXPECT_NE(t.find("interrupted"), std::string::npos) << t;
  EXPECT_EQ(count(t, "\n"), 3u);
  ASSERT_TRUE(a.speedup());
  EXPECT_NEAR(*a.speedup(), 0.9, 1e-12);
  EXPECT_FALSE(b.speedup());
}

// The line every sweep (sgemm's and another family's) ends a problem with.
TEST(Summary, OutcomeLineOfAProblem) {
  const SummaryRow a = tuned_row();
  EXPECT_EQ(outcome_line(a, 40, 46, 50.9, ""),
            "40 new of 46 measured; best sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8 45.8 "
            "TFLOP/s, cuBLAS 50.9 TFLOP/s; compiles 41 compiled, 3 cached, 2 reused, 6.1 s waited");
  SummaryRow none{"NVIDIA H200", "1x2x3 nn", "", std::nullopt, std::nullopt,
                  std::nullopt,  0.01,       "", std::nullopt, 0};
  EXPECT_EQ(outcome_line(none, 0, 3, std::nullopt, "interrupted"),
            "0 new of 3 measured; no candidate succeeded [interrupted]");
}
