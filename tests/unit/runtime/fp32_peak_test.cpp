// fp32_peak_tflops(): the FP32 FMA peak from the SMs, the clock and the FMA lanes of the
// architecture, against NVIDIA's datasheet figures.
#include <gtest/gtest.h>

#include "gemmtune/device.hpp"

using namespace gemmtune;

TEST(Fp32Peak, LanesFollowTheComputeCapability) {
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);   // A100
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);   // V100
  EXPECT_EQ(fp32_lanes_per_sm(7, 5), 64);   // Turing
  EXPECT_EQ(fp32_lanes_per_sm(6, 0), 64);   // P100
  EXPECT_EQ(fp32_lanes_per_sm(6, 1), 128);  // Pascal's others
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);  // GA10x
  EXPECT_EQ(fp32_lanes_per_sm(8, 9), 128);  // Ada
  EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);  // H100, H200
  EXPECT_EQ(fp32_lanes_per_sm(10, 0), 128);
  EXPECT_EQ(fp32_lanes_per_sm(3, 5), 192);  // Kepler
}

// The datasheets' FP32 figures, from the SMs and boost clocks they state.
TEST(Fp32Peak, MatchesDatasheets) {
  EXPECT_NEAR(fp32_peak_tflops(108, 1410000, 8, 0), 19.5, 0.05);  // A100: 19.5 TFLOP/s
  EXPECT_NEAR(fp32_peak_tflops(132, 1980000, 9, 0), 66.9, 0.05);  // H100/H200 SXM: 67
  EXPECT_NEAR(fp32_peak_tflops(80, 1530000, 7, 0), 15.7, 0.05);   // V100 SXM2: 15.7
  EXPECT_NEAR(fp32_peak_tflops(128, 2520000, 8, 9), 82.6, 0.05);  // RTX 4090: 82.6
}

TEST(Fp32Peak, DeviceInfoUsesItsArchitecture) {
  DeviceInfo a100;
  a100.sm_count = 108, a100.clock_khz = 1410000, a100.limits = DeviceLimits::for_arch("sm_80");
  EXPECT_DOUBLE_EQ(a100.fp32_peak_tflops(), fp32_peak_tflops(108, 1410000, 8, 0));
  DeviceInfo h200 = a100;
  h200.sm_count = 132, h200.clock_khz = 1980000, h200.limits = DeviceLimits::for_arch("sm_90");
  EXPECT_NEAR(h200.fp32_peak_tflops() / a100.fp32_peak_tflops(), 2 * 132 * 1980.0 / (108 * 1410),
              1e-12);
}
