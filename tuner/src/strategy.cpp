#include "gemmtune/tuner/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "gemmtune/error.hpp"

namespace gemmtune::tuner {

StrategyKind parse_strategy(const std::string& text) {
  if (text == "exhaustive") return StrategyKind::exhaustive;
  if (text == "random") return StrategyKind::random;
  if (text == "halving") return StrategyKind::halving;
  if (text == "model") return StrategyKind::model;
  throw Error(Status::kInvalidArgument,
              "bad strategy '" + text + "': use exhaustive, random, halving or model");
}

const char* strategy_name(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::exhaustive: return "exhaustive";
    case StrategyKind::random: return "random";
    case StrategyKind::halving: return "halving";
    case StrategyKind::model: return "model";
  }
  return "?";
}

namespace {

// The state of one run: latest median per candidate, counters, and the stop rules.
class Search {
 public:
  Search(const std::map<std::size_t, double>& known, const StrategyOptions& o,
         const StrategyHooks& h)
      : times_(known), options_(o), hooks_(h) {}

  // False (and nothing measured) once the budget is spent or a stop was requested.
  bool may_measure() {
    if (hooks_.stop_requested && hooks_.stop_requested()) result_.stopped = true;
    // The budget always allows min_measurements (at least one, so that every problem gets a
    // result).
    if (options_.budget_s > 0 &&
        result_.measurements >= std::max<std::size_t>(1, options_.min_measurements) &&
        hooks_.elapsed_s() >= options_.budget_s)
      result_.budget_exhausted = true;
    return !result_.stopped && !result_.budget_exhausted;
  }

  // Measures each of `indices` at `effort`, in order; failures leave the race for good. `after`
  // is called with the number measured so far after each.
  bool measure_all(const std::vector<std::size_t>& indices, Effort effort,
                   const std::function<void(std::size_t)>& after = {}) {
    for (std::size_t n = 0; n < indices.size(); ++n) {
      const std::size_t i = indices[n];
      if (!may_measure()) return false;
      bool first = !times_.count(i) && !failed_.count(i);
      std::optional<double> ms = hooks_.measure(i, effort);
      ++result_.measurements;
      if (first) ++result_.new_candidates;
      if (ms) {
        times_[i] = *ms;
        note_best(*ms);
      } else {
        times_.erase(i);
        failed_.insert(i);
      }
      report();
      if (after) after(n + 1);
    }
    return true;
  }

  // Whether candidate `i` was measured (or failed) in this run or before it.
  bool timed(std::size_t i) const { return times_.count(i) || failed_.count(i); }

  // The `n` fastest candidates that have a time, fastest first.
  std::vector<std::size_t> leaders(std::size_t n) const {
    std::vector<std::pair<double, std::size_t>> ranked;
    for (auto [i, ms] : times_) ranked.push_back({ms, i});
    std::sort(ranked.begin(), ranked.end());
    std::vector<std::size_t> out;
    for (std::size_t j = 0; j < ranked.size() && j < n; ++j) out.push_back(ranked[j].second);
    return out;
  }

  // Re-times the leaders against each other, back to back; the winner is the fastest of them.
  void final_round() {
    std::vector<std::size_t> finalists = leaders(options_.finalists);
    if (finalists.empty()) return;
    bool complete = measure_all(finalists, Effort::careful);
    if (!complete) return;
    std::optional<std::size_t> best;
    for (std::size_t i : finalists)
      if (times_.count(i) && (!best || times_[i] < times_[*best])) best = i;
    final_best_ = best;
  }

  void set_total(std::size_t total) { total_ = total; }

  // The model search stopped widening because the best held.
  void settle() { result_.settled = true; }

  // Measurements made since the best last improved by more than model_improvement (0 right
  // after the measurement that improved it).
  std::size_t since_improvement() const { return result_.measurements - improved_at_; }
  long long quiet() const { return (long long)since_improvement(); }

  StrategyResult finish() {
    std::optional<std::size_t> best = final_best_;
    if (!best) {
      auto l = leaders(1);
      if (!l.empty()) best = l[0];
    }
    if (best) result_.best = best, result_.best_ms = times_[*best];
    return result_;
  }

 private:
  void report() {
    if (!hooks_.progress) return;
    auto l = leaders(1);
    std::optional<double> best;
    if (!l.empty()) best = times_.at(l[0]);
    hooks_.progress(result_.measurements, std::max(total_, result_.measurements), best);
  }

  void note_best(double ms) {
    // result_.measurements already counts this measurement.
    if (ms < best_seen_ * (1 - options_.model_improvement)) improved_at_ = result_.measurements;
    best_seen_ = std::min(best_seen_, ms);
  }

  std::map<std::size_t, double> times_;
  std::set<std::size_t> failed_;
  double best_seen_ = HUGE_VAL;
  std::size_t improved_at_ = 0;
  const StrategyOptions& options_;
  const StrategyHooks& hooks_;
  StrategyResult result_;
  std::optional<std::size_t> final_best_;
  std::size_t total_ = 0;
};

// Sizes of the halving rounds after the first: keep a fraction, at least min_keep, until the
// finalists remain.
std::vector<std::size_t> halving_rounds(std::size_t pool, const StrategyOptions& o) {
  std::vector<std::size_t> sizes;
  std::size_t finalists = std::max<std::size_t>(1, o.finalists);
  while (pool > finalists) {
    auto keep = std::max<std::size_t>(
        {o.min_keep, finalists, std::size_t(std::ceil(pool * o.keep_fraction))});
    if (keep >= pool) break;
    pool = keep;
    if (pool > finalists) sizes.push_back(pool);
  }
  return sizes;
}

// The fresh candidates in the model's order: those it ranked first, then any it left out.
std::vector<std::size_t> model_order(const std::vector<std::size_t>& fresh,
                                     const StrategyOptions& o) {
  std::set<std::size_t> left(fresh.begin(), fresh.end());
  std::vector<std::size_t> order;
  for (std::size_t i : o.model_order)
    if (left.erase(i)) order.push_back(i);
  order.insert(order.end(), left.begin(), left.end());
  return order;
}

// The family of candidate `i` (its own index when the options give none).
std::size_t family_of(std::size_t i, const StrategyOptions& o) {
  return i < o.model_family.size() ? o.model_family[i] : std::size_t(-1) - i;
}

// Splits `order` into the best-ranked member of each family and the other members, each in
// order.
std::pair<std::vector<std::size_t>, std::vector<std::size_t>> family_heads(
    const std::vector<std::size_t>& order, const StrategyOptions& o) {
  std::set<std::size_t> seen;
  std::vector<std::size_t> heads, others;
  for (std::size_t i : order) (seen.insert(family_of(i, o)).second ? heads : others).push_back(i);
  return {heads, others};
}

// The members of `others` in the families of the leaders.
std::vector<std::size_t> leaders_relatives(const std::vector<std::size_t>& leaders,
                                           const std::vector<std::size_t>& others,
                                           const StrategyOptions& o) {
  std::set<std::size_t> families;
  for (std::size_t i : leaders) families.insert(family_of(i, o));
  std::vector<std::size_t> out;
  for (std::size_t i : others)
    if (families.count(family_of(i, o))) out.push_back(i);
  return out;
}

// Moves up to `count` members of the variant group of order[0] (the model's favourite) from
// `others` to just behind it in `order`.
void hoist_favourite_variants(std::vector<std::size_t>& order, std::vector<std::size_t>& others,
                              const StrategyOptions& o, std::size_t count) {
  if (order.empty() || order[0] >= o.model_variant.size()) return;
  const std::size_t group = o.model_variant[order[0]];
  std::vector<std::size_t> moved, kept;
  for (std::size_t i : others)
    (moved.size() < count && i < o.model_variant.size() && o.model_variant[i] == group ? moved
                                                                                       : kept)
        .push_back(i);
  order.insert(order.begin() + 1, moved.begin(), moved.end());
  others = kept;
}

// The model search's first step: the first round of compiles (min_measurements) where that is
// smaller than model_first.
std::size_t model_first_round(const StrategyOptions& o) {
  return o.min_measurements > 1 ? std::min(o.model_first, o.min_measurements) : o.model_first;
}

// The model search's leaders in the order it measures them (the best-ranked member of each
// family, the favourite's variants hoisted behind it where the budget may end with the first
// round: run_model) and the other members of their families. first_measured() reads it too.
std::pair<std::vector<std::size_t>, std::vector<std::size_t>> model_leaders(
    const std::vector<std::size_t>& fresh, const StrategyOptions& o) {
  auto leaders = family_heads(model_order(fresh, o), o);
  if (o.budget_s > 0 && o.min_measurements > 1)
    hoist_favourite_variants(leaders.first, leaders.second, o, model_first_round(o) / 4);
  return leaders;
}

// With a budget: whether the next leader, order[done], is predicted within model_flat of the
// favourite, so that the model's agreement says nothing about it (2049x1x2049 nt on an H200 at
// 20 s: the model's first 60 leaders predicted within 5% of each other, the 42 it timed ran
// 11.8-23.6 us, the search stopped after 4 s; a reduction it never reached ran 10.4 us).
bool predicted_alike(const std::vector<std::size_t>& order, std::size_t done,
                     const StrategyOptions& o) {
  if (o.budget_s <= 0 || done >= order.size()) return false;
  const auto& ms = o.model_predicted_ms;
  if (order[0] >= ms.size() || order[done] >= ms.size()) return false;
  return ms[order[done]] <= (1 + o.model_flat) * ms[order[0]];
}

// What the model search asks the compile pool for ahead of its measurements, so that what is
// compiled is what gets timed: after the batch being measured, the ranks its next step measures
// however the measurements come out, once it is sure to take that step. Compiling the whole
// ranking ahead instead kept every compile thread busy with ranks the search never reached
// (docs/PERFORMANCE.md, 2026-12-02, "compiles per problem").
class CompilePlan {
 public:
  CompilePlan(const std::vector<std::size_t>& order, const std::vector<std::size_t>& fresh,
              const StrategyOptions& o)
      : order_(order), o_(o) {
    std::map<std::size_t, std::size_t> members;
    for (std::size_t i : fresh)
      if (i < o.model_variant.size())
        largest_group_ = std::max(largest_group_, ++members[o.model_variant[i]]);
  }

  // Whether the search widens past `end` whatever the measurements say: the first step is not
  // done, or the next leader is predicted alike, or the best cannot have held for model_patience
  // measurements by then (`quiet` since it last improved, `left` to go in the step, then at most
  // the untimed variants of the best).
  bool widens(long long quiet, std::size_t end, std::size_t left) const {
    if (end >= order_.size()) return false;
    if (end < o_.model_first || predicted_alike(order_, end, o_)) return true;
    return quiet + (long long)(left + largest_group_) < (long long)o_.model_patience;
  }

  // The ranks from `end` on that the step after a step of `step` ranks ending there measures
  // whichever way it goes: the rest of the first step, or the shorter of a step that agrees with
  // the model (model_step) and one that doubles.
  std::vector<std::size_t> next_ranks(std::size_t end, std::size_t step) const {
    if (end >= order_.size()) return {};
    const std::size_t length =
        end < o_.model_first
            ? o_.model_first - end
            : std::min(std::max<std::size_t>(1, o_.model_step), std::max(step, end));
    return {order_.begin() + std::ptrdiff_t(end),
            order_.begin() + std::ptrdiff_t(std::min(order_.size(), end + length))};
  }

 private:
  const std::vector<std::size_t>& order_;
  const StrategyOptions& o_;
  std::size_t largest_group_ = 0;  // members of the largest variant group
};

// The model strategy: the model's leaders quickly (one per family), then further ranks step by
// step until the best has held for a while with the model agreeing (the best sits in the first
// half of what was measured); when it sits deeper, the model is off for this problem and the
// step doubles. After each step, the untimed variants of the best so far (model_variant). Then
// the other members of the leading families, the leaders normally, the finalists carefully.
// With a budget the best holding is not enough while the next leaders are predicted alike
// (predicted_alike): the search then goes on until the budget.
// The first step is the first round of compiles (min_measurements) where that is smaller, so
// that a small budget still times the best's variants: they decide 5-10% on odd problems, where
// the model ranks them poorly (2999x3001x2003 on an H200 at 5 s: 17 narrowed leaders timed, the
// best 983 us; its twin that copies A and B first, 901 us, never). Where the budget may end with
// that round, a quarter of it goes to the favourite's variants (999^3 nn on an H200 at 3 s: the
// first round of 16 took the budget; the favourite's early-barrier twin, 5% faster, went untimed).
StrategyResult run_model(const std::vector<std::size_t>& fresh,
                         const std::map<std::size_t, double>& known, const StrategyOptions& o,
                         const StrategyHooks& hooks) {
  auto [order, others] = model_leaders(fresh, o);
  const std::size_t first_round = model_first_round(o);
  std::map<std::size_t, std::size_t> place;
  for (std::size_t j = 0; j < order.size(); ++j) place[order[j]] = j;
  Search search(known, o, hooks);
  const std::size_t tail = std::min(o.model_retime, order.size() + known.size()) + o.finalists;
  // What the pool compiles ahead is what will be timed: the rest of the batch being measured and,
  // once the search is sure to widen past it, the ranks the next step measures whatever the
  // measurements say (CompilePlan).
  const CompilePlan compile_plan(order, fresh, o);
  std::size_t done = 0, end = 0, step = std::max<std::size_t>(1, first_round);
  auto plan = [&](std::vector<std::size_t> batch, bool with_next) {
    if (!hooks.plan) return;
    if (with_next) {
      const auto next = compile_plan.next_ranks(end, step);
      batch.insert(batch.end(), next.begin(), next.end());
    }
    hooks.plan(batch);
  };
  // The untimed members of the best's variant group.
  std::size_t variants_timed = 0;
  bool widens = false;  // whether the search is sure to widen past the batch being measured
  auto time_variants = [&] {
    const auto best = search.leaders(1);
    if (best.empty() || best[0] >= o.model_variant.size()) return true;
    std::vector<std::size_t> twins;
    for (std::size_t i : fresh)
      if (i < o.model_variant.size() && o.model_variant[i] == o.model_variant[best[0]] &&
          !search.timed(i))
        twins.push_back(i);
    if (twins.empty()) return true;
    variants_timed += twins.size();
    plan(twins, widens);
    return search.measure_all(twins, Effort::quick);
  };
  while (done < order.size()) {
    end = std::min(order.size(), done + step);
    search.set_total(end + variants_timed + tail);
    // The next ranks are compiled ahead as soon as the search is sure to widen past `end`;
    // again after each measurement until it is.
    const std::vector<std::size_t> batch(order.begin() + done, order.begin() + end);
    widens = compile_plan.widens(search.quiet(), end, batch.size());
    plan(batch, widens);
    const auto sure_yet = [&](std::size_t measured) {
      if (widens || !compile_plan.widens(search.quiet(), end, batch.size() - measured)) return;
      widens = true;
      plan({batch.begin() + std::ptrdiff_t(measured), batch.end()}, true);
    };
    if (!search.measure_all(batch, Effort::quick, sure_yet)) return search.finish();
    done = end;
    if (!time_variants()) return search.finish();
    if (done < o.model_first) {  // the first round was shorter: the rest of the first step
      step = o.model_first - done;
      continue;
    }
    const auto best = search.leaders(1);
    const bool agrees = best.empty() || !place.count(best[0]) || 2 * place[best[0]] < done;
    if (agrees && search.since_improvement() >= o.model_patience &&
        !predicted_alike(order, done, o)) {
      search.settle();
      break;
    }
    step = agrees ? std::max<std::size_t>(1, o.model_step) : std::max(step, done);
  }
  std::vector<std::size_t> relatives;
  for (std::size_t i : leaders_relatives(search.leaders(o.model_family_leaders), others, o))
    if (!search.timed(i)) relatives.push_back(i);
  search.set_total(done + variants_timed + relatives.size() + tail);
  // Also when there are none: the pool stops compiling the ranks the search did not reach.
  if (hooks.plan) hooks.plan(relatives);
  if (!search.measure_all(relatives, Effort::quick)) return search.finish();
  if (!search.measure_all(search.leaders(o.model_retime), Effort::normal)) return search.finish();
  search.final_round();
  return search.finish();
}

// Candidates 0..count-1 less the known ones.
std::vector<std::size_t> fresh_of(std::size_t count, const std::map<std::size_t, double>& known) {
  std::vector<std::size_t> fresh;
  for (std::size_t i = 0; i < count; ++i)
    if (!known.count(i)) fresh.push_back(i);
  return fresh;
}

}  // namespace

std::vector<std::size_t> first_measured(std::size_t count,
                                        const std::map<std::size_t, double>& known,
                                        const StrategyOptions& options) {
  if (options.kind != StrategyKind::model) return {};
  std::vector<std::size_t> order = model_leaders(fresh_of(count, known), options).first;
  order.resize(std::min(order.size(), options.model_first));
  return order;
}

StrategyResult run_strategy(std::size_t count, const std::map<std::size_t, double>& known,
                            const StrategyOptions& options, const StrategyHooks& hooks) {
  if (!hooks.measure || !hooks.elapsed_s)
    throw Error(Status::kInternal, "run_strategy needs measure and elapsed_s hooks");
  std::vector<std::size_t> fresh = fresh_of(count, known);
  if (options.kind == StrategyKind::model) return run_model(fresh, known, options, hooks);
  if (options.kind != StrategyKind::exhaustive) {
    // Random order: a budget that runs out during the first pass still leaves a fair sample of
    // the space measured, not its first few tile sizes.
    std::mt19937_64 rng(options.seed);
    std::shuffle(fresh.begin(), fresh.end(), rng);
  }
  if (options.kind == StrategyKind::random && options.max_configs > 0 &&
      fresh.size() > options.max_configs)
    fresh.resize(options.max_configs);
  std::size_t pool = fresh.size() + known.size();
  std::size_t finalists = std::min(options.finalists, pool);
  Search search(known, options, hooks);
  if (hooks.plan) hooks.plan(fresh);

  if (options.kind != StrategyKind::halving) {
    search.set_total(fresh.size() + finalists);
    if (search.measure_all(fresh, Effort::normal)) search.final_round();
    return search.finish();
  }
  std::vector<std::size_t> rounds = halving_rounds(pool, options);
  std::size_t total = fresh.size() + finalists;
  for (std::size_t r : rounds) total += r;
  search.set_total(total);
  if (!search.measure_all(fresh, Effort::quick)) return search.finish();
  for (std::size_t r : rounds)
    if (!search.measure_all(search.leaders(r), Effort::normal)) return search.finish();
  search.final_round();
  return search.finish();
}

}  // namespace gemmtune::tuner
