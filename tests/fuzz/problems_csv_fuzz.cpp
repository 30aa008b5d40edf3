// Fuzzes the problem CSV reader (problems_from_csv in tuner/src/problems.cpp). The first byte picks
// the default layout (one a bad one), the rest is the file. Properties: a file either yields
// problems with M, N, K >= 1 and a batch of 1..65535, or is refused with Error(kInvalidArgument)
// naming the file in one short line without control characters; what it yields, written back one
// row per problem, reads back the same.
#include <cstdint>
#include <sstream>
#include <string>
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string layout = kLayouts[data[0] % std::size(kLayouts)];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
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
