#pragma once
// GPU tests call GEMMTUNE_REQUIRE_GPU() first: on a machine without a GPU the test is skipped
// with the reason, never failed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune::test {
/// Scratch directory for test files: $GEMMTUNE_TEST_TMP, else the build's (GPU machines run
/// binaries built elsewhere, where the build path does not exist).
inline std::string test_tmp_dir() {
  const char* env = std::getenv("GEMMTUNE_TEST_TMP");
  return env && *env ? env : GEMMTUNE_TEST_TMP;
}
/// The gemmtune executable: $GEMMTUNE_TEST_CLI, else the one built beside the tests.
inline std::string cli_path() {
  const char* env = std::getenv("GEMMTUNE_TEST_CLI");
  return env && *env ? env : GEMMTUNE_CLI_PATH;
}

/// Empty when a GPU is usable, else why not.
inline std::string gpu_unavailable_reason() {
  try {
    device_count();
    return {};
  } catch (const Error& e) {
    return e.what();
  }
}
}  // namespace gemmtune::test

#define GEMMTUNE_REQUIRE_GPU()                                                  \
  do {                                                                          \
    std::string why_ = ::gemmtune::test::gpu_unavailable_reason();              \
    if (!why_.empty()) GTEST_SKIP() << "needs a GPU, skipped: " << why_;        \
  } while (0)
