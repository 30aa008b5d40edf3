#pragma once
// GPU tests call GEMMTUNE_REQUIRE_GPU() first: on a machine without a GPU the test is skipped
// with the reason, never failed.
#include <gtest/gtest.h>

#include <string>

#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune::test {
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

#define GEMMTUNE_REQUIRE_GPU()                                           \
  do {                                                                   \
    std::string why_ = ::gemmtune::test::gpu_unavailable_reason();       \
    if (!why_.empty()) GTEST_SKIP() << "needs a GPU, skipped: " << why_; \
  } while (0)
