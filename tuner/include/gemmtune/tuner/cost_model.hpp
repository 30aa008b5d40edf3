#pragma once
// An analytic cost model of one config on one problem: predicts a time before anything is
// timed, so that a search can measure the likely winners first. It only has to RANK candidates
// well; its milliseconds are rough. Each term is one line of arithmetic in cost_model.cpp:
// occupancy (threads, registers, shared memory) -> waves and tail, FMA throughput of the thread
// tile, bytes moved per FLOP of the block tile, split-K's atomics, a fixed cost per block.
#include <cstddef>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"

namespace gemmtune::tuner {

/// What the CUDA runtime reports of a GPU's memory and multiprocessors (query_device_report).
struct DeviceReport {
  long long memory_clock_khz = 0;  ///< peak memory clock
  int memory_bus_bits = 0;         ///< global memory bus width
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;

  /// The DRAM's peak bandwidth these give (two transfers a clock), GB/s.
  double dram_peak_gbs() const {
    return 2.0 * double(memory_clock_khz) * 1e3 * memory_bus_bits / 8 / 1e9;
  }
};

/// The share of the DRAM peak a device-to-device copy reaches: on an H200, 4.2 TB/s measured
/// (docs/PERFORMANCE.md) of the 4814 GB/s its memory clock (3201 MHz) and bus (6016 bits) give
/// (2026-12-02), so that the H200's ceilings are the model's figures as fitted there.
inline constexpr double kCopyShareOfDramPeak = 4200.0 / (2.0 * 3201000e3 * 6016 / 8 / 1e9);

/// What the model knows of a GPU: its ceilings and its per-SM limits. The defaults are an
/// H200's, for work without a GPU; a sweep takes the GPU's own (GpuCeilings::of).
struct GpuCeilings {
  int sm_count = 132;
  double fp32_tflops = 66.9;  ///< FMA peak (2 FLOP per FMA)
  double dram_gbs = 4200;     ///< copy bandwidth; ~4.2 TB/s on an H200 (a parameter)
  double l2_over_dram = 3;    ///< L2 serves the tiles' re-reads this much faster than DRAM
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  double load_latency_us = 0.5;  ///< a global load's round trip (mostly L2 hits) under load
  double atomics_per_us =
      600e3;               ///< split-K's atomic adds to C (vectors of 4) the L2 completes per us
  double launch_us = 3.0;  ///< one kernel launch
  DeviceLimits limits;     ///< registers and shared memory per SM

  /// The ceilings of `device`: its SMs, its FMA peak (from its clock) and limits, and from
  /// `report` its per-SM limits and its copy bandwidth (the DRAM peak times kCopyShareOfDramPeak).
  static GpuCeilings of(const DeviceInfo& device, const DeviceReport& report);
};

/// The model's verdict on one (config, problem), with the terms it came from.
struct Prediction {
  double ms = 0;           ///< predicted time
  double compute_ms = 0;   ///< FMA time on the busiest SM
  double memory_ms = 0;    ///< global traffic over the bandwidth the blocks can draw
  double overhead_ms = 0;  ///< the launch, pipeline fills, split-K's atomics
  int blocks_per_sm = 0;   ///< occupancy: resident blocks per SM
  long long blocks = 0;    ///< tiles x split_k x batch
};

/// Predicts the time of `c` on `p`.
Prediction predict(const GemmConfig& c, const Problem& p, const GpuCeilings& gpu);

/// Blocks of `c` one SM holds at once: the least of threads, registers (estimated from the
/// accumulators and fragments, capped by the __launch_bounds__ budget) and shared memory.
int blocks_per_sm(const GemmConfig& c, const GpuCeilings& gpu);

/// Candidate indices sorted by predicted time `ms` (fastest first; ties by index).
std::vector<std::size_t> rank_by_time(const std::vector<double>& ms);

}  // namespace gemmtune::tuner
