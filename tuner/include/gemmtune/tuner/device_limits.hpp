#pragma once
// The two ceilings every GEMM figure is read against, measured on the GPU at hand: the FP32
// FMA rate and the device-to-device copy bandwidth.
#include "gemmtune/tuner/cost_model.hpp"
#include "gemmtune/tuner/timer.hpp"

namespace gemmtune::tuner {

/// Measured ceilings of the current device.
struct MeasuredCeilings {
  double fp32_tflops = 0;  ///< FMA throughput of independent dependent-FMA chains, TFLOP/s
  double copy_gbs = 0;     ///< cudaMemcpy device-to-device, bytes read + written per second / 1e9
};

/// Runs an FMA-loop kernel (compiled with NVRTC) and a 1 GiB device copy on the current device.
/// Takes about a second; needs a GPU.
MeasuredCeilings measure_ceilings(const GpuTimer& timer);

/// What the CUDA runtime reports of device `index`'s memory and multiprocessors (attributes; no
/// kernel runs). Throws Error(kCudaError) when a query fails.
DeviceReport query_device_report(int index);

}  // namespace gemmtune::tuner
