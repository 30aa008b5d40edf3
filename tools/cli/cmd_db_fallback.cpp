// `gemmtune db fallback`: what the dispatcher gives a problem no database holds, replayed on a
// recording without a GPU. Each tuned problem is left out in turn; the chooser, seeing the
// database's other problems as a shipped or user file would hold them, picks a kernel for it;
// that kernel's recorded time on the left-out problem, where the recording has one, is set
// against the recorded best and cuBLAS. A recording of many configs a problem (a ship sweep's
// scratch file) answers for more picks than a shipped file of each problem's fastest few.
#include <cmath>

#include "db_commands.hpp"
#include "gemmtune/choice.hpp"
#include "gemmtune/explanation.hpp"
#include "gemmtune/tuner/replay.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct FallbackOptions {
  std::string db;
  std::string device;
  ProblemFilter filter;
};

std::vector<Column> fallback_columns() {
  return {problem_column(),
          {"step", "step"},
          {"config", "config"},
          {"recorded", "pick_ms"},
          {"recorded best", "best_ms"},
          {"of best", "of_best"},
          {"cuBLAS", "cublas_ms"},
          {"speedup", "speedup"}};
}

// `s` without the rows of `left_out`.
TuningSnapshot without(const TuningSnapshot& s, const TunedProblem& left_out) {
  TuningSnapshot out = s;
  const auto of_it = [&](const TunedBest& b) { return b.problem == left_out; };
  std::erase_if(out.bests, of_it);
  std::erase_if(out.top_configs, of_it);
  return out;
}

// Per step: the picks whose time was recorded, and the logs of their ratios.
struct StepTally {
  int problems = 0, recorded = 0, below_080 = 0;
  double log_of_best = 0, log_speedup = 0;
  int with_cublas = 0;
};

std::string summary(const std::map<std::string, StepTally>& tally) {
  std::string out;
  for (const auto& [step, t] : tally) {
    out += format("%-14s %4d problems, %4d picks recorded", step.c_str(), t.problems, t.recorded);
    if (t.recorded > 0)
      out += format(": %.3f of the recorded best", std::exp(t.log_of_best / t.recorded));
    if (t.with_cublas > 0)
      out += format(", %.3fx cuBLAS, %d below 0.80x", std::exp(t.log_speedup / t.with_cublas),
                    t.below_080);
    out += " (geometric means)\n";
  }
  return out;
}

void run_fallback(FallbackOptions& o) {
  o.filter.parse();
  auto db = open_for_reading(o.db);
  if (report_if_empty(db, false)) return;
  const std::string path = db->path();
  const auto gpus = db->gpu_models();
  std::string text;
  for (const auto* g : select_gpus(gpus, o.device, path)) {
    const db::GpuModel& model = g->model;
    const TuningSnapshot snapshot = load_tuning_snapshot(
        path, GpuIdentity{model.name, model.cc_major, model.cc_minor, model.sm_count});
    const DeviceLimits limits = DeviceLimits::for_arch("sm_" + std::to_string(model.cc_major) +
                                                       std::to_string(model.cc_minor));
    std::map<std::string, std::map<std::string, double>> recorded;  // problem -> config -> ms
    for (const auto& p : tuner::load_recorded(*db, g->id))
      for (std::size_t i = 0; i < p.configs.size(); ++i)
        recorded[problem_label(p.key)][config_name(p.configs[i])] = p.median_ms[i];
    Table table(fallback_columns());
    std::map<std::string, StepTally> tally;
    for (const TunedBest& best : snapshot.bests) {
      const TunedProblem& t = best.problem;
      const Problem p = shape_only_problem(t.op_a, t.op_b, int(t.m), int(t.n), int(t.k),
                                           int(t.batch), t.alignment);
      const db::ProblemKey key = to_db(p);
      if (!o.filter.accepts(key)) continue;
      const Choice c = Chooser(limits, without(snapshot, t)).choose(p);
      const std::string name = c.family_config.empty() ? config_name(c.config) : c.family_config;
      const std::string label = problem_label(key);
      std::optional<double> ms;
      if (auto r = recorded.find(label); r != recorded.end())
        if (auto it = r->second.find(name); it != r->second.end()) ms = it->second;
      StepTally& s = tally[std::string(choice_source_name(c.source))];
      ++s.problems;
      std::optional<double> of_best, speedup;
      if (ms && *ms > 0 && best.median_ms > 0) {
        of_best = best.median_ms / *ms;
        ++s.recorded, s.log_of_best += std::log(*of_best);
        if (best.cublas_median_ms) {
          speedup = *best.cublas_median_ms / *ms;
          ++s.with_cublas, s.log_speedup += std::log(*speedup);
          s.below_080 += *speedup < 0.80;
        }
      }
      table.add_row({Cell::problem(label, key),
                     Cell::str(std::string(choice_source_name(c.source))), Cell::str(name),
                     time_cell(ms), time_cell(best.median_ms), fixed_cell(of_best, 3),
                     time_cell(best.cublas_median_ms), fixed_cell(speedup, 3)});
    }
    if (table.empty()) continue;
    text += (text.empty() ? "" : "\n") + describe_gpu(model) + ", each problem left out\n" +
            table.render() + summary(tally);
  }
  if (text.empty()) throw usage_error("no tuned problem matches --shape/--layout");
  print(text);
}

void add_db_fallback(CLI::App& db) {
  auto o = std::make_shared<FallbackOptions>();
  auto* cmd = db.add_subcommand(
      "fallback",
      "Replay the dispatcher on problems no database holds: each tuned problem left out in turn, "
      "its pick timed from the recording (no GPU)");
  cmd->footer(
      "Per problem: the step of the dispatcher's chain that answered with the problem left out of "
      "the\n"
      "database (nearest, builtin, model_default), the config it picked, that config's recorded "
      "time\n"
      "on the problem (- when the recording has none: time it with `gemmtune try`), the "
      "recorded best,\n"
      "their ratio (1: the pick is the recorded best), cuBLAS and the pick's speedup over it. "
      "Then, per\n"
      "step, the geometric means over the picks recorded. Picks whose time is recorded lean "
      "towards\n"
      "good ones (a recording holds what a search found worth timing): compare rules on the same "
      "recording.");
  add_db_option(cmd, o->db);
  cmd->add_option("--gpu-model", o->device,
                  "Only this GPU model (its name, or a unique part of it)");
  o->filter.add_options(cmd);
  cmd->callback([o] { run_fallback(*o); });
}

const DbRegistration kRegistration("fallback", add_db_fallback);

}  // namespace
}  // namespace gemmtune::cli
