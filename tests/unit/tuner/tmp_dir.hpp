#pragma once
// A scratch directory of its own for every tuner unit test, under GEMMTUNE_TEST_TMP.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace gemmtune::tuner::test {

/// Test fixture with a fresh, empty directory per test.
class TmpDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::path(GEMMTUNE_TEST_TMP) / "tuner" /
           (std::string(info->test_suite_name()) + "." + info->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  /// A path inside this test's directory.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// Writes `text` to a file in this test's directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }
  std::filesystem::path dir_;
};

}  // namespace gemmtune::tuner::test
