// The public form of a choice (Dispatcher::explain) and the text `explain` prints.
#include "gemmtune/explanation.hpp"

#include <algorithm>
#include <cstdio>

#include "gemmtune/choice.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune {

const char* choice_source_name(ChoiceSource source) {
  switch (source) {
    case ChoiceSource::exact: return "exact";
    case ChoiceSource::nearest: return "nearest";
    case ChoiceSource::model_default: return "model_default";
    case ChoiceSource::builtin: return "builtin";
  }
  return "?";
}

Explanation explanation_of(const Choice& choice) {
  Explanation e;
  e.config = choice.family_config.empty() ? config_name(choice.config) : choice.family_config;
  e.source = choice.source;
  e.tuned_config = choice.tuned_config;
  if (choice.tuned) {
    const TunedBest& t = *choice.tuned;
    e.tuned = TunedResult{t.problem.to_string(), t.sweep_id,  t.median_ms, t.tflops,
                          t.cublas_median_ms,    t.rel_error, t.wide_error};
  }
  e.distance = choice.distance;
  e.same_regime = choice.same_regime;
  e.wins = choice.wins;
  e.tuned_problems = choice.tuned_problems;
  e.narrowed = choice.narrowed;
  e.deterministic_only = choice.deterministic_only;
  e.precision = choice.precision;
  e.gpu_model = choice.gpu_model;
  e.runs_as = choice.runs_as;
  e.trail = choice.trail;
  e.database = choice.database;
  e.shipped = choice.shipped;
  e.shipped_other_model = choice.shipped_other_model;
  return e;
}

GemmConfig explained_config(const Explanation& e) {
  std::optional<GemmConfig> c = parse_config_name(e.config);
  if (!c)
    throw Error(Status::kInternal, "explanation names a config that does not parse: " + e.config);
  return *c;
}

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string source_line(const Explanation& e) {
  std::string s = "source   " + std::string(choice_source_name(e.source));
  switch (e.source) {
    case ChoiceSource::exact: return s + ": the tuned best of this exact problem";
    case ChoiceSource::nearest:
      return s + ": one of the fastest configs of the nearest tuned problem (distance " +
             fmt("%.3f", e.distance) +
             (e.same_regime ? ", same regime)"
                            : ", other regime: none of this regime could run it)");
    case ChoiceSource::model_default:
      return s + ": best for " + std::to_string(e.wins) + " of " +
             std::to_string(e.tuned_problems) + " tuned problems of this layout on the GPU model";
    case ChoiceSource::builtin: return s + ": the built-in config of the problem's shape class";
  }
  return s;
}

// The lines that follow from the config itself: its bits, its math and its access widths.
std::string bits_line(const GemmConfig& c, bool deterministic_only) {
  std::string s = "bits     ";
  if (!c.deterministic())
    s += "may differ in the last bits from run to run (split-K " + std::to_string(c.split_k) +
         " adds atomically; deterministic mode excludes it)";
  else if (c.split_k > 1)
    s += "the same on every run (split-K sums added in split order)";
  else
    s += "the same on every run (no split-K)";
  if (deterministic_only) s += "; deterministic mode: atomic split-K configs skipped";
  return s;
}

std::string math_line(const GemmConfig& c, Precision policy) {
  static const char* const kMath[] = {"FP32 FMA", "1xTF32 tensor cores", "3xTF32 tensor cores",
                                      "3xTF32 tensor cores, slice sums rounded in FP32",
                                      "4xTF32 tensor cores"};
  return std::string("math     ") + kMath[std::clamp(c.math, 0, 4)] + " (" +
         precision_name(c.precision()) + " class); precision policy " + precision_name(policy);
}

std::string figures_line(const TunedResult& t) {
  std::string s = "figures  " + fmt("%.4f ms", t.median_ms);
  if (t.tflops) s += fmt("  %.2f TFLOP/s", *t.tflops);
  if (t.rel_error) s += fmt("  rel. error %.2g", *t.rel_error);
  if (t.wide_error) s += fmt(" (wide-range inputs %.2g)", *t.wide_error);
  if (t.cublas_median_ms && t.median_ms > 0)
    s += fmt("  %.3fx cuBLAS", *t.cublas_median_ms / t.median_ms) +
         fmt(" (cuBLAS %.4f ms)", *t.cublas_median_ms);
  return s;
}

}  // namespace

std::string Explanation::to_string() const {
  const std::optional<GemmConfig> c = parse_config_name(config);
  std::string s = "kernel   " + config + "\n";
  s += source_line(*this) + "\n";
  if (c) s += bits_line(*c, deterministic_only) + "\n" + math_line(*c, precision) + "\n";
  if (!runs_as.empty())
    s += "runs as  " + runs_as + " (y = A^T x runs as its transpose y^T = x^T A)\n";
  if (!gpu_model.empty()) s += "gpu      " + gpu_model + "\n";
  if (!database.empty())
    s += "from     " + database +
         (!shipped              ? " (your tuning database)\n"
          : shipped_other_model ? " (shipped with gemmtune, tuned on another GPU model of this "
                                  "architecture: none is shipped for this one)\n"
                                : " (shipped with gemmtune for this GPU model)\n");
  if (!tuned_config.empty() && tuned_config != config) s += "stored   " + tuned_config + "\n";
  if (narrowed && c)
    s += "note     global accesses of A, B, C narrowed to " + std::to_string(c->width_a()) + ", " +
         std::to_string(c->width_b()) + ", " + std::to_string(c->width_c()) +
         " floats for the data's alignment\n";
  if (tuned) {
    s += "tuned    " + tuned->problem + "  (sweep " + std::to_string(tuned->sweep_id) + ")\n";
    s += figures_line(*tuned) + "\n";
  }
  for (const auto& t : trail) s += "skipped  " + t + "\n";
  return s;
}

}  // namespace gemmtune
