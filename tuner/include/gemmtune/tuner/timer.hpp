#pragma once
// GPU timing that can be trusted: warm-up, L2 flushed before every timed run, CUDA events,
// repetitions until the spread is small or a cap is reached; median kept with min and max.
#include <cuda_runtime_api.h>

#include <functional>

namespace gemmtune::tuner {

/// How hard to try.
struct TimerOptions {
  int warmup = 2;               ///< untimed runs first
  int min_reps = 5;             ///< at least this many timed runs
  int max_reps = 50;            ///< at most this many
  double target_spread = 0.02;  ///< stop once (p75 - p25) / median is below this
  double max_seconds = 2.0;     ///< and never spend more than this on one measurement
  bool flush_l2 = true;         ///< overwrite a buffer larger than L2 before each run
};

/// One measurement, in milliseconds.
struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
  /// (max - min) / median.
  double spread() const { return median_ms > 0 ? (max_ms - min_ms) / median_ms : 0; }
};

/// Times `run` (which enqueues work on the stream it is given) on the current device.
/// Owns a flush buffer and events; non-copyable.
class GpuTimer {
 public:
  explicit GpuTimer(cudaStream_t stream = nullptr);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  /// Measures `run`; throws Error(kCudaError) if a CUDA call (or `run`) fails.
  Timing time(const std::function<void(cudaStream_t)>& run, const TimerOptions& options = {}) const;

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
};

}  // namespace gemmtune::tuner
