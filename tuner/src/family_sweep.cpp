#include "gemmtune/tuner/family_sweep.hpp"

#include <chrono>
#include <cstdio>
#include <set>

#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/tuner/sweep.hpp"

namespace gemmtune::tuner {

std::string family_names() {
  std::string out;
  for (const KernelFamily* f : families())
    out += (out.empty() ? "" : ", ") + std::string(f->name());
  return out;
}

const KernelFamily* sweep_family(const SweepOptions& o) {
  if (o.family == kSgemmFamily) return nullptr;
  const KernelFamily* family = nullptr;
  for (const KernelFamily* f : families())
    if (f->name() == o.family) family = f;
  if (!family)
    throw Error(Status::kInvalidArgument, "no kernel family '" + o.family +
                                              "': the registered families are " + family_names());
  if (o.strategy.kind != StrategyKind::exhaustive)
    throw Error(Status::kInvalidArgument,
                "--strategy " + std::string(strategy_name(o.strategy.kind)) + " is the sgemm " +
                    "family's: a sweep of family '" + o.family +
                    "' measures every one of its candidate_configs (--strategy exhaustive)");
  if (!o.only_configs.empty())
    throw Error(Status::kInvalidArgument, "--config names sgemm configs: a sweep of family '" +
                                              o.family + "' measures its candidate_configs");
  return family;
}

std::vector<std::string> family_candidates(const SweepOptions& o, const KernelFamily& family,
                                           const DeviceLimits& limits, const Problem& problem) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (std::string& name : family.candidate_configs(limits, problem)) {
    if (family.validate(name, limits) || family.can_implement(name, problem) ||
        family.precision(name) > o.precision || !seen.insert(name).second)
      continue;
    out.push_back(std::move(name));
  }
  return out;
}

FamilyResumeState load_family_resume_state(const db::Database& db, db::Id gpu_model_id,
                                           const Problem& problem,
                                           const std::vector<std::string>& candidates, bool force) {
  const EarlierResults earlier(earlier_results(db, gpu_model_id, problem, force));
  FamilyResumeState s;
  for (const std::string& name : candidates) earlier.sort_into(s, name, name);
  return s;
}

SummaryRow family_summary_row(const db::Database& db, db::Id gpu_model_id, const DeviceInfo& dev,
                              const KernelFamily& family, const ProblemSpec& spec,
                              std::optional<double> cublas_ms, const std::string& note) {
  SummaryRow row;
  row.gpu = dev.name;
  row.problem = problem_label(spec);
  row.note = note;
  row.cublas_ms = cublas_ms;
  const db::ProblemKey key = to_db(spec.problem());
  if (!db.find_problem(key)) return row;
  for (const auto& r : db.results_for(key, gpu_model_id)) {  // ok results first, fastest first
    if (r.result.status != db::Status::ok || !r.result.median_ms ||
        r.config.family != family.name())
      continue;
    row.config = r.config.name;
    row.ms = *r.result.median_ms;
    row.tflops = spec.problem().flops() / *row.ms / 1e9;
    if (const double peak = dev.fp32_peak_tflops(); peak > 0)
      row.peak_percent = 100.0 * *row.tflops / peak;
    if (!row.cublas_ms)
      if (const auto best = db.best_for(gpu_model_id, key); best && best->config.name == row.config)
        row.cublas_ms = best->cublas_median_ms;
    break;
  }
  return row;
}

StrategyResult measure_family_candidates(CandidateRunner& runner, const FamilyResumeState& rs,
                                         const StrategyOptions& strategy, const Problem& problem,
                                         ProgressReporter& progress,
                                         const std::function<bool()>& stop) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point started = Clock::now();
  StrategyHooks hooks;
  hooks.measure = [&runner, &rs](std::size_t i, Effort e) {
    return runner.measure(rs.candidates[i], e);
  };
  hooks.elapsed_s = [started] {
    return std::chrono::duration<double>(Clock::now() - started).count();
  };
  hooks.stop_requested = stop;
  hooks.progress = [&progress, flops = problem.flops()](std::size_t done, std::size_t total,
                                                        std::optional<double> best_ms) {
    std::optional<double> tflops;
    if (best_ms && *best_ms > 0) tflops = flops / *best_ms / 1e9;
    progress.update(done, total, tflops);
  };
  return run_strategy(rs.candidates.size(), rs.known, strategy, hooks);
}

std::string family_search_note(const StrategyResult& result) {
  return result.stopped ? "interrupted" : result.budget_exhausted ? "budget spent" : "";
}

}  // namespace gemmtune::tuner
