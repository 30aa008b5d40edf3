// The version is written once (CMakeLists.txt's project version) and every place that reports it
// agrees: the generated header's macros, the C and C++ functions, the Python package's
// pyproject.toml and __version__ (the CLI's --version and the SONAME: tests/cli/CMakeLists.txt).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "gemmtune/gemmtune.h"
#include "gemmtune/gemmtune.hpp"

namespace {

// The repository's root: tests/fixtures is two folders below it.
const std::filesystem::path kSourceRoot =
    std::filesystem::path(GEMMTUNE_TEST_FIXTURES).parent_path().parent_path();

// The first capture of `pattern` in the file at `relative` under the source root ("" when absent).
std::string first_match(const std::string& relative, const std::string& pattern) {
  std::ifstream in(kSourceRoot / relative);
  EXPECT_TRUE(in) << "cannot read " << (kSourceRoot / relative);
  const std::regex re(pattern);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, re)) return m[1];
  }
  return "";
}

}  // namespace

TEST(Version, MacrosAgreeWithEachOther) {
  const std::string parts = std::to_string(GEMMTUNE_VERSION_MAJOR) + "." +
                            std::to_string(GEMMTUNE_VERSION_MINOR) + "." +
                            std::to_string(GEMMTUNE_VERSION_PATCH);
  EXPECT_EQ(parts, GEMMTUNE_VERSION_STRING);
  EXPECT_EQ(GEMMTUNE_VERSION_NUMBER,
            GEMMTUNE_VERSION_MAJOR * 10000 + GEMMTUNE_VERSION_MINOR * 100 + GEMMTUNE_VERSION_PATCH);
}

TEST(Version, FunctionsReportTheHeadersVersion) {
  EXPECT_STREQ(gemmtune_version(), GEMMTUNE_VERSION_STRING);
  EXPECT_EQ(gemmtune_version_number(), GEMMTUNE_VERSION_NUMBER);
  EXPECT_STREQ(gemmtune::version(), GEMMTUNE_VERSION_STRING);
  EXPECT_EQ(gemmtune::version_number(), GEMMTUNE_VERSION_NUMBER);
}

TEST(Version, ThePythonPackageHasTheSameVersion) {
  EXPECT_EQ(first_match("CMakeLists.txt", R"re(project\(gemmtune VERSION ([0-9.]+))re"),
            GEMMTUNE_VERSION_STRING);
  EXPECT_EQ(first_match("python/pyproject.toml", R"re(^version = "([^"]*)")re"),
            GEMMTUNE_VERSION_STRING);
  EXPECT_EQ(first_match("python/gemmtune/__init__.py", R"re(^__version__ = "([^"]*)")re"),
            GEMMTUNE_VERSION_STRING);
}
