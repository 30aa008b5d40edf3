// Fuzzes the problem CSV reader (problems_from_csv in tuner/src/problems.cpp). The first byte picks
// the default layout (one a bad one), the rest is the file. Properties: a file either yields
// problems with M, N, K >= 1 and a batch of 1..65535, or is refused with Error(kInvalidArgument)
// naming the file in one short line without control characters; what it yields, written back one
// row per problem, reads back the same. The same text as an `--m-range` (m_buckets): it parses
// exactly when it is two decimal numbers LO:HI with 1 <= LO <= HI <= INT_MAX (written out again
// below), into ascending buckets from LO to HI each at most 1.5 times the one before, and is
// otherwise refused with Error(kInvalidArgument) quoting it.
#include <climits>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/tuner/problems.hpp"

namespace {

using gemmtune::tuner::ProblemSpec;

constexpr const char* kName = "fuzz.csv";
constexpr const char* kLayouts[] = {"nn", "nt", "tn", "tt", "all", "xn"};

// Problems of `text`, or nothing when it is refused (the refusal is checked here).
std::optional<std::vector<ProblemSpec>> read(const std::string& text, const std::string& layout) {
  std::istringstream in(text);
  try {
    return gemmtune::tuner::problems_from_csv(in, kName, layout);
  } catch (const gemmtune::Error& e) {
    FUZZ_CHECK(e.status() == gemmtune::Status::kInvalidArgument, text);
    const std::string message = e.what();
    FUZZ_CHECK(message.find(kName) != std::string::npos, text);
    // A line is shown cut short and escaped: no terminal control, no megabytes of it.
    FUZZ_CHECK(message.size() < 1000, text);
    for (unsigned char c : message) FUZZ_CHECK(c >= 0x20 && c != 0x7f, text);
    return std::nullopt;
  }
}

// LO and HI of an `--m-range` text, read by hand: digits ':' digits, each 1..INT_MAX, LO <= HI.
std::optional<std::pair<int, int>> reference_range(const std::string& text) {
  long long v[2] = {0, 0};
  std::size_t i = 0;
  for (int part = 0; part < 2; ++part) {
    if (part == 1 && (i >= text.size() || text[i++] != ':')) return std::nullopt;
    const std::size_t start = i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
      if ((v[part] = v[part] * 10 + (text[i] - '0')) > INT_MAX) return std::nullopt;
    if (i == start || v[part] < 1) return std::nullopt;
  }
  if (i != text.size() || v[0] > v[1]) return std::nullopt;
  return std::pair{int(v[0]), int(v[1])};
}

void check_m_range(const std::string& text) {
  std::optional<std::vector<int>> ms;
  try {
    ms = gemmtune::tuner::m_buckets(text);
  } catch (const gemmtune::Error& e) {
    FUZZ_CHECK(e.status() == gemmtune::Status::kInvalidArgument, text);
    FUZZ_CHECK(
        std::string(e.what()).find("'" + gemmtune::fuzz::quotable(text)) != std::string::npos,
        text);
  }
  const auto want = reference_range(text);
  FUZZ_CHECK(ms.has_value() == want.has_value(), text);
  if (!ms) return;
  FUZZ_CHECK(!ms->empty() && ms->front() == want->first && ms->back() == want->second, text);
  for (std::size_t i = 1; i < ms->size(); ++i)
    FUZZ_CHECK((*ms)[i] > (*ms)[i - 1] && (*ms)[i] <= 1.5 * (*ms)[i - 1] + 1, text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string layout = kLayouts[data[0] % std::size(kLayouts)];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  check_m_range(text);
  const auto problems = read(text, layout);
  if (!problems) return 0;
  FUZZ_CHECK(!problems->empty(), text);
  std::string rows = "m,n,k,layout,batch\n";
  for (const ProblemSpec& p : *problems) {
    FUZZ_CHECK(p.m >= 1 && p.n >= 1 && p.k >= 1, text);
    FUZZ_CHECK(p.batch >= 1 && p.batch <= 65535, text);
    rows += std::to_string(p.m) + "," + std::to_string(p.n) + "," + std::to_string(p.k) + "," +
            gemmtune::op_char(p.op_a) + gemmtune::op_char(p.op_b) + "," + std::to_string(p.batch) +
            "\n";
  }
  const auto again = read(rows, "xn");  // every row names its layout: the default is never used
  FUZZ_CHECK(again && *again == *problems, text);
  return 0;
}
