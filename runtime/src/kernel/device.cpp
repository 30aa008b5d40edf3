#include "gemmtune/device.hpp"

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "gemmtune/error.hpp"

namespace gemmtune {

DeviceLimits DeviceLimits::for_arch(const std::string& arch) {
  DeviceLimits l;
  // Shared memory figures from the CUDA programming guide's table of compute capabilities.
  if (arch == "sm_90") return l;
  if (arch == "sm_80") {
    l.cc_major = 8, l.cc_minor = 0, l.max_smem_per_block_optin = 166912, l.max_smem_per_sm = 167936;
    return l;
  }
  if (arch == "sm_86" || arch == "sm_89") {
    l.cc_major = 8, l.cc_minor = arch == "sm_86" ? 6 : 9;
    l.max_smem_per_block_optin = 101376, l.max_smem_per_sm = 102400;
    return l;
  }
  throw Error(Status::kInvalidArgument,
              "unknown architecture '" + arch + "': use one of sm_80, sm_86, sm_89, sm_90");
}

std::string DeviceLimits::arch() const {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  // The CUDA programming guide's table of arithmetic instruction throughputs (32-bit
  // floating-point add, multiply, multiply-add per clock per multiprocessor).
  if (cc_major == 3) return 192;
  if ((cc_major == 6 && cc_minor == 0) || cc_major == 7 || (cc_major == 8 && cc_minor == 0))
    return 64;
  return 128;
}

double fp32_peak_tflops(int sm_count, long long clock_khz, int cc_major, int cc_minor) {
  return 2.0 * fp32_lanes_per_sm(cc_major, cc_minor) * sm_count * static_cast<double>(clock_khz) *
         1e3 / 1e12;
}

double DeviceInfo::fp32_peak_tflops() const {
  return gemmtune::fp32_peak_tflops(sm_count, clock_khz, limits.cc_major, limits.cc_minor);
}

CudaVersions cuda_versions() {
  CudaVersions v;
  cudaRuntimeGetVersion(&v.runtime);
  if (cudaDriverGetVersion(&v.driver) != cudaSuccess) v.driver = 0;
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS) v.nvrtc = major * 1000 + minor * 10;
  return v;
}

std::string format_cuda_version(int v) {
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

int device_count() {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
    throw Error(Status::kNoDevice,
                "no CUDA device / driver found: the NVIDIA driver is not installed or not loaded");
  }
  int n = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess || n == 0) {
    cudaGetLastError();  // clear the sticky error so later calls see a clean state
    throw Error(Status::kNoDevice,
                std::string("no CUDA device / driver found: ") +
                    (rc == cudaSuccess ? "the driver sees no GPU" : cudaGetErrorString(rc)));
  }
  return n;
}

DeviceInfo device_info(int index) {
  int n = device_count();
  if (index < 0 || index >= n) {
    throw Error(Status::kInvalidArgument,
                "device " + std::to_string(index) + " does not exist: this machine has " +
                    std::to_string(n) + " CUDA device(s), numbered from 0");
  }
  cudaDeviceProp p{};
  GEMMTUNE_CUDA(cudaGetDeviceProperties(&p, index));
  DeviceInfo d;
  d.index = index;
  d.name = p.name;
  d.sm_count = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.memory_bytes = p.totalGlobalMem;
  d.smem_per_block = static_cast<int>(p.sharedMemPerBlock);
  GEMMTUNE_CUDA(cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, index));
  d.limits.cc_major = p.major;
  d.limits.cc_minor = p.minor;
  d.limits.max_threads_per_block = p.maxThreadsPerBlock;
  d.limits.max_smem_per_block_optin = static_cast<int>(p.sharedMemPerBlockOptin);
  d.limits.max_smem_per_sm = static_cast<int>(p.sharedMemPerMultiprocessor);
  d.limits.max_regs_per_block = p.regsPerBlock;
  return d;
}

}  // namespace gemmtune
