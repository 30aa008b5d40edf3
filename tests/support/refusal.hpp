#pragma once
// The message of a call that must refuse its arguments with Error(kInvalidArgument).
#include <gtest/gtest.h>

#include <string>

#include "gemmtune/error.hpp"

namespace gemmtune::test {

/// The message of the Error(kInvalidArgument) `f` throws; "" when it throws none. Another status
/// fails the calling test.
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.status(), Status::kInvalidArgument) << e.what();
    return e.what();
  }
  return "";
}

}  // namespace gemmtune::test
