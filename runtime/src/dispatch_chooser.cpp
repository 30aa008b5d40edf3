// The fallback chain: exact -> nearest -> model default -> built-in (see choice.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "gemmtune/choice.hpp"

namespace gemmtune {

namespace {

// A stored config name made ready for `p`: parsed, validated, vec lowered to the data's
// alignment (then validated again), checked against the problem. `why` says what failed.
struct Adapted {
  std::optional<GemmConfig> config;
  std::string why;
  bool lowered = false;
};

Adapted adapt(const std::string& name, const DeviceLimits& limits, const Problem& p) {
  Adapted out;
  std::optional<GemmConfig> cfg = parse_config_name(name);
  if (!cfg) {
    out.why = "'" + name + "' is not a config name this version knows";
    return out;
  }
  if (auto why = cfg->validate(limits)) {
    out.why = name + " no longer validates: " + *why;
    return out;
  }
  const int alignment = cfg->widest_vec(p);
  if (cfg->vec > alignment) {
    cfg->vec = alignment;
    out.lowered = true;
    if (auto why = cfg->validate(limits)) {
      out.why = name + " with vec " + std::to_string(alignment) + " is invalid: " + *why;
      return out;
    }
  }
  if (auto why = cfg->can_implement(p)) {
    out.why = name + " cannot run this problem: " + *why;
    return out;
  }
  out.config = cfg;
  return out;
}

bool same_layout(const TunedProblem& t, const Problem& p) { return t.op_a == p.op_a && t.op_b == p.op_b; }

bool same_class(const TunedProblem& t, const Problem& p, int alignment) {
  return same_layout(t, p) && t.alignment == alignment;
}

bool same_problem(const TunedProblem& a, const TunedProblem& b) {
  return a.op_a == b.op_a && a.op_b == b.op_b && a.m == b.m && a.n == b.n && a.k == b.k && a.batch == b.batch &&
         a.alignment == b.alignment;
}

// How fast `option` ran on its problem relative to that problem's best (1 for the best itself).
double relative_speed(const TunedBest& option, const TunedBest& best) {
  return option.median_ms > 0 ? best.median_ms / option.median_ms : 1.0;
}

bool is_exact(const TunedProblem& t, const Problem& p, int alignment) {
  return same_class(t, p, alignment) && t.m == p.m && t.n == p.n && t.k == p.k && t.batch == p.batch;
}

// Euclidean distance of log(M), log(N), log(K) and log(batch): a shape twice as large in one
// dimension is as far as one half as large.
double log_distance(const TunedProblem& t, const Problem& p) {
  auto d = [](long long a, long long b) { return std::log(double(std::max(1LL, a))) - std::log(double(std::max(1LL, b))); };
  double dm = d(t.m, p.m), dn = d(t.n, p.n), dk = d(t.k, p.k), db = d(t.batch, p.batch);
  return std::sqrt(dm * dm + dn * dn + dk * dk + db * db);
}

// Notes how many more candidates were skipped than the trail lists.
constexpr int kTrailListed = 6;

void note_skipped(std::vector<std::string>& trail, int& listed, int& unlisted, const std::string& line) {
  if (listed < kTrailListed) {
    trail.push_back(line);
    ++listed;
  } else {
    ++unlisted;
  }
}

// How many of the nearest tuned problems compete on predicted speed.
constexpr int kNearestCompeting = 4;

}  // namespace

double predicted_efficiency(const GemmConfig& c, long long m, long long n, long long batch, int sm_count) {
  long long rows = (m + c.bm - 1) / c.bm, cols = (n + c.bn - 1) / c.bn;
  double area = double(m * n) / double(rows * c.bm * cols * c.bn);
  if (sm_count <= 0) return area;
  long long blocks = rows * cols * batch * c.split_k, slots = (long long)sm_count * c.occupancy;
  long long waves = (blocks + slots - 1) / slots;
  return area * double(blocks) / double(waves * slots);
}

Chooser::Chooser(const DeviceLimits& limits, TuningSnapshot snapshot)
    : limits_(limits), snapshot_(std::move(snapshot)) {}

Choice Chooser::choose(const Problem& p) const {
  Choice c;
  c.gpu_model = snapshot_.gpu_model;
  const int alignment = p.alignment();
  const auto& bests = snapshot_.bests;
  if (bests.empty()) {
    for (const auto& n : snapshot_.notes) c.trail.push_back("tuning data: " + n);
    if (snapshot_.notes.empty()) c.trail.push_back("tuning data: none for this GPU model");
  }

  auto take = [&](ChoiceSource source, const Adapted& a, const std::string& stored) {
    c.source = source;
    c.config = *a.config;
    c.vec_lowered = a.lowered;
    c.tuned_config = stored;
  };

  // 1. The tuned best of this exact problem class.
  bool exact_found = false;
  for (const auto& b : bests) {
    if (!is_exact(b.problem, p, alignment)) continue;
    exact_found = true;
    Adapted a = adapt(b.config_name, limits_, p);
    if (a.config) {
      take(ChoiceSource::exact, a, b.config_name);
      c.tuned = b;
      return c;
    }
    c.trail.push_back("exact: " + a.why);
  }
  if (!exact_found && !bests.empty()) c.trail.push_back("exact: this problem was not tuned on this GPU model");

  // 2. The nearest tuned problem of the same layout and alignment class, same regime first.
  const Regime regime = regime_of(p.m, p.n, p.k);
  struct Candidate {
    const TunedBest* best;
    bool other_regime;
    double distance;
  };
  std::vector<Candidate> candidates;
  for (const auto& b : bests) {
    if (!same_class(b.problem, p, alignment) || is_exact(b.problem, p, alignment)) continue;
    bool other = regime_of(b.problem.m, b.problem.n, b.problem.k) != regime;
    candidates.push_back({&b, other, log_distance(b.problem, p)});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
    return std::tie(x.other_regime, x.distance, x.best->config_id) <
           std::tie(y.other_regime, y.distance, y.best->config_id);
  });
  // The nearest few usable ones of the first regime group compete: a config tuned for a shape
  // that tiles evenly can leave half the GPU idle on a slightly different one. Each of their
  // fastest configs gets a share: its throughput there relative to the problem's best, times the
  // ratio of its predicted efficiency here to there, capped at 1 (the model knows tile fill and
  // waves, not what else held a config back on a smaller problem). Throughputs of different
  // shapes are not comparable, shares are: the nearest problem whose best share is within 15%
  // of the highest wins, with that config.
  struct Usable {
    const Candidate* cand;
    const TunedBest* option;  // the config chosen among the problem's fastest
    Adapted adapted;
    double share;
  };
  std::vector<Usable> usable;
  int listed = 0, unlisted = 0;
  for (const auto& cand : candidates) {
    if (!usable.empty() && (cand.other_regime != usable.front().cand->other_regime ||
                            int(usable.size()) == kNearestCompeting))
      break;
    const TunedProblem& t = cand.best->problem;
    std::vector<const TunedBest*> options;
    for (const auto& top : snapshot_.top_configs)
      if (same_problem(top.problem, t)) options.push_back(&top);
    if (options.empty()) options.push_back(cand.best);  // a snapshot with bests only
    std::optional<Usable> chosen;
    std::string why_not;
    for (const TunedBest* option : options) {
      Adapted a = adapt(option->config_name, limits_, p);
      if (!a.config) {
        if (why_not.empty()) why_not = a.why;
        continue;
      }
      double there = predicted_efficiency(*a.config, t.m, t.n, t.batch, snapshot_.sm_count);
      double here = predicted_efficiency(*a.config, p.m, p.n, p.batch, snapshot_.sm_count);
      double share = std::min(1.0, there > 0 ? here / there : 1.0) * relative_speed(*option, *cand.best);
      if (!chosen || share > chosen->share) chosen = Usable{&cand, option, a, share};
    }
    if (!chosen) {
      note_skipped(c.trail, listed, unlisted, "nearest: " + t.to_string() + ": " + why_not);
      continue;
    }
    usable.push_back(*chosen);
  }
  if (unlisted) c.trail.push_back("nearest: " + std::to_string(unlisted) + " more candidates skipped");
  double best_share = 0;
  for (const auto& u : usable) best_share = std::max(best_share, u.share);
  const Usable* pick = nullptr;
  for (const auto& u : usable)
    if (u.share >= 0.85 * best_share) {
      pick = &u;
      break;
    }
  if (pick && pick != &usable.front()) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "nearest: %s passed over: its configs would keep %.0f%% of its best throughput here, %s's %.0f%%",
                  usable.front().cand->best->problem.to_string().c_str(), 100 * usable.front().share,
                  pick->cand->best->problem.to_string().c_str(), 100 * pick->share);
    c.trail.push_back(buf);
  }
  if (pick && pick->option->config_name != pick->cand->best->config_name) {
    char buf[240];
    std::snprintf(buf, sizeof buf, "nearest: %s's best %s passed over for its runner-up (%.0f%% of the best there)",
                  pick->cand->best->problem.to_string().c_str(), pick->cand->best->config_name.c_str(),
                  100 * relative_speed(*pick->option, *pick->cand->best));
    c.trail.push_back(buf);
  }
  if (pick) {
    take(ChoiceSource::nearest, pick->adapted, pick->option->config_name);
    c.tuned = *pick->option;
    c.distance = pick->cand->distance;
    c.same_regime = !pick->cand->other_regime;
    return c;
  }
  if (candidates.empty() && !bests.empty())
    c.trail.push_back("nearest: no tuned problem of layout " + p.layout() + " and alignment " +
                      std::to_string(alignment));

  // 3. The config best for the most tuned problems of this layout (any alignment: vec is lowered).
  struct Wins {
    int count = 0;
    long long config_id = 0;
  };
  std::map<std::string, Wins> wins;
  int layout_problems = 0;
  for (const auto& b : bests) {
    if (!same_layout(b.problem, p)) continue;
    ++layout_problems;
    Wins& w = wins[b.config_name];
    if (w.count++ == 0 || b.config_id < w.config_id) w.config_id = b.config_id;
  }
  std::vector<std::pair<std::string, Wins>> ranked(wins.begin(), wins.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
    return std::tie(y.second.count, x.second.config_id) < std::tie(x.second.count, y.second.config_id);
  });
  listed = unlisted = 0;
  for (const auto& [name, w] : ranked) {
    Adapted a = adapt(name, limits_, p);
    if (a.config) {
      take(ChoiceSource::model_default, a, name);
      c.wins = w.count;
      c.tuned_problems = layout_problems;
      return c;
    }
    note_skipped(c.trail, listed, unlisted, "model_default: " + a.why);
  }
  if (unlisted) c.trail.push_back("model_default: " + std::to_string(unlisted) + " more configs skipped");
  if (ranked.empty() && !bests.empty())
    c.trail.push_back("model_default: no tuned problem of layout " + p.layout() + " on this GPU model");

  // 4. The built-in default.
  c.source = ChoiceSource::builtin;
  c.config = default_config(limits_, p);
  return c;
}

}  // namespace gemmtune
