#include "gemmtune/tuner/rehearsal.hpp"

#include <chrono>
#include <set>
#include <thread>

#include "gemmtune/sgemm/tuning/calibration.hpp"

namespace gemmtune::tuner {

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

PoolStats minus(PoolStats a, const PoolStats& b) {
  a.compiles -= b.compiles, a.compile_s -= b.compile_s, a.cache_hits -= b.cache_hits;
  a.skipped -= b.skipped;
  return a;
}

// The strategy's options for a rehearsal, with the model's ranking.
StrategyOptions strategy_of(const RehearsalOptions& options, const ModelRanking& ranking) {
  StrategyOptions so = options.strategy;
  if (so.kind == StrategyKind::model) use_ranking(so, ranking);
  if (!so.seed) so.seed = 1;
  return so;
}
}  // namespace

std::vector<GemmConfig> rehearsed_first_round(const ProblemSpec& problem,
                                              const std::vector<GemmConfig>& candidates,
                                              const RehearsalOptions& options) {
  const ModelRanking ranking = rank_candidates(candidates, problem.problem(), options.gpu);
  std::vector<GemmConfig> out;
  for (std::size_t i : first_measured(candidates.size(), {}, strategy_of(options, ranking)))
    out.push_back(candidates[i]);
  return out;
}

Rehearsal rehearse(const ProblemSpec& problem, const std::vector<GemmConfig>& candidates,
                   const RehearsalOptions& options, CompilePool* pool) {
  const auto started = std::chrono::steady_clock::now();
  Rehearsal out;
  const PoolStats before = pool ? pool->stats() : PoolStats{};
  const ModelRanking ranking = rank_candidates(candidates, problem.problem(), options.gpu);
  const StrategyOptions so = strategy_of(options, ranking);
  // The GPU's clock: the strategy's budget runs on it, and with a pool on the wall clock too.
  double gpu_s = 0;
  std::set<std::size_t> planned, timed;
  StrategyHooks hooks;
  hooks.measure = [&](std::size_t i, Effort e) -> std::optional<double> {
    // The sweep's runner keeps the kernels it verified: only a first measurement takes a binary.
    const bool first = timed.insert(i).second;
    if (first) {
      out.timed.push_back(i);
      if (!planned.count(i)) ++out.timed_unplanned;
    }
    ++out.measurements;
    if (pool && first) {
      const auto asked = std::chrono::steady_clock::now();
      out.takes.add(pool->take(candidates[i])->origin);
      out.compile_wait_s += seconds_since(asked);
    }
    const int reps = e == Effort::quick    ? options.cost.quick_reps
                     : e == Effort::normal ? options.cost.normal_reps
                                           : options.cost.careful_reps;
    const double s = options.cost.overhead_s + reps * ranking.predicted_ms[i] / 1e3;
    gpu_s += s;
    if (pool && options.wait_gpu_time)
      std::this_thread::sleep_for(std::chrono::duration<double>(s));
    return ranking.predicted_ms[i];
  };
  hooks.elapsed_s = [&] { return pool ? seconds_since(started) : gpu_s; };
  hooks.plan = [&](const std::vector<std::size_t>& order) {
    ++out.plans;
    for (std::size_t i : order)
      if (planned.insert(i).second) out.planned.push_back(i);
    if (!pool) return;
    std::vector<GemmConfig> configs;
    for (std::size_t i : order) configs.push_back(candidates[i]);
    pool->enqueue(configs);
    if (out.plans == 1 && !options.next_round.empty()) pool->enqueue_next(options.next_round);
  };
  run_strategy(candidates.size(), {}, so, hooks);
  out.wall_s = seconds_since(started);
  if (pool) {
    // The compiles still in flight were asked for by this problem: they count here.
    pool->clear();
    if (options.next_round.empty()) pool->wait_idle();
    out.pool = minus(pool->stats(), before);
  }
  return out;
}

}  // namespace gemmtune::tuner
