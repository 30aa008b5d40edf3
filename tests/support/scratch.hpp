#pragma once
// Scratch files of tests. Everything lives under tmp_root()/<kind>/<component>/, the layout of
// tests/ itself: a fresh directory per test (ScratchDirTest), or per process (scratch_dir).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace gemmtune::test {

/// $GEMMTUNE_TEST_TMP, else the build's tests/tmp (GPU machines run binaries built elsewhere,
/// where the build path does not exist: tools/gpu-check.sh sets the variable).
inline std::filesystem::path tmp_root() {
  const char* env = std::getenv("GEMMTUNE_TEST_TMP");
  return env && *env ? env : GEMMTUNE_TEST_TMP;
}

/// This executable's part of the scratch tree: tmp_root()/<kind>/<component>.
inline std::filesystem::path component_tmp() { return tmp_root() / GEMMTUNE_TEST_COMPONENT; }

/// `dir`, emptied and created. Write permission is given back first: a test may have taken it.
inline std::filesystem::path fresh_dir(const std::filesystem::path& dir) {
  std::error_code ignored;
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ignored);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// A fresh directory of this process, component_tmp()/<name>-<pid>: for files shared by a suite
/// (SetUpTestSuite has no current test). ctest runs every test in a process of its own, in
/// parallel: the pid keeps them apart.
inline std::filesystem::path scratch_dir(const std::string& name) {
  return fresh_dir(component_tmp() / (name + "-" + std::to_string(::getpid())));
}

/// The bytes of a file ("" when it cannot be read).
inline std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Names of the files in `dir`, sorted.
inline std::vector<std::string> list_dir(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Test fixture with a fresh, empty directory per test: component_tmp()/<suite>.<test>.
class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fresh_dir(component_tmp() / (std::string(info->test_suite_name()) + "." + info->name()));
  }
  /// A path inside this test's directory.
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  /// Writes `text` to a file in this test's directory and returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  std::filesystem::path dir_;
};

}  // namespace gemmtune::test
