#pragma once
// What gemmtune knows about a GPU: its identity (the key of the tuning database) and the limits
// that decide which kernel configurations can run on it.
#include <cstdint>
#include <string>
#include <vector>

namespace gemmtune {

/// Hardware limits a kernel configuration is validated against.
struct DeviceLimits {
  int cc_major = 9;                       ///< compute capability, major
  int cc_minor = 0;                       ///< compute capability, minor
  int max_threads_per_block = 1024;       ///< threads in one block
  int max_smem_per_block_optin = 232448;  ///< dynamic shared memory a block may opt in to (bytes)
  int max_smem_per_sm = 233472;           ///< shared memory of one multiprocessor (bytes)
  int max_regs_per_block = 65536;         ///< 32-bit registers of one block
  int max_regs_per_thread = 255;          ///< registers one thread may use

  /// Limits of a known architecture ("sm_80", "sm_86", "sm_89", "sm_90"), for work without a GPU.
  /// Throws Error(kInvalidArgument) for an unknown name.
  static DeviceLimits for_arch(const std::string& arch);
  /// The NVRTC architecture name of these limits, e.g. "sm_90".
  std::string arch() const;
};

/// One GPU as the CUDA runtime reports it.
struct DeviceInfo {
  int index = 0;                 ///< CUDA device ordinal
  std::string name;              ///< e.g. "NVIDIA H200"
  int sm_count = 0;              ///< multiprocessors
  int l2_bytes = 0;              ///< L2 cache size
  std::size_t memory_bytes = 0;  ///< global memory
  int smem_per_block = 0;        ///< default shared memory per block (bytes)
  int clock_khz = 0;             ///< peak SM clock
  DeviceLimits limits;           ///< what configs are validated against

  /// FP32 FMA peak in TFLOP/s: gemmtune::fp32_peak_tflops() of this GPU.
  double fp32_peak_tflops() const;
};

/// FP32 FMA lanes of one multiprocessor of compute capability `cc_major`.`cc_minor`: 64 on
/// sm_60, sm_7x and sm_80 (P100, V100, Turing, A100), 128 on the other architectures since
/// Maxwell (sm_86, sm_89, sm_90 and newer), 192 on Kepler.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

/// FP32 FMA peak of a GPU from the datasheet formula (FMA lanes per SM x SMs x 2 FLOP x clock),
/// TFLOP/s.
double fp32_peak_tflops(int sm_count, long long clock_khz, int cc_major, int cc_minor);

/// Versions of the CUDA pieces gemmtune runs on; 0 where a piece is absent (no driver).
struct CudaVersions {
  int runtime = 0;  ///< CUDA runtime, e.g. 13000
  int driver = 0;   ///< highest CUDA version the driver supports; 0 without a driver
  int nvrtc = 0;    ///< NVRTC as major*1000 + minor*10
};

/// Versions of the runtime, driver and NVRTC; never throws.
CudaVersions cuda_versions();

/// Formats 13000 as "13.0".
std::string format_cuda_version(int v);

/// Number of CUDA devices. Throws Error(kNoDevice) with a one-line explanation when there is no
/// driver or no GPU.
int device_count();

/// Properties of device `index`; throws Error(kNoDevice) or Error(kInvalidArgument).
DeviceInfo device_info(int index);

}  // namespace gemmtune
