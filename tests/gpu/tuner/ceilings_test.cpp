// The cost model's ceilings of the GPU at hand: what the runtime reports of its memory gives a
// copy bandwidth near the one a device-to-device copy measures.
#include <gtest/gtest.h>

#include "gemmtune/device.hpp"
#include "gemmtune/tuner/device_limits.hpp"
#include "support/gpu_env.hpp"

namespace gemmtune::tuner {
namespace {

TEST(DeviceCeilings, ReportedBandwidthIsNearTheMeasuredCopy) {
  GEMMTUNE_REQUIRE_GPU();
  const DeviceInfo device = device_info(0);
  const DeviceReport report = query_device_report(0);
  EXPECT_GT(report.memory_clock_khz, 0);
  EXPECT_GT(report.memory_bus_bits, 0);
  EXPECT_GE(report.max_threads_per_sm, 1024);
  EXPECT_GE(report.max_blocks_per_sm, 16);
  const GpuCeilings modelled = GpuCeilings::of(device, report);
  GEMMTUNE_CUDA(cudaSetDevice(0));
  const GpuTimer timer;
  const MeasuredCeilings measured = measure_ceilings(timer);
  // The share of the peak a copy reaches was taken on an H200; other GPUs differ by a little.
  EXPECT_NEAR(modelled.dram_gbs / measured.copy_gbs, 1.0, 0.25)
      << device.name << ": modelled " << modelled.dram_gbs << " GB/s, measured "
      << measured.copy_gbs;
  EXPECT_EQ(modelled.sm_count, device.sm_count);
}

}  // namespace
}  // namespace gemmtune::tuner
