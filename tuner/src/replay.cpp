#include "gemmtune/tuner/replay.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <random>

#include "gemmtune/error.hpp"
#include "gemmtune/sgemm/tuning/calibration.hpp"

namespace gemmtune::tuner {

GpuCeilings ceilings_of(const db::GpuModel& gpu, double dram_gbs) {
  // A file may record any numbers: the cost model divides by these.
  if (gpu.sm_count < 1 || gpu.clock_khz < 1)
    throw Error(Status::kInvalidArgument, "GPU model '" + gpu.name + "' records " +
                                              std::to_string(gpu.sm_count) + " SMs at " +
                                              std::to_string(gpu.clock_khz) +
                                              " kHz: the cost model cannot model it");
  GpuCeilings g;
  g.sm_count = gpu.sm_count;
  g.fp32_tflops = fp32_peak_tflops(gpu.sm_count, gpu.clock_khz, gpu.cc_major, gpu.cc_minor);
  g.dram_gbs = dram_gbs;
  g.limits =
      DeviceLimits::for_arch("sm_" + std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor));
  return g;
}

std::vector<RecordedProblem> load_recorded(const db::Database& db, db::Id gpu_model_id) {
  std::vector<RecordedProblem> out;
  // A recorded config is replayed only if it is valid on the GPU model: a file may hold any name
  // that parses (tiles of 999999999), which the cost model must never see.
  std::optional<DeviceLimits> limits;
  for (const db::GpuModelRow& g : db.gpu_models()) {
    if (g.id != gpu_model_id) continue;
    try {
      limits = ceilings_of(g.model).limits;
    } catch (const Error&) {  // an architecture this build does not know: nothing to replay
    }
  }
  if (!limits) return out;
  for (const db::BestRow& b : db.bests(gpu_model_id)) {
    RecordedProblem r{b.problem, {}, {}};
    std::map<std::string, bool>
        seen;  // results_for lists ok results fastest first: keep each config's best
    for (const db::ResultRow& row : db.results_for(b.problem, gpu_model_id)) {
      if (row.result.status != db::Status::ok || !row.result.median_ms || seen[row.config.name])
        continue;
      seen[row.config.name] = true;
      if (auto c = parse_config_name(row.config.name); c && !c->validate(*limits)) {
        r.configs.push_back(*c);
        r.median_ms.push_back(*row.result.median_ms);
      }
    }
    if (!r.configs.empty()) out.push_back(std::move(r));
  }
  return out;
}

namespace {

// Ranks from 0, tied values sharing the mean of the ranks they span.
std::vector<double> mean_ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
  std::vector<double> rank(v.size());
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first;
    while (last + 1 < order.size() && v[order[last + 1]] == v[order[first]]) ++last;
    for (std::size_t j = first; j <= last; ++j) rank[order[j]] = (first + last) / 2.0;
    first = last + 1;
  }
  return rank;
}

Problem problem_of(const db::ProblemKey& k) {
  return Problem::packed(op_from_char(k.op_a).value_or(Op::N), op_from_char(k.op_b).value_or(Op::N),
                         int(k.m), int(k.n), int(k.k), int(k.batch));
}

}  // namespace

double rank_correlation(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) return 0;
  const std::vector<double> ra = mean_ranks(a), rb = mean_ranks(b);
  const double mean = (a.size() - 1) / 2.0;  // of either's ranks
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ab += (ra[i] - mean) * (rb[i] - mean);
    aa += (ra[i] - mean) * (ra[i] - mean);
    bb += (rb[i] - mean) * (rb[i] - mean);
  }
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0;
}

ReplayOutcome replay_problem(const RecordedProblem& recorded, const ReplayOptions& options) {
  const Problem p = problem_of(recorded.key);
  const ModelRanking ranking = rank_candidates(recorded.configs, p, options.gpu, options.tuned);
  StrategyOptions so = options.strategy;
  use_ranking(so, ranking);
  const ReplayCost& cost = options.cost;
  std::mt19937_64 rng(options.seed);
  double clock = 0;
  StrategyHooks hooks;
  hooks.measure = [&](std::size_t i, Effort e) -> std::optional<double> {
    const bool quick = e == Effort::quick, normal = e == Effort::normal;
    const int reps = quick ? cost.quick_reps : normal ? cost.normal_reps : cost.careful_reps;
    const double noise = quick ? cost.quick_noise : normal ? cost.normal_noise : cost.careful_noise;
    const double ms = recorded.median_ms[i];
    clock += cost.overhead_s + reps * ms / 1e3;
    // Timing noise only ever slows a kernel down (clocks, other work), never speeds it up.
    return ms * (1 + std::uniform_real_distribution<double>(0, noise)(rng));
  };
  hooks.elapsed_s = [&clock] { return clock; };
  const StrategyResult result = run_strategy(recorded.configs.size(), {}, so, hooks);

  ReplayOutcome out;
  out.candidates = recorded.configs.size();
  out.measurements = result.measurements;
  out.simulated_s = clock;
  const auto best = std::min_element(recorded.median_ms.begin(), recorded.median_ms.end());
  out.recorded_best_ms = *best;
  out.best_model_rank = ranking.rank_of(std::size_t(best - recorded.median_ms.begin()));
  out.model_rank_correlation = rank_correlation(ranking.predicted_ms, recorded.median_ms);
  if (result.best) {
    out.found = config_name(recorded.configs[*result.best]);
    out.found_ms = recorded.median_ms[*result.best];
    out.found_model_rank = ranking.rank_of(*result.best);
  }
  return out;
}

}  // namespace gemmtune::tuner
