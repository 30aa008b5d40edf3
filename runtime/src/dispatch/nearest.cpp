// The chooser's nearest-shape step: a problem that was not tuned borrows one of the fastest
// configs of a nearby tuned problem, the one expected to keep the most of its speed here.
#include <algorithm>
#include <cstdio>
#include <tuple>

#include "chooser_steps.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/waves.hpp"

namespace gemmtune::detail {

namespace {

// How many of the nearest tuned problems compete on predicted speed.
constexpr int kNearestCompeting = 4;

// How fast `option` ran on its problem relative to that problem's best (1 for the best itself).
double relative_speed(const TunedBest& option, const TunedBest& best) {
  return option.median_ms > 0 ? best.median_ms / option.median_ms : 1.0;
}

double log_distance(const TunedProblem& t, const Problem& p) {
  return shape_distance(t.m, t.n, t.k, t.batch, p.m, p.n, p.k, p.batch);
}

// A tuned problem the step may borrow from.
struct Candidate {
  const TunedBest* best;
  bool other_alignment;  // tuned on data of a higher alignment class than the problem's
  bool other_regime;
  double distance;
};

// What nearest_candidates() left out, for the trail.
struct LeftOut {
  int across = 0;                      // on the other side of the matrix-vector boundary
  const TunedBest* too_far = nullptr;  // the nearest of those beyond kNearestReach
  double too_far_distance = 0;
};

// Whether `t` may lend to the problem by its layout and alignment class: the same layout, and the
// same class or, for a problem of 2-float accesses, alignment 4, its config's accesses narrowed
// here (GemmConfig::fitted_to), the two classes ranked together by distance. On six shapes of
// alignment 2 (H200, 2026-12-03; docs/PERFORMANCE.md, "Alignment 2 borrows from alignment 4"),
// the configs of the nearest alignment-4 problems ran at 0.796x cuBLAS, the shape-class configs
// at 0.759x, those of the nearest alignment-1 problems at 0.740x. Narrowed to single floats a
// config does four times the loads it was chosen for: alignment 1 borrows from its own class.
bool may_lend_by_class(const TunedProblem& t, const ChoiceRequest& r) {
  return same_class(t, r) || (same_layout(t, r.p) && r.alignment >= 2 && t.alignment > r.alignment);
}

// The tuned problems of the same layout but another shape, within kNearestReach, whose regime and
// alignment class may lend to the problem's (may_lend, may_lend_by_class): those of the problem's
// regime first, then the nearest first, the user's before a shipped one at equal distance.
std::vector<Candidate> nearest_candidates(const ChoiceRequest& r, LeftOut& left_out) {
  const Regime regime = regime_of(r.p.m, r.p.n, r.p.k);
  std::vector<Candidate> candidates;
  for (const auto& b : r.snapshot.bests) {
    if (!may_lend_by_class(b.problem, r) || is_exact(b.problem, r)) continue;
    const Regime tuned = regime_of(b.problem.m, b.problem.n, b.problem.k);
    if (!may_lend(tuned, regime)) {
      ++left_out.across;
      continue;
    }
    const double distance = log_distance(b.problem, r.p);
    if (distance > kNearestReach) {
      if (!left_out.too_far || distance < left_out.too_far_distance)
        left_out.too_far = &b, left_out.too_far_distance = distance;
      continue;
    }
    candidates.push_back({&b, b.problem.alignment != r.alignment, tuned != regime, distance});
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
    return std::tie(x.other_regime, x.distance, x.best->shipped, x.best->config_id) <
           std::tie(y.other_regime, y.distance, y.best->shipped, y.best->config_id);
  });
  return candidates;
}

// A candidate some of whose configs can run the problem, with the one that keeps the largest share.
struct Usable {
  const Candidate* cand;
  const TunedBest* option;  // the config chosen among the problem's fastest
  Adapted adapted;
  double share;
  int stored_split = 1;  // the option's split of K as stored, before resized_split()
};

// A borrowed config's split of K, re-sized to the problem. The tuned problem's split was sized
// for its own tiles (for split_tail, those of its last partial round) and its K: on a problem of
// more tiles or a shallower K the same split cuts K thinner than it pays for (1500x1500x100 nn ran
// 0.59x cuBLAS on 512^3's split 4, 0.83x re-sized to 1; H200, docs/PERFORMANCE.md, 2026-12-03,
// "Before any sweep: borrowed splits re-sized, four more shape classes"). The split only
// shrinks: to at most twice the blocks the config ran on its problem, and to slices of K no
// thinner than kThinnestSlice (a rule that kept them as thick as the tuned problem's gained
// nothing in a leave-one-out replay). Unchanged where the re-sized config would not run the
// problem.
constexpr double kThinnestSlice = 128;

GemmConfig resized_split(const GemmConfig& c, const TunedProblem& t, const ChoiceRequest& r) {
  if (c.split_k <= 1 || c.reduces()) return c;
  const int sms = r.snapshot.sm_count > 0 ? r.snapshot.sm_count : kAssumedSmCount;
  const auto tiles = [&](long long m, long long n, long long batch) {
    return double((m + c.bm - 1) / c.bm) * double((n + c.bn - 1) / c.bn) * double(batch);
  };
  double there = tiles(t.m, t.n, t.batch), here = tiles(r.p.m, r.p.n, r.p.batch);
  if (c.split_tail) there = split_tail_tiles(there, sms), here = split_tail_tiles(here, sms);
  const double by_fill = here > 0 ? 2 * c.split_k * there / here : 1;
  const double by_depth = double(r.p.k) / kThinnestSlice;
  const int split =
      int(std::min({nearest_pow2(by_fill), floor_pow2(by_depth), (long long)c.split_k}));
  if (split >= c.split_k) return c;
  GemmConfig out = c;
  out.split_k = split;
  if (split == 1) out.split_tail = out.ordered_splits = out.cluster_splits = out.prescale_c = false;
  if (out.validate(r.limits) || out.can_implement(r.p)) return c;
  return out;
}

// The share of its problem's best throughput that `option` (made ready as `config`) would keep
// here: its speed there relative to the best, times its predicted efficiency here relative to
// there, capped at 1 (the model knows tile fill and waves, not what else held a config back on
// a smaller problem). Throughputs of different shapes are not comparable, shares are.
// `there` is the config as it ran on its problem, `config` as it would run here.
double share_here(const ChoiceRequest& r, const GemmConfig& there_config, const GemmConfig& config,
                  const TunedBest& option, const Candidate& cand) {
  const TunedProblem& t = cand.best->problem;
  double there = predicted_efficiency(there_config, t.m, t.n, t.batch, r.snapshot.sm_count);
  double here = predicted_efficiency(config, r.p.m, r.p.n, r.p.batch, r.snapshot.sm_count);
  return std::min(1.0, there > 0 ? here / there : 1.0) * relative_speed(option, *cand.best);
}

// The same for a config of another family, by its family's prediction; without one, its speed
// there as is.
double share_here(const ChoiceRequest& r, const std::string& name, const TunedBest& option,
                  const Candidate& cand) {
  const TunedProblem& t = cand.best->problem;
  const KernelFamily& family = family_of(name);
  const int sms = r.snapshot.sm_count;
  const std::optional<double> there = family.predicted_efficiency(
      name, shape_only_problem(t.op_a, t.op_b, t.m, t.n, t.k, t.batch), sms);
  const std::optional<double> here = family.predicted_efficiency(name, r.p, sms);
  const double kept = there && here && *there > 0 ? std::min(1.0, *here / *there) : 1.0;
  return kept * relative_speed(option, *cand.best);
}

// The fastest few configs measured on the candidate's problem (best first), or its best alone
// when the snapshot holds bests only.
std::vector<const TunedBest*> options_of(const ChoiceRequest& r, const Candidate& cand) {
  std::vector<const TunedBest*> options;
  for (const auto& top : r.snapshot.top_configs)
    if (top.problem == cand.best->problem) options.push_back(&top);
  if (options.empty()) options.push_back(cand.best);
  return options;
}

// The candidate's option that keeps the largest share here; when none can run the problem,
// nullopt, and `why_not` gets the first option's reason.
std::optional<Usable> best_option(const ChoiceRequest& r, const Candidate& cand,
                                  std::string& why_not) {
  std::optional<Usable> chosen;
  for (const TunedBest* option : options_of(r, cand)) {
    Adapted a = adapt(option->config_name, r);
    if (!a.family_config.empty()) {
      const double share = share_here(r, a.family_config, *option, cand);
      if (!chosen || share > chosen->share) chosen = Usable{&cand, option, a, share};
      continue;
    }
    if (!a.config) {
      if (why_not.empty()) why_not = a.why;
      continue;
    }
    const GemmConfig stored = *a.config;
    a.config = resized_split(stored, cand.best->problem, r);
    double share = share_here(r, stored, *a.config, *option, cand);
    if (!chosen || share > chosen->share) chosen = Usable{&cand, option, a, share, stored.split_k};
  }
  return chosen;
}

// The nearest few usable candidates of the first regime group that has one: a config tuned for
// a shape that tiles evenly can leave half the GPU idle on a slightly different one, so they
// compete on share. Unusable candidates are noted in the trail.
std::vector<Usable> competitors(const ChoiceRequest& r, const std::vector<Candidate>& candidates,
                                std::vector<std::string>& trail) {
  std::vector<Usable> usable;
  SkipNotes skipped(trail, "nearest");
  for (const auto& cand : candidates) {
    if (!usable.empty() && (cand.other_regime != usable.front().cand->other_regime ||
                            int(usable.size()) == kNearestCompeting))
      break;
    std::string why_not;
    if (std::optional<Usable> chosen = best_option(r, cand, why_not))
      usable.push_back(*chosen);
    else
      skipped.add(cand.best->problem.to_string() + ": " + why_not);
  }
  skipped.count_unlisted("candidates");
  return usable;
}

// The nearest competitor whose share is within 15% of the highest; null when none competes.
const Usable* pick_competitor(const std::vector<Usable>& usable) {
  double best_share = 0;
  for (const auto& u : usable) best_share = std::max(best_share, u.share);
  for (const auto& u : usable)
    if (u.share >= 0.85 * best_share) return &u;
  return nullptr;
}

// Why the nearest competitor, or the best config of the one picked, was passed over.
void explain_pick(const ChoiceRequest& r, const std::vector<Usable>& usable, const Usable& pick,
                  std::vector<std::string>& trail) {
  const TunedBest& picked = *pick.cand->best;
  if (pick.cand->other_alignment)
    trail.push_back("nearest: no tuned problem of layout " + r.p.layout() + " and alignment " +
                    std::to_string(r.alignment) + " is nearer; " + picked.problem.to_string() +
                    " was tuned at alignment " + std::to_string(picked.problem.alignment) +
                    ", its config's accesses narrowed here");
  if (&pick != &usable.front()) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "nearest: %s passed over: its configs would keep %.0f%% of its best throughput "
                  "here, %s's %.0f%%",
                  usable.front().cand->best->problem.to_string().c_str(),
                  100 * usable.front().share, picked.problem.to_string().c_str(), 100 * pick.share);
    trail.push_back(buf);
  }
  if (pick.adapted.config && pick.adapted.config->split_k != pick.stored_split)
    trail.push_back("nearest: split-K " + std::to_string(pick.stored_split) + " of " +
                    picked.problem.to_string() + "'s config re-sized to " +
                    std::to_string(pick.adapted.config->split_k) +
                    " for this problem's tiles and depth");
  if (pick.option->config_name != picked.config_name) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "nearest: %s's best %s passed over for its runner-up (%.0f%% of the best there)",
                  picked.problem.to_string().c_str(), picked.config_name.c_str(),
                  100 * relative_speed(*pick.option, picked));
    trail.push_back(buf);
  }
}

}  // namespace

bool choose_nearest(const ChoiceRequest& r, Choice& c) {
  LeftOut left_out;
  const std::vector<Candidate> candidates = nearest_candidates(r, left_out);
  const std::vector<Usable> usable = competitors(r, candidates, c.trail);
  if (const Usable* pick = pick_competitor(usable)) {
    explain_pick(r, usable, *pick, c.trail);
    take(c, ChoiceSource::nearest, pick->adapted, pick->option->config_name);
    c.tuned = *pick->option;
    c.distance = pick->cand->distance;
    c.same_regime = !pick->cand->other_regime;
    return true;
  }
  if (candidates.empty() && left_out.too_far) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "nearest: the nearest tuned problem of layout %s and alignment %d, %s, is at "
                  "distance %.2f, beyond %.1f: too far to lend a config",
                  r.p.layout().c_str(), r.alignment, left_out.too_far->problem.to_string().c_str(),
                  left_out.too_far_distance, kNearestReach);
    c.trail.push_back(buf);
  } else if (candidates.empty() && left_out.across > 0)
    c.trail.push_back("nearest: the " + std::to_string(left_out.across) +
                      " tuned problems of layout " + r.p.layout() + " and alignment " +
                      std::to_string(r.alignment) +
                      " are on the other side of the matrix-vector boundary (min(M, N) <= 8)");
  else if (candidates.empty() && !r.snapshot.bests.empty())
    c.trail.push_back("nearest: no tuned problem of layout " + r.p.layout() + " and alignment " +
                      std::to_string(r.alignment));
  return false;
}

}  // namespace gemmtune::detail
