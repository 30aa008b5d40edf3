// `gemmtune info`: the CUDA runtime, NVRTC and driver versions and every GPU's figures.
#include <cstdio>

#include "commands.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune::cli {

static void print_info() {
  CudaVersions v = cuda_versions();
  std::printf("gemmtune      %s\n", GEMMTUNE_VERSION);
  std::printf("CUDA runtime  %s\n", format_cuda_version(v.runtime).c_str());
  std::printf("NVRTC         %s\n", format_cuda_version(v.nvrtc).c_str());
  std::printf("driver (CUDA) %s\n", format_cuda_version(v.driver).c_str());
  int n = 0;
  try {
    n = device_count();
  } catch (const Error& e) {
    std::printf("GPUs          none: %s\n", e.what());
    return;
  }
  for (int i = 0; i < n; ++i) {
    DeviceInfo d = device_info(i);
    std::printf("GPU %d         %s, compute capability %d.%d (%s)\n", i, d.name.c_str(),
                d.limits.cc_major, d.limits.cc_minor, d.limits.arch().c_str());
    std::printf("  SMs %d, clock %.0f MHz, FP32 FMA peak %.1f TFLOP/s\n", d.sm_count,
                d.clock_khz / 1e3, d.fp32_peak_tflops());
    std::printf("  memory %.1f GiB, L2 %.1f MiB\n", d.memory_bytes / 1073741824.0,
                d.l2_bytes / 1048576.0);
    std::printf("  shared memory per block %d KiB (opt-in %d KiB), per SM %d KiB\n",
                d.smem_per_block / 1024, d.limits.max_smem_per_block_optin / 1024,
                d.limits.max_smem_per_sm / 1024);
  }
}

static void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "info", "Show the CUDA runtime, NVRTC and driver versions and the GPUs found");
  cmd->callback(print_info);
}

static const Registration kRegistration("info", add_info_command);

}  // namespace gemmtune::cli
