// Config names are database keys: every name the fixture databases store parses and is written
// back byte for byte, so that a change to the knob table cannot silently rename stored configs.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gemmtune/db/sqlite.hpp"
#include "gemmtune/sgemm/config.hpp"

using namespace gemmtune;

namespace {

// The fixture databases: those kept as they are, and those unpacked into the build folder.
std::vector<std::filesystem::path> fixture_databases() {
  std::vector<std::filesystem::path> out;
  for (const char* folder : {GEMMTUNE_TEST_FIXTURES, GEMMTUNE_TEST_UNPACKED_FIXTURES}) {
    if (!std::filesystem::is_directory(folder)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
      if (entry.path().extension() == ".db") out.push_back(entry.path());
  }
  return out;
}

TEST(ConfigNames, EveryFixtureConfigNameRoundTrips) {
  const auto databases = fixture_databases();
  ASSERT_GE(databases.size(), 2u)
      << "expected tests/fixtures/*.db and the unpacked h200-exhaustive.db";
  for (const auto& path : databases) {
    db::Connection conn(path.string(), db::OpenMode::read_only);
    db::Statement names(conn, "SELECT name FROM configs ORDER BY id");
    int count = 0;
    while (names.step()) {
      const std::string name = names.get_text(0);
      const auto config = parse_config_name(name);
      ASSERT_TRUE(config) << path << ": " << name << " does not parse";
      EXPECT_EQ(config_name(*config), name) << path;
      ++count;
    }
    EXPECT_GT(count, 0) << path << " holds no configs";
  }
}

}  // namespace
