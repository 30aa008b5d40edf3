#pragma once
// A sweep's compiles rehearsed without a GPU: the strategy runs on the cost model's predicted
// times (as the shard planner's estimate does) while a real compile pool compiles what the
// strategy plans; each measurement takes its config from the pool, then waits as long as the GPU
// would take to time it. It tells which configs a sweep's strategy times on a problem, which
// compiles it asks for, and what those cost on this machine's NVRTC.
#include <cstddef>
#include <vector>

#include "gemmtune/tuner/compile_pool.hpp"
#include "gemmtune/tuner/cost_model.hpp"
#include "gemmtune/tuner/problems.hpp"
#include "gemmtune/tuner/replay.hpp"
#include "gemmtune/tuner/strategy.hpp"

namespace gemmtune::tuner {

/// How to rehearse.
struct RehearsalOptions {
  StrategyOptions strategy;   ///< the model strategy's ranking is filled in from the cost model
  GpuCeilings gpu;            ///< the planned GPU (planning_ceilings())
  ReplayCost cost;            ///< what a measurement would cost on the GPU
  bool wait_gpu_time = true;  ///< sleep for each measurement's GPU time (the pool runs ahead then)
  /// Handed to the pool's next queue (enqueue_next) after the first plan, as a sweep hands it the
  /// next problem's first round (rehearsed_first_round()); the pool is then not waited for at the
  /// end, and its counters count what it compiled for the next problem.
  std::vector<GemmConfig> next_round;
};

/// What one problem's rehearsal did.
struct Rehearsal {
  std::vector<std::size_t> timed;  ///< candidate indices in the order first measured
  std::size_t measurements = 0;    ///< measure() calls, repeats included
  /// Every candidate the strategy asked the pool to compile ahead (plan()), each once, in the
  /// order first asked.
  std::vector<std::size_t> planned;
  std::size_t plans = 0;            ///< plan() calls: each a batch the pool compiles afresh
  std::size_t timed_unplanned = 0;  ///< timed candidates not planned before their measurement
  CompileCounts takes;              ///< where the timed candidates' binaries came from
  PoolStats pool;                   ///< the pool's counters over the rehearsal (a difference)
  double compile_wait_s = 0;        ///< waiting for the pool in measure()
  double wall_s = 0;                ///< the whole rehearsal
};

/// The configs a rehearsal of `problem` measures first (first_measured()): a sweep's first round.
std::vector<GemmConfig> rehearsed_first_round(const ProblemSpec& problem,
                                              const std::vector<GemmConfig>& candidates,
                                              const RehearsalOptions& options);

/// Rehearses options.strategy on `candidates` of `problem`. With a pool, each measurement takes
/// its config from it (the pool is cleared at the end, as a sweep does after a problem); without
/// one, only the plan and the timed configs are recorded.
Rehearsal rehearse(const ProblemSpec& problem, const std::vector<GemmConfig>& candidates,
                   const RehearsalOptions& options, CompilePool* pool);

}  // namespace gemmtune::tuner
