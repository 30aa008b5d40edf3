#include "gemmtune/tuner/device_limits.hpp"

#include "gemmtune/compiler.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/device_buffer.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune::tuner {

namespace {
// Eight independent FMA chains per thread: enough in flight to saturate the FMA pipes, and the
// result is stored so that nothing is optimised away.
constexpr const char* kFmaSource = R"(
extern "C" __global__ void fma_peak(float* out, int iterations, float a, float b) {
  float x[8];
  for (int i = 0; i < 8; ++i) x[i] = threadIdx.x + i;
  for (int it = 0; it < iterations; ++it) {
#pragma unroll
    for (int i = 0; i < 8; ++i) x[i] = fmaf(x[i], a, b);
  }
  float s = 0;
  for (int i = 0; i < 8; ++i) s += x[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
)";
constexpr int kThreads = 256, kIterations = 4096;

}  // namespace

DeviceReport query_device_report(int index) {
  DeviceReport r;
  int memory_clock_khz = 0;
  GEMMTUNE_CUDA(cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, index));
  r.memory_clock_khz = memory_clock_khz;
  GEMMTUNE_CUDA(cudaDeviceGetAttribute(&r.memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, index));
  GEMMTUNE_CUDA(
      cudaDeviceGetAttribute(&r.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, index));
  GEMMTUNE_CUDA(
      cudaDeviceGetAttribute(&r.max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, index));
  return r;
}

MeasuredCeilings measure_ceilings(const GpuTimer& timer) {
  int dev = 0;
  GEMMTUNE_CUDA(cudaGetDevice(&dev));
  DeviceInfo info = device_info(dev);
  CompileOptions opts;
  opts.arch = info.limits.arch();
  CompileResult compiled = compile_cuda(kFmaSource, "fma_peak.cu", "fma_peak", opts);
  if (!compiled.ok)
    throw Error(Status::kCompileError, "FMA peak kernel failed to compile:\n" + compiled.log);
  cudaLibrary_t lib = nullptr;
  GEMMTUNE_CUDA(
      cudaLibraryLoadData(&lib, compiled.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  MeasuredCeilings out;
  try {
    cudaKernel_t kernel = nullptr;
    GEMMTUNE_CUDA(cudaLibraryGetKernel(&kernel, lib, "fma_peak"));
    const int blocks = info.sm_count * 8;
    DeviceBuffer<float> sink(size_t(blocks) * kThreads);
    float* sink_ptr = sink.get();
    int iterations = kIterations;
    float a = 0.999f, b = 0.001f;
    void* params[] = {&sink_ptr, &iterations, &a, &b};
    TimerOptions quick;
    quick.flush_l2 = false;
    Timing t = timer.time(
        [&](cudaStream_t s) {
          GEMMTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(blocks),
                                         dim3(kThreads), params, 0, s));
        },
        quick);
    out.fp32_tflops =
        2.0 * 8 * kIterations * double(blocks) * kThreads / (t.median_ms * 1e-3) / 1e12;

    const size_t bytes = size_t(1) << 30;
    DeviceBuffer<char> src(bytes), dst(bytes);
    Timing c = timer.time(
        [&](cudaStream_t s) {
          GEMMTUNE_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
        },
        quick);
    out.copy_gbs = 2.0 * bytes / (c.median_ms * 1e-3) / 1e9;
  } catch (...) {
    GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(lib));
    throw;
  }
  GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(lib));
  return out;
}

}  // namespace gemmtune::tuner
