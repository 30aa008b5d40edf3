#pragma once
// What a GPU test that checks kernels against the float64 reference starts with (after
// GEMMTUNE_REQUIRE_GPU): device 0 current, its figures and architecture, the reference kernel,
// and a freshly seeded generator for the random inputs.
#include <random>
#include <string>

#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/reference.hpp"

namespace gemmtune::test {

struct ReferenceSetup {
  DeviceInfo dev = current_device_0();
  std::string arch = dev.limits.arch();
  ReferenceGemm reference{arch};
  std::mt19937_64 rng{std::random_device{}()};

 private:
  static DeviceInfo current_device_0() {
    GEMMTUNE_CUDA(cudaSetDevice(0));
    return device_info(0);
  }
};

}  // namespace gemmtune::test
