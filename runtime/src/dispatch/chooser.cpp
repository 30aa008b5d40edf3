// The fallback chain: exact -> nearest -> shape class -> model default -> default config (see
// choice.hpp; under the fp32 and tf32 policies the model default comes before the shape class).
// Each step either takes a config into the choice or notes in its trail why it could not.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "chooser_steps.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/sgemm/family.hpp"
#include "gemmtune/waves.hpp"

namespace gemmtune {
namespace detail {

bool same_layout(const TunedProblem& t, const Problem& p) {
  return t.op_a == p.op_a && t.op_b == p.op_b;
}

std::optional<std::string> precision_refusal(const std::string& name, Precision precision,
                                             const ChoiceRequest& r, const TunedProblem* tuned_on) {
  if (precision > r.precision)
    return name + " computes with " + precision_name(precision) +
           " accuracy; the precision policy is " + precision_name(r.precision);
  if (precision != Precision::fp32 || r.precision != Precision::fp32) return std::nullopt;
  if (tuned_on) {
    if (r.fp32_qualified && r.fp32_qualified->on_problem.count({tuned_on->to_string(), name}))
      return std::nullopt;
    return name +
           " (3xTF32) was not measured as accurate as the fastest FP32 FMA kernel on this problem, "
           "on both "
           "verification inputs";
  }
  if (r.fp32_qualified && r.fp32_qualified->everywhere.count(name)) return std::nullopt;
  return name +
         " (3xTF32) was not measured as accurate as the FP32 FMA kernels on every tuned problem "
         "that "
         "measured it, on both verification inputs";
}

namespace {
// A stored config of another family than sgemm, made ready by its family: for the exact problem
// and, weighed by the family's predicted_efficiency(), for the nearest and model-default steps.
Adapted adapt_other(const KernelFamily& family, const std::string& name, const ChoiceRequest& r,
                    const TunedProblem* tuned_on) {
  Adapted out;
  if (auto why = precision_refusal(name, family.precision(name), r, tuned_on)) {
    out.why = *why;
    return out;
  }
  if (r.deterministic && !family.deterministic(name)) {
    out.why = name + " is not deterministic (its family says its bits may differ from run to run)";
    return out;
  }
  if (auto why = family.validate(name, r.limits)) {
    out.why = name + " no longer validates: " + *why;
    return out;
  }
  if (auto why = family.can_implement(name, r.p)) {
    out.why = name + " cannot run this problem: " + *why;
    return out;
  }
  out.family_config = name;
  return out;
}
}  // namespace

Adapted adapt(const std::string& name, const ChoiceRequest& r, const TunedProblem* tuned_on) {
  Adapted out;
  std::optional<GemmConfig> cfg = parse_config_name(name);
  if (!cfg) {
    const KernelFamily* family = family_registry().find(name);
    if (family && family != &sgemm_kernel_family()) return adapt_other(*family, name, r, tuned_on);
    out.why = "'" + name + "' is not a config name this version knows";
    return out;
  }
  if (auto why = cfg->validate(r.limits)) {
    out.why = name + " no longer validates: " + *why;
    return out;
  }
  if (auto why = precision_refusal(name, cfg->precision(), r, tuned_on)) {
    out.why = *why;
    return out;
  }
  if (r.deterministic && !cfg->deterministic()) {
    out.why = name + " is not deterministic (split-K " + std::to_string(cfg->split_k) +
              " adds its parts atomically, in the order they finish)";
    return out;
  }
  const GemmConfig fitted = cfg->fitted_to(r.p);
  out.narrowed = fitted.width_a() < cfg->width_a() || fitted.width_b() < cfg->width_b() ||
                 fitted.width_c() < cfg->width_c();
  cfg = fitted;
  if (auto why = cfg->can_implement(r.p)) {
    out.why = name + " cannot run this problem: " + *why;
    return out;
  }
  out.config = cfg;
  return out;
}

void take(Choice& c, ChoiceSource source, const Adapted& a, const std::string& stored) {
  c.source = source;
  if (a.config) c.config = *a.config;
  c.family_config = a.family_config;
  c.narrowed = a.narrowed;
  c.tuned_config = stored;
}

bool same_class(const TunedProblem& t, const ChoiceRequest& r) {
  return same_layout(t, r.p) && t.alignment == r.alignment;
}

bool is_exact(const TunedProblem& t, const ChoiceRequest& r) {
  return same_class(t, r) && t.m == r.p.m && t.n == r.p.n && t.k == r.p.k && t.batch == r.p.batch;
}

namespace {

// Why the user's database has no tuned data for the GPU model, when it has none: every answer
// then comes from a shipped database or the built-in default.
void note_missing_data(const TuningSnapshot& s, std::vector<std::string>& trail) {
  if (std::any_of(s.bests.begin(), s.bests.end(), [](const TunedBest& b) { return !b.shipped; }))
    return;
  for (const auto& n : s.notes) trail.push_back("tuning data: " + n);
  if (s.notes.empty()) trail.push_back("tuning data: none for this GPU model");
}

// 1. The tuned best of this exact problem class; when it cannot be used (deterministic mode, a
// split-K best), the next fastest configs measured on it.
bool choose_exact(const ChoiceRequest& r, Choice& c) {
  bool tuned = false;
  std::vector<const TunedBest*> measured;
  std::set<std::string> names;  // top_configs repeats each problem's best
  for (const auto* list : {&r.snapshot.bests, &r.snapshot.top_configs})
    for (const auto& b : *list)
      if (is_exact(b.problem, r) && names.insert(b.config_name).second) measured.push_back(&b);
  for (const TunedBest* b : measured) {
    tuned = true;
    Adapted a = adapt(b->config_name, r, &b->problem);
    if (a.config || !a.family_config.empty()) {
      take(c, ChoiceSource::exact, a, b->config_name);
      c.tuned = *b;
      return true;
    }
    c.trail.push_back("exact: " + a.why);
  }
  if (!tuned && !r.snapshot.bests.empty())
    c.trail.push_back("exact: this problem was not tuned on this GPU model");
  return false;
}

// A stored config and how many tuned problems of the layout it is best for.
struct Wins {
  std::string name;
  int count = 0;
  long long config_id = 0;  // the lowest of its rows: ties of count go to the lowest
};

// Whether the precision policy may run `name` as far as its class (its family's word) tells. A
// name of no family is left to adapt(), which says why it cannot run.
bool policy_admits(const std::string& name, const ChoiceRequest& r) {
  if (const std::optional<GemmConfig> cfg = parse_config_name(name))
    return !precision_refusal(name, cfg->precision(), r);
  const KernelFamily* family = family_registry().find(name);
  return !family || !precision_refusal(name, family->precision(name), r);
}

// The configs best for tuned problems of the layout (any alignment: access widths are fitted)
// on the problem's side of the matrix-vector boundary, most wins first; `layout_problems` gets how many tuned problems the layout has. A problem's best is its
// fastest config (of its best and top configs) of a class the precision policy admits: under
// ieee, a problem whose overall best is a tensor-core config counts for its fastest FMA config.
// Counted over the problems of one database: the user's when they include any of the layout,
// else the shipped one's (`shipped` says which).
std::vector<Wins> rank_by_wins(const ChoiceRequest& r, int& layout_problems, bool& shipped) {
  // The problems of the layout on the problem's side of the matrix-vector boundary (may_lend).
  const Regime regime = regime_of(r.p.m, r.p.n, r.p.k);
  const auto counts = [&](const TunedProblem& t) {
    return same_layout(t, r.p) && may_lend(regime_of(t.m, t.n, t.k), regime);
  };
  shipped = std::none_of(r.snapshot.bests.begin(), r.snapshot.bests.end(),
                         [&](const TunedBest& b) { return !b.shipped && counts(b.problem); });
  std::map<std::string, const TunedBest*>
      best_of;  // by problem; null: none of its configs admitted
  for (const auto* list : {&r.snapshot.bests, &r.snapshot.top_configs})
    for (const auto& b : *list) {
      if (!counts(b.problem) || b.shipped != shipped) continue;
      const TunedBest*& best = best_of[b.problem.to_string()];
      if (policy_admits(b.config_name, r) && (!best || b.median_ms < best->median_ms)) best = &b;
    }
  layout_problems = int(best_of.size());
  std::map<std::string, Wins> wins;
  for (const auto& [problem, b] : best_of) {
    if (!b) continue;
    Wins& w = wins[b->config_name];
    w.name = b->config_name;
    if (w.count++ == 0 || b->config_id < w.config_id) w.config_id = b->config_id;
  }
  std::vector<Wins> ranked;
  for (const auto& [name, w] : wins) ranked.push_back(w);
  std::sort(ranked.begin(), ranked.end(), [](const Wins& x, const Wins& y) {
    return std::tie(y.count, x.config_id) < std::tie(x.count, y.config_id);
  });
  return ranked;
}

// 4. The config best for the most tuned problems of this layout on the GPU model.
bool choose_model_default(const ChoiceRequest& r, Choice& c) {
  int layout_problems = 0;
  bool shipped = false;
  const std::vector<Wins> ranked = rank_by_wins(r, layout_problems, shipped);
  SkipNotes skipped(c.trail, "model_default");
  for (const Wins& w : ranked) {
    Adapted a = adapt(w.name, r);
    if (a.config || !a.family_config.empty()) {
      take(c, ChoiceSource::model_default, a, w.name);
      c.wins = w.count;
      c.tuned_problems = layout_problems;
      c.shipped = shipped;
      return true;
    }
    skipped.add(a.why);
  }
  skipped.count_unlisted("configs");
  if (ranked.empty() && layout_problems > 0)
    c.trail.push_back("model_default: the precision policy " +
                      std::string(precision_name(r.precision)) +
                      " admits none of the configs of the " + std::to_string(layout_problems) +
                      " tuned problems of layout " + r.p.layout());
  else if (ranked.empty() && !r.snapshot.bests.empty())
    c.trail.push_back("model_default: no tuned problem of layout " + r.p.layout() +
                      " on this GPU model among the " +
                      (regime_of(r.p.m, r.p.n, r.p.k) == Regime::vector
                           ? "matrix-vector problems (min(M, N) <= 8)"
                           : "problems of min(M, N) > 8"));
  return false;
}

// 3. The built-in config of the problem's shape class; false, noted, where it cannot run.
bool choose_shape_class(const ChoiceRequest& r, Choice& c) {
  std::string why_not;
  std::optional<GemmConfig> cfg = shape_class_config(r, why_not);
  if (!cfg) {
    c.trail.push_back("builtin: " + why_not);
    return false;
  }
  c.source = ChoiceSource::builtin;
  c.config = *cfg;
  return true;
}

// 5. The default that runs anything of the layout.
void choose_default(const ChoiceRequest& r, Choice& c) {
  c.source = ChoiceSource::builtin;
  c.config = default_config(r.limits, r.p);
}

// Which file a tuned choice's data came from, and that file's GPU model.
void note_database(const TuningSnapshot& s, Choice& c) {
  if (c.tuned) c.shipped = c.tuned->shipped;
  c.database = c.shipped ? s.shipped_database : s.database;
  c.gpu_model = c.shipped ? s.shipped_gpu_model : s.gpu_model;
  c.shipped_other_model = c.shipped && s.shipped_other_model;
}

}  // namespace
}  // namespace detail

double predicted_efficiency(const GemmConfig& c, long long m, long long n, long long batch,
                            int sm_count) {
  long long rows = (m + c.bm - 1) / c.bm, cols = (n + c.bn - 1) / c.bn;
  double area = double(m * n) / double(rows * c.bm * cols * c.bn);
  if (sm_count <= 0) return area;
  // In double: huge shapes and batches overflow 64 bits, and only the ratio matters.
  const double tiles = double(rows) * double(cols) * double(batch);
  if (c.split_tail && !is_matrix_vector(m, n)) {
    // In split-sized units of work: whole rounds of one tile per SM, then the rest split.
    const double s = c.split_k, rest = split_tail_tiles(tiles, sm_count);
    const double busiest =
        (tiles - rest) / sm_count * s + waves_of(rest * s, sm_count, 1).on_busiest;
    return area * tiles * s / (busiest * sm_count);
  }
  return area * predicted_fill(tiles * c.split_k, sm_count, c.occupancy, m, n);
}

Fp32Qualified fp32_qualified_configs(const TuningSnapshot& s) {
  // Per tuned problem: its fastest FP32 FMA config, the one the ieee policy runs (top_configs
  // lists each problem's configs fastest first), then every 3xTF32 measurement against its
  // errors on both inputs. An error missing on either side shows nothing: not as accurate.
  std::map<std::string, const TunedBest*> fastest_fma;
  for (const auto& b : s.top_configs) {
    auto c = parse_config_name(b.config_name);
    if (c && c->precision() == Precision::ieee)
      fastest_fma.emplace(b.problem.to_string(), &b);  // the first stays
  }
  auto no_larger = [](const std::optional<double>& e, const std::optional<double>& fma) {
    return e && fma && *e <= *fma;
  };
  Fp32Qualified out;
  std::set<std::string> failed;
  for (const auto& b : s.top_configs) {
    auto c = parse_config_name(b.config_name);
    if (!c || c->precision() != Precision::fp32) continue;
    auto ref = fastest_fma.find(b.problem.to_string());
    const bool as_accurate = ref != fastest_fma.end() &&
                             no_larger(b.rel_error, ref->second->rel_error) &&
                             no_larger(b.wide_error, ref->second->wide_error);
    if (as_accurate) {
      out.on_problem.insert({b.problem.to_string(), b.config_name});
      out.everywhere.insert(b.config_name);
    } else {
      failed.insert(b.config_name);
    }
  }
  for (const auto& name : failed) out.everywhere.erase(name);
  return out;
}

Chooser::Chooser(const DeviceLimits& limits, TuningSnapshot snapshot, bool deterministic,
                 Precision precision)
    : limits_(limits),
      deterministic_(deterministic),
      precision_(precision),
      snapshot_(std::move(snapshot)) {
  if (precision_ == Precision::fp32) fp32_qualified_ = fp32_qualified_configs(snapshot_);
}

Choice Chooser::choose(const Problem& p) const {
  using namespace detail;
  const ChoiceRequest r{p,          p.alignment(),   limits_, snapshot_, deterministic_,
                        precision_, &fp32_qualified_};
  Choice c;
  c.deterministic_only = deterministic_;
  c.precision = precision_;
  c.gpu_model = snapshot_.gpu_model;
  note_missing_data(snapshot_, c.trail);
  if (choose_exact(r, c) || choose_nearest(r, c)) {
    note_database(snapshot_, c);
    return c;
  }
  // The shape-class configs are FP32 FMA kernels: under a policy that admits tensor-core
  // classes, a tuned config of those classes (the model default) is expected to be faster.
  const bool tuned_first = precision_ != Precision::ieee;
  if (tuned_first && choose_model_default(r, c)) {
    note_database(snapshot_, c);
    return c;
  }
  if (choose_shape_class(r, c)) return c;
  if (!tuned_first && choose_model_default(r, c)) {
    note_database(snapshot_, c);
    return c;
  }
  choose_default(r, c);
  return c;
}

}  // namespace gemmtune
