#include "gemmtune/tuner/shard.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <numeric>

#include "gemmtune/error.hpp"
#include "gemmtune/sgemm/tuning/calibration.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gemmtune/tuner/replay.hpp"
#include "gemmtune/tuner/sweep.hpp"

namespace gemmtune::tuner {

namespace {

Error bad_input(const std::string& message) { return Error(Status::kInvalidArgument, message); }

// The whole of `text` as a non-negative number, or nullopt.
std::optional<long long> whole_number(const std::string& text) {
  long long v = 0;
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || stop != end || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::string shard_label(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

Shard parse_shard(const std::string& text) {
  const std::string how =
      "write I/N, the task's index counted from 0 and the number of tasks (0/4 is the first of 4)";
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad_input("bad --shard '" + text + "': " + how);
  const auto index = whole_number(text.substr(0, slash)),
             count = whole_number(text.substr(slash + 1));
  if (!index || !count) throw bad_input("bad --shard '" + text + "': " + how);
  if (*count < 1)
    throw bad_input("bad --shard '" + text + "': the number of tasks N must be at least 1");
  if (*count > 1000000) throw bad_input("bad --shard '" + text + "': more than a million tasks");
  if (*index >= *count) {
    throw bad_input("bad --shard '" + text +
                    "': the index must be below the number of tasks (0 to " +
                    std::to_string(*count - 1) + "); it counts from 0");
  }
  return Shard{int(*index), int(*count)};
}

std::optional<Shard> shard_from_slurm(const EnvironmentLookup& env) {
  const auto id_text = env("SLURM_ARRAY_TASK_ID");
  if (!id_text) return std::nullopt;
  const auto number = [&](const std::string& name) -> std::optional<long long> {
    const auto text = env(name);
    if (!text) return std::nullopt;
    const auto v = whole_number(*text);
    if (!v)
      throw bad_input(name + "='" + *text + "' is not a task number; pass --shard I/N instead");
    return v;
  };
  const long long id = *number("SLURM_ARRAY_TASK_ID");
  const auto count = number("SLURM_ARRAY_TASK_COUNT");
  if (!count || *count < 1) {
    throw bad_input(
        "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (or is 0): pass --shard I/N");
  }
  const long long min = number("SLURM_ARRAY_TASK_MIN").value_or(0);
  const long long max = number("SLURM_ARRAY_TASK_MAX").value_or(min + *count - 1);
  const long long step = number("SLURM_ARRAY_TASK_STEP").value_or(1);
  if (step != 1 || max - min + 1 != *count || id < min || id > max) {
    throw bad_input("this Slurm array (task ids " + std::to_string(min) + " to " +
                    std::to_string(max) + ", " + std::to_string(*count) + " tasks, step " +
                    std::to_string(step) + ") is not one contiguous range of ids, so task " +
                    std::to_string(id) +
                    " cannot be mapped to I/N: submit --array=0-(N-1), or pass --shard I/N");
  }
  return Shard{int(id - min), int(*count)};
}

std::vector<std::size_t> shard_items(const std::vector<double>& costs, const Shard& shard) {
  std::vector<std::size_t> by_cost(costs.size());
  std::iota(by_cost.begin(), by_cost.end(), std::size_t(0));
  std::stable_sort(by_cost.begin(), by_cost.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  std::vector<double> load(std::size_t(shard.count), 0.0);
  std::vector<std::size_t> mine;
  for (std::size_t item : by_cost) {
    const auto task = std::size_t(std::min_element(load.begin(), load.end()) - load.begin());
    // Every item weighs something: with all costs zero this is round robin.
    load[task] += std::max(costs[item], 0.0) + 1e-9;
    if (task == std::size_t(shard.index)) mine.push_back(item);
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

double estimate_tuning_seconds(const ProblemSpec& problem,
                               const std::vector<GemmConfig>& candidates,
                               const StrategyOptions& strategy, const GpuCeilings& gpu) {
  const ReplayCost cost;
  // The problem's setup (data, reference, cuBLAS) counted as one measurement.
  double clock = cost.overhead_s;
  if (candidates.empty()) return clock;
  const Problem p = problem.problem();
  const ModelRanking ranking = rank_candidates(candidates, p, gpu);
  StrategyOptions so = strategy;
  use_ranking(so, ranking);
  if (!so.seed) so.seed = 1;
  StrategyHooks hooks;
  hooks.measure = [&](std::size_t i, Effort e) -> std::optional<double> {
    const int reps = e == Effort::quick    ? cost.quick_reps
                     : e == Effort::normal ? cost.normal_reps
                                           : cost.careful_reps;
    const double ms = ranking.predicted_ms[i];
    clock += cost.overhead_s + reps * ms / 1e3;
    return ms;
  };
  hooks.elapsed_s = [&clock] { return clock; };
  run_strategy(candidates.size(), {}, so, hooks);
  return clock;
}

GpuCeilings planning_ceilings(const DeviceInfo& device) {
  GpuCeilings g;
  const double per_sm = g.fp32_tflops / g.sm_count;
  g.sm_count = device.sm_count;
  g.limits = device.limits;
  g.fp32_tflops = device.clock_khz > 0 ? device.fp32_peak_tflops() : per_sm * device.sm_count;
  return g;
}

SweepShard plan_sweep_shard(const SweepOptions& options, const DeviceInfo& device,
                            const Shard& shard) {
  const GpuCeilings gpu = planning_ceilings(device);
  SearchSpaces spaces(options, device.limits);
  std::vector<double> costs;
  for (const ProblemSpec& spec : options.problems) {
    const auto candidates =
        sweep_candidates(options, device, spaces.of(spec.op_a, spec.op_b), spec.problem());
    costs.push_back(estimate_tuning_seconds(spec, candidates, options.strategy, gpu));
  }
  SweepShard out;
  for (double c : costs) out.total_seconds += c;
  for (std::size_t i : shard_items(costs, shard)) {
    out.problems.push_back(options.problems[i]);
    out.seconds += costs[i];
  }
  return out;
}

std::vector<GemmConfig> sweep_configs(const SweepOptions& options, const DeviceInfo& device) {
  SearchSpaces spaces(options, device.limits);
  std::map<std::string, GemmConfig> by_name;
  for (const ProblemSpec& spec : options.problems) {
    for (const GemmConfig& c :
         sweep_candidates(options, device, spaces.of(spec.op_a, spec.op_b), spec.problem()))
      by_name.emplace(config_name(c), c);
  }
  std::vector<GemmConfig> out;
  for (auto& [name, config] : by_name) out.push_back(config);
  return out;
}

}  // namespace gemmtune::tuner
