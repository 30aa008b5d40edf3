// Problems from shapes, CSV files and presets; errors name the bad text or file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "gemmtune/error.hpp"
#include "gemmtune/tuner/problems.hpp"
#include "support/scratch.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}
class ProblemFile : public gemmtune::test::ScratchDirTest {};
}  // namespace

TEST(Problems, ShapesTimesLayouts) {
  auto ps = problems_from_shapes({"128x256x64", "7x9x11"}, "all", 3);
  ASSERT_EQ(ps.size(), 8u);
  EXPECT_EQ(ps[0], (ProblemSpec{Op::N, Op::N, 128, 256, 64, 3}));
  EXPECT_EQ(ps[3], (ProblemSpec{Op::T, Op::T, 128, 256, 64, 3}));
  EXPECT_EQ(ps[4].m, 7);
  EXPECT_EQ(problem_label(ps[1]), "128x256x64 nt b3");
  EXPECT_EQ(problem_label(ProblemSpec{Op::N, Op::N, 1, 2, 3, 1}), "1x2x3 nn");
}

TEST(Problems, BadShapeLayoutBatchAreNamed) {
  EXPECT_NE(error_of([] { problems_from_shapes({"12x0x3"}, "nn", 1); }).find("12x0x3"),
            std::string::npos);
  EXPECT_NE(error_of([] { problems_from_shapes({"12x3"}, "nn", 1); }).find("'12x3'"),
            std::string::npos);
  EXPECT_NE(error_of([] { problems_from_shapes({"8x8x8"}, "nx", 1); }).find("'nx'"),
            std::string::npos);
  EXPECT_NE(error_of([] { problems_from_shapes({"8x8x8"}, "nn", 0); }).find("batch 0"),
            std::string::npos);
}

TEST_F(ProblemFile, HeaderCommentsLayoutsAndBatch) {
  std::string f = write("p.csv",
                        "m,n,k,layout,batch\n"
                        "# a comment\n"
                        "\n"
                        "1024, 1024, 2048   # trailing comment\n"
                        "16,4096,4096,tn\n"
                        "64,64,64,all,4\n");
  auto ps = problems_from_csv(f, "nt");
  ASSERT_EQ(ps.size(), 6u);
  EXPECT_EQ(ps[0], (ProblemSpec{Op::N, Op::T, 1024, 1024, 2048, 1}));  // the default layout
  EXPECT_EQ(ps[1], (ProblemSpec{Op::T, Op::N, 16, 4096, 4096, 1}));
  EXPECT_EQ(ps[5], (ProblemSpec{Op::T, Op::T, 64, 64, 64, 4}));
}

TEST_F(ProblemFile, ErrorsNameFileAndLine) {
  std::string f = write("bad.csv", "m,n,k\n1,2,3\n# ok\n4,x,6\n");
  EXPECT_NE(error_of([&] { problems_from_csv(f); }).find(f + ":4: n 'x'"), std::string::npos);
  f = write("cols.csv", "1,2\n");
  EXPECT_NE(error_of([&] { problems_from_csv(f); }).find(f + ":1: expected m,n,k"),
            std::string::npos);
  f = write("layout.csv", "1,2,3,nq\n");
  EXPECT_NE(error_of([&] { problems_from_csv(f); }).find(f + ":1: bad layout 'nq'"),
            std::string::npos);
  f = write("batch.csv", "1,2,3,nn,0\n");
  EXPECT_NE(error_of([&] { problems_from_csv(f); }).find(f + ":1: batch"), std::string::npos);
  f = write("header_late.csv", "1,2,3\nm,n,k\n");
  EXPECT_NE(error_of([&] { problems_from_csv(f); }).find(f + ":2:"), std::string::npos);
  EXPECT_NE(error_of([&] { problems_from_csv(path("missing.csv")); }).find("missing.csv"),
            std::string::npos);
}

// A file saved with a UTF-8 byte order mark reads as without it.
TEST_F(ProblemFile, AByteOrderMarkIsSkipped) {
  const std::string f = write("bom.csv", "\xEF\xBB\xBFm,n,k\n64,64,64\n");
  ASSERT_EQ(problems_from_csv(f).size(), 1u);
  EXPECT_EQ(problems_from_csv(write("bom2.csv",
                                    "\xEF\xBB\xBF"
                                    "32,32,32\n"))
                .front()
                .m,
            32);
}

// An error shows a bad line cut short and escaped (no terminal control, not all of a long line);
// a line past 4096 bytes (/dev/zero has no line end) is refused as soon as it is that long.
TEST_F(ProblemFile, ErrorsShowLinesShortAndEscaped) {
  const std::string line = "1,2,3,4,5,6,\x1b[31m" + std::string(1000, 'x');
  const std::string f = write("escape.csv", line + "\n");
  const std::string e = error_of([&] { problems_from_csv(f); });
  EXPECT_NE(e.find(f + ":1: expected m,n,k"), std::string::npos) << e;
  EXPECT_LT(e.size(), 400u) << e;
  EXPECT_EQ(e.find('\x1b'), std::string::npos) << e;
  EXPECT_NE(e.find("\\x1b[31m"), std::string::npos) << e;
  EXPECT_NE(e.find("(" + std::to_string(line.size()) + " bytes)"), std::string::npos) << e;
  const std::string layout = write("layout.csv", "1,2,3,n\x07\n");
  const std::string le = error_of([&] { problems_from_csv(layout); });
  EXPECT_EQ(le.find('\x07'), std::string::npos) << le;
  // Bytes shown as \xNN count four times: a long layout of them is cut as short as plain text.
  const std::string wide = write("wide.csv", "1,496,4096," + std::string(300, '\xff') + ",\n");
  const std::string we = error_of([&] { problems_from_csv(wide); });
  EXPECT_LT(we.size(), 600u) << we;
  EXPECT_NE(we.find("\\xff"), std::string::npos) << we;

  std::istringstream zeros(std::string(1 << 20, '\0'));
  const std::string z = error_of([&] { problems_from_csv(zeros, "/dev/zero"); });
  EXPECT_NE(z.find("/dev/zero:1: a line longer than 4096 bytes"), std::string::npos) << z;
}

TEST_F(ProblemFile, AFileWithoutProblemsIsAnError) {
  for (const auto& [name, text] : std::vector<std::pair<std::string, std::string>>{
           {"empty.csv", ""},
           {"comments.csv", "# no problem yet\n\n   \n"},
           {"header.csv", "m,n,k\n"}}) {
    const std::string f = write(name, text);
    const std::string e = error_of([&] { problems_from_csv(f); });
    EXPECT_NE(e.find("'" + f + "' holds no problems"), std::string::npos) << e;
    EXPECT_NE(e.find("m,n,k[,layout][,batch]"), std::string::npos) << e;  // what a row looks like
  }
  const std::string e = error_of([&] { problems_from_csv(dir_.string()); });
  EXPECT_NE(e.find(dir_.string()), std::string::npos) << e;
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
}

TEST_F(ProblemFile, OnlyTheDocumentedHeaderIsSkipped) {
  std::string f = write("upper.csv", "M, N, K, Layout\n8,16,32,nt\n");
  ASSERT_EQ(problems_from_csv(f).size(), 1u);
  f = write("short.csv", "m,n,k\n8,16,32\n");
  ASSERT_EQ(problems_from_csv(f).size(), 1u);
  for (const char* first : {"x,2,3", "rows,cols,depth", "hello world", "m,n", "m,n,k,batch"}) {
    f = write("bad.csv", std::string(first) + "\n8,16,32\n");
    const std::string e = error_of([&] { problems_from_csv(f); });
    EXPECT_NE(e.find(f + ":1: '" + first + "' is not the header m,n,k[,layout][,batch]"),
              std::string::npos)
        << e;
  }
}

TEST(Presets, NamesAndContents) {
  EXPECT_EQ(preset_names(),
            (std::vector<std::string>{"broad", "classes", "holdout", "quick", "squares", "suite",
                                      "transformer", "users", "wide"}));
  auto quick = preset_problems("quick");
  ASSERT_EQ(quick.size(), 4u);
  EXPECT_EQ(problem_label(quick[2]), "127x257x1023 nn");
  EXPECT_EQ(preset_problems("quick", "all").size(), 16u);
  auto suite = preset_problems("suite");
  EXPECT_EQ(suite.size(), 15u);
  EXPECT_EQ(problem_label(suite.back()), "100x100x100 nn");
  auto squares = preset_problems("squares");
  EXPECT_NE(
      std::find(squares.begin(), squares.end(), ProblemSpec{Op::N, Op::N, 3000, 3000, 3000, 1}),
      squares.end());
  EXPECT_EQ(squares.front().m, 256);
  EXPECT_EQ(squares.back().m, 8192);
  auto tf = preset_problems("transformer");
  EXPECT_NE(std::find(tf.begin(), tf.end(), ProblemSpec{Op::N, Op::N, 2048, 11008, 4096, 1}),
            tf.end());
  EXPECT_NE(error_of([] {
              preset_problems("huge");
            }).find("broad, classes, holdout, quick, squares, suite, transformer, users, wide"),
            std::string::npos);
  auto wide = preset_problems("wide", "tt");
  EXPECT_EQ(wide.size(), 41u);
  EXPECT_EQ(problem_label(wide.front()), "999x999x999 nn");  // each shape in its own layout
  EXPECT_EQ(wide[27].batch, 333);
  auto broad = preset_problems("broad", "nn");
  EXPECT_EQ(broad.size(), 40u);
  EXPECT_EQ(problem_label(broad[1]), "3333x777x2047 tt");
  EXPECT_EQ(broad[37].batch, 50000);
}

TEST(Problems, UniqueKeepsFirstOrder) {
  auto ps = problems_from_shapes({"8x8x8", "4x4x4", "8x8x8"}, "nn", 1);
  auto u = unique_problems(ps);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].m, 8);
  EXPECT_EQ(u[1].m, 4);
}

// The users preset keeps each shape's own layout and pairs odd shapes with aligned twins.
TEST(Problems, UsersPresetHasItsOwnLayoutsAndEveryMatrixVectorForm) {
  auto users = preset_problems("users", "tt");
  EXPECT_GE(users.size(), 30u);
  int gemv = 0, dots = 0;
  for (const auto& p : users) {
    if ((p.m == 1) != (p.n == 1)) ++gemv;
    if (p.m == 1 && p.n == 1) ++dots;
  }
  EXPECT_GE(gemv, 8);
  EXPECT_EQ(dots, 3);
  EXPECT_EQ(users.front().op_a, Op::N);  // 1024x32000x4096 nn, whatever the layout argument
  EXPECT_EQ(problem_label(users[2]), "1024x50256x768 nt");
}

// The holdout preset is kept out of every other preset (none of its problems is tuned or
// benchmarked with them) and covers every layout.
TEST(Problems, HoldoutPresetSharesNoProblemWithTheOthers) {
  const auto holdout = preset_problems("holdout");
  EXPECT_GE(holdout.size(), 20u);
  std::set<std::string> others, layouts;
  for (const auto& name : preset_names())
    if (name != "holdout")
      for (const auto& p : preset_problems(name, "all")) others.insert(problem_label(p));
  for (const auto& p : holdout) {
    EXPECT_EQ(others.count(problem_label(p)), 0u) << problem_label(p);
    layouts.insert(p.problem().layout());
  }
  EXPECT_EQ(layouts, (std::set<std::string>{"nn", "nt", "tn", "tt"}));
}

TEST(Problems, MBucketsArePowersOfTwoAndTheMidpointsAboveThem) {
  EXPECT_EQ(m_buckets(1, 4096),
            (std::vector<int>{1,  2,   3,   4,   6,   8,   12,  16,   24,   32,   48,   64,
                              96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096}));
  EXPECT_EQ(m_buckets(100, 1000), (std::vector<int>{100, 128, 192, 256, 384, 512, 768, 1000}));
  EXPECT_EQ(m_buckets(5, 5), std::vector<int>{5});
  EXPECT_EQ(m_buckets(7, 8), (std::vector<int>{7, 8}));
  EXPECT_EQ(m_buckets("16:64"), (std::vector<int>{16, 24, 32, 48, 64}));
  // Every M of the range is within a factor 1.5 of a bucket at or above it.
  const std::vector<int> ms = m_buckets(1, 100000);
  for (int m = 1; m <= 100000; ++m) {
    const int above = *std::lower_bound(ms.begin(), ms.end(), m);
    EXPECT_LE(above, 1.5 * m) << m;
  }
}

TEST(Problems, BadMRangesAreNamed) {
  for (const char* bad : {"", "4096", "0:16", "16:8", "1:x", "1:2:3", "-1:4", "1:99999999999"})
    EXPECT_NE(error_of([&] { m_buckets(std::string(bad)); }).find("M range"), std::string::npos)
        << bad;
}

TEST(Problems, WithEachMKeepsTheRestOfEachProblem) {
  const auto ps =
      with_each_m(problems_from_shapes({"1x4096x11008", "1x512x64"}, "nt", 2), m_buckets(1, 3));
  ASSERT_EQ(ps.size(), 6u);
  EXPECT_EQ(problem_label(ps[0]), "1x4096x11008 nt b2");
  EXPECT_EQ(problem_label(ps[2]), "3x4096x11008 nt b2");
  EXPECT_EQ(problem_label(ps[5]), "3x512x64 nt b2");
}
