#pragma once
// The tests' sample of the kernel family: every value of every knob at least once.
#include "gemmtune/config.hpp"

namespace gemmtune::test {
inline std::vector<GemmConfig> sample_configs(const DeviceLimits& limits, Op op_a, Op op_b) {
  return coverage_sample(limits, op_a, op_b);
}
}  // namespace gemmtune::test
