#include "gemmtune/tuner/timer.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "gemmtune/error.hpp"

namespace gemmtune::tuner {

GpuTimer::GpuTimer(cudaStream_t stream) : stream_(stream) {
  int dev = 0, l2 = 0;
  GEMMTUNE_CUDA(cudaGetDevice(&dev));
  GEMMTUNE_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  flush_bytes_ = std::max<size_t>(size_t(l2) * 2, 1 << 20);
  GEMMTUNE_CUDA(cudaMalloc(&flush_, flush_bytes_));
  GEMMTUNE_CUDA(cudaEventCreate(&start_));
  GEMMTUNE_CUDA(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer() {
  GEMMTUNE_CUDA_NOTHROW(cudaEventDestroy(start_));
  GEMMTUNE_CUDA_NOTHROW(cudaEventDestroy(stop_));
  GEMMTUNE_CUDA_NOTHROW(cudaFree(flush_));
}

static double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[size_t(q * (v.size() - 1) + 0.5)];
}

Timing GpuTimer::time(const std::function<void(cudaStream_t)>& run, const TimerOptions& o) const {
  for (int i = 0; i < o.warmup; ++i) run(stream_);
  GEMMTUNE_CUDA(cudaStreamSynchronize(stream_));
  std::vector<double> ms;
  auto t0 = std::chrono::steady_clock::now();
  while (int(ms.size()) < o.max_reps) {
    // A cold L2 for every run: a large problem's inputs would not be cached in real use either.
    if (o.flush_l2)
      GEMMTUNE_CUDA(cudaMemsetAsync(flush_, int(ms.size() & 0xff), flush_bytes_, stream_));
    GEMMTUNE_CUDA(cudaEventRecord(start_, stream_));
    run(stream_);
    GEMMTUNE_CUDA(cudaEventRecord(stop_, stream_));
    GEMMTUNE_CUDA(cudaEventSynchronize(stop_));
    float t = 0;
    GEMMTUNE_CUDA(cudaEventElapsedTime(&t, start_, stop_));
    ms.push_back(t);
    if (int(ms.size()) < o.min_reps) continue;
    double med = quantile(ms, 0.5);
    if (med > 0 && (quantile(ms, 0.75) - quantile(ms, 0.25)) / med < o.target_spread) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() >
        o.max_seconds)
      break;
  }
  Timing t;
  t.reps = int(ms.size());
  t.median_ms = quantile(ms, 0.5);
  t.min_ms = *std::min_element(ms.begin(), ms.end());
  t.max_ms = *std::max_element(ms.begin(), ms.end());
  return t;
}

}  // namespace gemmtune::tuner
