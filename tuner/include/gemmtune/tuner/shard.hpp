#pragma once
// Splitting a sweep (or a compile) over N independent tasks, e.g. the tasks of a Slurm job array:
// which task this is (--shard I/N or Slurm's array variables), and a deterministic partition of
// the work that balances its estimated cost. Every task computes the same partition from the same
// command line, with no communication, so the tasks' problems are disjoint and cover the list.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/tuner/cost_model.hpp"
#include "gemmtune/tuner/problems.hpp"
#include "gemmtune/tuner/strategy.hpp"

namespace gemmtune::tuner {

struct SweepOptions;

/// Task `index` of `count` (0 <= index < count).
struct Shard {
  int index = 0;
  int count = 1;
  bool operator==(const Shard&) const = default;
};

/// "I/N" as a person writes it, e.g. "0/4" for the first of four tasks.
std::string shard_label(const Shard& shard);

/// Parses "I/N" (I counts from 0). Throws Error(kInvalidArgument) saying what is wrong: not two
/// whole numbers, N < 1, I >= N.
Shard parse_shard(const std::string& text);

/// Reads a variable of the environment: its value, or nullopt when it is not set.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// The shard a Slurm array task stands for, from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT
/// (the index is the task id less SLURM_ARRAY_TASK_MIN, so --array=1-4 works as 0-3 does);
/// nullopt when SLURM_ARRAY_TASK_ID is not set (not an array task). Throws
/// Error(kInvalidArgument) when the variables are not numbers, or describe an array that is not
/// one contiguous range of ids (--array=1,5,9 or 0-8:2), which cannot be mapped to I/N.
std::optional<Shard> shard_from_slurm(const EnvironmentLookup& env);

/// The items of `shard` out of items with estimated costs `costs`, in their original order.
/// Longest first, each item goes to the task with the least estimated work so far (ties: the
/// lower task): the heaviest task ends within one item of the average. Deterministic; the shards
/// of 0..count-1 are disjoint and together hold every item once.
std::vector<std::size_t> shard_items(const std::vector<double>& costs, const Shard& shard);

/// What tuning one problem with `strategy` is estimated to cost on a GPU with `gpu`'s ceilings,
/// in seconds: the strategy run on `candidates` with the cost model's predicted times as the
/// measurements (the model strategy's order from the uncalibrated model), each measurement
/// costing a fixed overhead plus its timed repetitions (the replay's ReplayCost). Rough in
/// absolute terms; what matters is that a deep-K or 8192^3 problem weighs more than a 1024^3.
double estimate_tuning_seconds(const ProblemSpec& problem,
                               const std::vector<GemmConfig>& candidates,
                               const StrategyOptions& strategy, const GpuCeilings& gpu);

/// The ceilings the estimates plan with on a device described without a GPU (DeviceLimits::for_arch
/// and an SM count, no clock): the default ceilings' FMA rate per SM.
GpuCeilings planning_ceilings(const DeviceInfo& device);

/// One task's part of a sweep.
struct SweepShard {
  std::vector<ProblemSpec> problems;  ///< this task's problems, in the order of the list
  double seconds = 0;                 ///< their estimated tuning time
  double total_seconds = 0;           ///< the whole list's
};

/// The problems of `shard` out of options.problems, balanced by estimate_tuning_seconds of each
/// problem's candidates on `device` (the planning device: every task must be given the same one,
/// so that all compute the same partition; the sweep uses --arch and --sms, not the GPU it finds).
SweepShard plan_sweep_shard(const SweepOptions& options, const DeviceInfo& device,
                            const Shard& shard);

/// Every config the sweep of options.problems on `device` could compile: the union of the
/// problems' candidate sets, each config once, sorted by name.
std::vector<GemmConfig> sweep_configs(const SweepOptions& options, const DeviceInfo& device);

}  // namespace gemmtune::tuner
