// Strategies replayed on a recorded table of timings with noise: no GPU, a fake clock.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "gemmtune/error.hpp"
#include "gemmtune/tuner/strategy.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

// A recorded table: true medians, measurement noise that shrinks with effort, a cost per
// measurement on a fake clock, and some candidates that fail.
struct Replay {
  std::vector<double> truth;
  std::set<std::size_t> failing;
  std::mt19937_64 rng{42};
  double clock = 0;
  std::vector<std::pair<std::size_t, Effort>> calls;

  explicit Replay(std::size_t n, std::size_t best = 38) {
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> d(1.2, 5.0);
    for (std::size_t i = 0; i < n; ++i) truth.push_back(d(g));
    truth.at(best) = 1.0;  // the true best, clearly ahead of the rest (and one of the n)
    for (std::size_t i = 3; i < n; i += 17) failing.insert(i);
  }

  StrategyHooks hooks() {
    StrategyHooks h;
    h.measure = [this](std::size_t i, Effort e) -> std::optional<double> {
      calls.push_back({i, e});
      clock += e == Effort::quick ? 0.1 : e == Effort::normal ? 0.5 : 1.0;
      if (failing.count(i)) return std::nullopt;
      double noise = e == Effort::quick ? 0.08 : e == Effort::normal ? 0.02 : 0.005;
      std::normal_distribution<double> n(0, noise);
      return truth[i] * (1 + std::abs(n(rng)));  // timing noise only ever slows a kernel down
    };
    h.elapsed_s = [this] { return clock; };
    return h;
  }
  std::set<std::size_t> distinct() const {
    std::set<std::size_t> s;
    for (auto [i, e] : calls) s.insert(i);
    return s;
  }
};

}  // namespace

TEST(Strategy, ParseAndName) {
  EXPECT_EQ(parse_strategy("halving"), StrategyKind::halving);
  EXPECT_STREQ(strategy_name(parse_strategy("random")), "random");
  EXPECT_STREQ(strategy_name(parse_strategy("exhaustive")), "exhaustive");
  EXPECT_STREQ(strategy_name(parse_strategy("model")), "model");
  EXPECT_THROW(parse_strategy("greedy"), Error);
}

TEST(Strategy, ExhaustiveMeasuresAllThenRetimesLeaders) {
  Replay r(200);
  StrategyOptions o;
  o.kind = StrategyKind::exhaustive;
  StrategyResult res = run_strategy(200, {}, o, r.hooks());
  ASSERT_TRUE(res.best);
  EXPECT_EQ(*res.best, 38u);
  EXPECT_EQ(r.distinct().size(), 200u);
  EXPECT_EQ(res.new_candidates, 200u);
  EXPECT_EQ(res.measurements, 200u + o.finalists);
  std::size_t careful = 0;
  for (auto [i, e] : r.calls) careful += e == Effort::careful;
  EXPECT_EQ(careful, o.finalists);
}

TEST(Strategy, HalvingFindsTrueBestWithFewerMeasurementsOfCare) {
  for (std::size_t best : {0u, 38u, 199u}) {
    Replay r(200, best);
    StrategyOptions o;  // halving
    std::vector<std::size_t> planned;
    StrategyHooks h = r.hooks();
    h.plan = [&](const std::vector<std::size_t>& order) { planned = order; };
    std::size_t last_done = 0, last_total = 0;
    h.progress = [&](std::size_t done, std::size_t total, std::optional<double>) {
      EXPECT_GT(done, last_done);
      last_done = done, last_total = total;
    };
    StrategyResult res = run_strategy(200, {}, o, h);
    ASSERT_TRUE(res.best);
    EXPECT_EQ(*res.best, best);
    EXPECT_EQ(planned.size(), 200u);
    EXPECT_EQ(last_done, res.measurements);
    EXPECT_EQ(last_total,
              res.measurements);  // the plan's total came true (no failure among leaders)
    std::size_t quick = 0, normal = 0, careful = 0;
    for (auto [i, e] : r.calls)
      (e == Effort::quick ? quick : e == Effort::normal ? normal : careful)++;
    EXPECT_EQ(quick, 200u);
    EXPECT_LT(normal, 120u);  // 63 + 21 + 7 + 4 of the survivors, not all 200
    EXPECT_EQ(careful, 3u);
    EXPECT_FALSE(res.budget_exhausted);
  }
}

TEST(Strategy, FailedCandidatesNeverWin) {
  Replay r(60, 5);
  r.truth[20] = 0.5;
  r.failing.insert(20);  // would be fastest, but fails (e.g. wrong_result)
  for (auto kind : {StrategyKind::exhaustive, StrategyKind::halving, StrategyKind::random}) {
    StrategyOptions o;
    o.kind = kind;
    StrategyResult res = run_strategy(60, {}, o, r.hooks());
    ASSERT_TRUE(res.best);
    EXPECT_EQ(*res.best, 5u) << strategy_name(kind);
  }
}

TEST(Strategy, EveryStrategyHonoursTheBudget) {
  for (auto kind : {StrategyKind::exhaustive, StrategyKind::halving, StrategyKind::random}) {
    Replay r(500);
    StrategyOptions o;
    o.kind = kind;
    o.budget_s = 10;
    StrategyResult res = run_strategy(500, {}, o, r.hooks());
    EXPECT_TRUE(res.budget_exhausted) << strategy_name(kind);
    EXPECT_LT(r.clock, 10 + 1.0 + 1e-9)
        << strategy_name(kind);  // at most the measurement in flight
    EXPECT_LT(r.calls.size(), 500u);
    EXPECT_TRUE(res.best) << "what was measured still has a winner";
  }
}

// A budget spent before the first measurement ends (the compiles of a cold start) still allows
// min_measurements of them: the sweep sets its compile threads, whose first round runs at once.
TEST(Strategy, TheBudgetAllowsTheFirstRoundOfCompiles) {
  for (auto kind : {StrategyKind::model, StrategyKind::exhaustive, StrategyKind::halving,
                    StrategyKind::random}) {
    for (std::size_t min : {std::size_t(1), std::size_t(16)}) {
      Replay r(500);
      r.clock = 30;  // the budget below is gone before anything is measured
      StrategyOptions o;
      o.kind = kind;
      o.budget_s = 5;
      o.min_measurements = min;
      StrategyResult res = run_strategy(500, {}, o, r.hooks());
      EXPECT_TRUE(res.budget_exhausted) << strategy_name(kind);
      EXPECT_EQ(r.calls.size(), min) << strategy_name(kind);
      EXPECT_TRUE(res.best);
    }
  }
}

TEST(Strategy, RandomRespectsMaxConfigs) {
  Replay r(300);
  StrategyOptions o;
  o.kind = StrategyKind::random;
  o.max_configs = 25;
  o.seed = 3;
  StrategyResult res = run_strategy(300, {}, o, r.hooks());
  EXPECT_EQ(res.new_candidates, 25u);
  EXPECT_EQ(r.distinct().size(), 25u);
  EXPECT_EQ(res.measurements, 25u + o.finalists);
  // Another seed samples other candidates; the same seed the same ones.
  Replay r2(300), r3(300);
  run_strategy(300, {}, o, r2.hooks());
  o.seed = 4;
  run_strategy(300, {}, o, r3.hooks());
  EXPECT_EQ(r.distinct(), r2.distinct());
  EXPECT_NE(r.distinct(), r3.distinct());
}

TEST(Strategy, StopRequestEndsAfterTheCurrentCandidate) {
  Replay r(100);
  StrategyOptions o;
  StrategyHooks h = r.hooks();
  h.stop_requested = [&] { return r.calls.size() >= 10; };
  StrategyResult res = run_strategy(100, {}, o, h);
  EXPECT_TRUE(res.stopped);
  EXPECT_EQ(r.calls.size(), 10u);
}

TEST(Strategy, KnownCandidatesAreNotMeasuredAgainButCompete) {
  Replay r(50, 10);
  std::map<std::size_t, double> known;
  for (std::size_t i = 0; i < 25; ++i)
    known[i] = r.truth[i];  // the first half measured before, best included
  for (auto kind : {StrategyKind::exhaustive, StrategyKind::halving}) {
    r.calls.clear();
    StrategyOptions o;
    o.kind = kind;
    std::vector<std::size_t> planned;
    StrategyHooks h = r.hooks();
    h.plan = [&](const std::vector<std::size_t>& order) { planned = order; };
    StrategyResult res = run_strategy(50, known, o, h);
    EXPECT_EQ(planned.size(), 25u);
    for (std::size_t i : planned) EXPECT_GE(i, 25u);
    EXPECT_EQ(res.new_candidates, 25u);
    ASSERT_TRUE(res.best);
    EXPECT_EQ(*res.best, 10u) << strategy_name(kind);
  }
}

TEST(Strategy, NoCandidatesNoWinner) {
  Replay r(1, /*best=*/0);
  StrategyResult res = run_strategy(0, {}, {}, r.hooks());
  EXPECT_FALSE(res.best);
  EXPECT_EQ(res.measurements, 0u);
}

namespace {

// The truth's order, fastest first: a model that ranks perfectly.
std::vector<std::size_t> true_order(const Replay& r) {
  std::vector<std::size_t> order(r.truth.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return r.truth[a] < r.truth[b]; });
  return order;
}

}  // namespace

TEST(Strategy, ModelMeasuresAFewLeadersWhenTheModelIsRight) {
  Replay r(2000, 38);
  StrategyOptions o;
  o.kind = StrategyKind::model;
  o.model_order = true_order(r);
  std::vector<std::vector<std::size_t>> plans;
  StrategyHooks h = r.hooks();
  h.plan = [&](const std::vector<std::size_t>& order) { plans.push_back(order); };
  StrategyResult res = run_strategy(2000, {}, o, h);
  ASSERT_TRUE(res.best);
  EXPECT_EQ(*res.best, 38u);
  // Compilation runs ahead in the model's order, as far as the search is sure to go.
  ASSERT_FALSE(plans.empty());
  ASSERT_FALSE(plans.front().empty());
  EXPECT_EQ(plans.front().front(), 38u);
  EXPECT_LE(plans.front().size(), o.model_first + o.model_step);
  EXPECT_TRUE(plans.back().empty());  // settled, no relatives: the pool stops compiling
  // The first leaders, one widening step while the best holds, then re-timing: far from 2000.
  EXPECT_LE(res.new_candidates, o.model_first + 2 * o.model_step);
  EXPECT_LE(res.measurements, res.new_candidates + o.model_retime + o.finalists);
  std::size_t careful = 0;
  for (auto [i, e] : r.calls) careful += e == Effort::careful;
  EXPECT_EQ(careful, o.finalists);
  EXPECT_TRUE(res.settled);  // the best held: the search stopped widening on its own
}

TEST(Strategy, ModelKeepsMeasuringWithABudgetWhereItPredictsTheLeadersAlike) {
  // The model's favourite is the true best, so its patience is met early; what it predicts for
  // the next leaders decides whether a budgeted search goes on.
  auto run = [](double spread, double budget_s) {
    Replay r(2000, 38);
    StrategyOptions o;
    o.kind = StrategyKind::model;
    o.budget_s = budget_s;
    o.model_order = true_order(r);
    o.model_predicted_ms.assign(2000, 0);
    for (std::size_t j = 0; j < o.model_order.size(); ++j)
      o.model_predicted_ms[o.model_order[j]] = 1 + spread * double(j) / 2000;
    StrategyResult res = run_strategy(2000, {}, o, r.hooks());
    EXPECT_EQ(res.best, std::optional<std::size_t>(38));
    return res;
  };
  const StrategyResult steep = run(10.0, 30), flat = run(0.01, 30), unbudgeted = run(0.01, 0);
  // Predictions 0.5% apart per leader: stops on patience, as without a budget.
  EXPECT_LE(steep.new_candidates, 24u + 2 * 16u);
  EXPECT_FALSE(steep.budget_exhausted);
  // All 2000 within 1%: only the budget ends it (30 s at 0.1 s a quick measurement).
  EXPECT_TRUE(flat.budget_exhausted);
  EXPECT_FALSE(flat.settled);
  EXPECT_TRUE(steep.settled);
  EXPECT_GE(flat.new_candidates, 250u);
  // Without a budget, patience still ends a search however alike the predictions.
  EXPECT_EQ(unbudgeted.new_candidates, steep.new_candidates);
  EXPECT_FALSE(unbudgeted.budget_exhausted);
}

TEST(Strategy, ModelWidensWhenTheMeasurementsDisagree) {
  // The model ranks the true best last: every step finds a better one deep in its ranking, so
  // the strategy keeps widening until it reaches it.
  Replay r(500, 38);
  StrategyOptions o;
  o.kind = StrategyKind::model;
  o.model_order = true_order(r);
  std::reverse(o.model_order.begin(), o.model_order.end());
  StrategyResult res = run_strategy(500, {}, o, r.hooks());
  ASSERT_TRUE(res.best);
  EXPECT_EQ(*res.best, 38u);
}

TEST(Strategy, ModelMeasuresCandidatesTheRankingLeftOutLast) {
  Replay r(100, 7);
  StrategyOptions o;
  o.kind = StrategyKind::model;
  o.model_order = {5, 3, 99};  // a partial ranking: the rest follow in index order
  o.model_first = 3;
  o.model_patience = 1000;  // never satisfied: measures everything
  StrategyResult res = run_strategy(100, {}, o, r.hooks());
  ASSERT_GE(r.calls.size(), 4u);
  EXPECT_EQ(r.calls[0].first, 5u);
  EXPECT_EQ(r.calls[1].first, 3u);
  EXPECT_EQ(r.calls[2].first, 99u);
  EXPECT_EQ(r.calls[3].first, 0u);
  EXPECT_EQ(r.distinct().size(), 100u);
  EXPECT_EQ(*res.best, 7u);
  EXPECT_FALSE(res.settled);  // it measured everything
}

TEST(Strategy, ModelKeepsKnownResultsInTheRaceAndHonoursTheBudget) {
  Replay r(300, 38);
  StrategyOptions o;
  o.kind = StrategyKind::model;
  o.model_order = true_order(r);
  std::map<std::size_t, double> known{{38, 1.0}};  // the best was measured by an earlier sweep
  StrategyResult res = run_strategy(300, known, o, r.hooks());
  EXPECT_EQ(*res.best, 38u);
  for (auto [i, e] : r.calls)
    EXPECT_TRUE(i != 38u || e != Effort::quick);  // not re-measured quickly
  o.budget_s = 1.0;                               // ten quick measurements
  Replay budgeted(300, 38);
  res = run_strategy(300, {}, o, budgeted.hooks());
  EXPECT_TRUE(res.budget_exhausted);
  EXPECT_LE(res.measurements, 11u);
}

namespace {
// 400 candidates in families of four consecutive indices that the model ranks alike; the true
// best (41) is the second member of its family, whose first (40) the model ranks first and which
// runs close behind it.
StrategyOptions model_ranks_40_first(Replay& r) {
  StrategyOptions o;
  o.kind = StrategyKind::model;
  o.model_order = true_order(r);
  std::iter_swap(std::find(o.model_order.begin(), o.model_order.end(), 40), o.model_order.begin());
  for (std::size_t i = 0; i < 400; ++i) o.model_family.push_back(i / 4);
  r.truth[40] = 1.05;
  return o;
}

// The same with variant groups of two within the families (a narrowed kernel and its twin that
// copies the operands first), a budget of about ten quick measurements, a first round of eight.
StrategyOptions budgeted_twins(Replay& r) {
  StrategyOptions o = model_ranks_40_first(r);
  for (std::size_t i = 0; i < 400; ++i) o.model_variant.push_back(i / 2);
  o.budget_s = 1.0;
  o.min_measurements = 8;
  return o;
}

// r's hooks, recording every order the strategy plans (compiles) in `plans`.
StrategyHooks recording_plans(Replay& r, std::vector<std::vector<std::size_t>>& plans) {
  StrategyHooks h = r.hooks();
  h.plan = [&plans](const std::vector<std::size_t>& order) { plans.push_back(order); };
  return h;
}
}  // namespace

TEST(Strategy, ModelTimesOneMemberPerFamilyFirstThenTheLeadersRelatives) {
  Replay r(400, 41);
  StrategyOptions o = model_ranks_40_first(r);
  std::vector<std::vector<std::size_t>> plans;
  StrategyResult res = run_strategy(400, {}, o, recording_plans(r, plans));
  ASSERT_TRUE(res.best);
  EXPECT_EQ(*res.best, 41u);
  // The first plan holds one member per family; the relatives are planned (compiled) before
  // they are measured.
  ASSERT_GE(plans.size(), 2u);
  std::set<std::size_t> families;
  for (std::size_t i : plans.front()) EXPECT_TRUE(families.insert(i / 4).second) << i;
  EXPECT_LE(plans.front().size(), o.model_first + o.model_step);  // not all 100 heads
  const auto planned_41 = std::find_if(plans.begin() + 1, plans.end(), [](const auto& plan) {
    return std::find(plan.begin(), plan.end(), 41u) != plan.end();
  });
  EXPECT_NE(planned_41, plans.end());
  // Before the relatives, only family heads were measured.
  const auto first_relative = std::find_if(r.calls.begin(), r.calls.end(), [&](auto call) {
    return std::find(plans.front().begin(), plans.front().end(), call.first) == plans.front().end();
  });
  ASSERT_NE(first_relative, r.calls.end());
  EXPECT_GT(first_relative - r.calls.begin(), std::ptrdiff_t(o.model_first));
}

TEST(Strategy, ModelTimesTheFavouritesVariantsInTheFirstRound) {
  // 41, the true best, is the twin of 40, the model's favourite: with a budget 41 is timed
  // second, in the first round, and planned (compiled) right behind 40.
  Replay r(400, 41);
  StrategyOptions o = budgeted_twins(r);
  std::vector<std::vector<std::size_t>> plans;
  StrategyResult res = run_strategy(400, {}, o, recording_plans(r, plans));
  ASSERT_TRUE(res.best);
  EXPECT_EQ(*res.best, 41u);
  ASSERT_GE(r.calls.size(), 2u);
  EXPECT_EQ(r.calls[1].first, 41u);
  ASSERT_FALSE(plans.empty());
  ASSERT_GE(plans[0].size(), 2u);
  EXPECT_EQ(plans[0][1], 41u);
  // Without a budget the first round is the family heads only; the twin follows that round.
  Replay unbudgeted(400, 41);
  model_ranks_40_first(unbudgeted);
  o.budget_s = 0;
  res = run_strategy(400, {}, o, unbudgeted.hooks());
  const auto at = std::find_if(unbudgeted.calls.begin(), unbudgeted.calls.end(),
                               [](auto call) { return call.first == 41; });
  ASSERT_NE(at, unbudgeted.calls.end());
  EXPECT_EQ(at - unbudgeted.calls.begin(), 8);
  // Without variant groups the budget ends before the twin is timed.
  Replay without(400, 41);
  model_ranks_40_first(without);
  o.model_variant.clear();
  o.budget_s = 1.0;
  res = run_strategy(400, {}, o, without.hooks());
  ASSERT_TRUE(res.best);
  EXPECT_NE(*res.best, 41u);
}

TEST(Strategy, ModelTimesTheBestsVariantsRightAfterTheFirstRound) {
  // As above, but the model's favourite is 100 (far slower) and 40 its second: the first round
  // holds 100, 101 (the favourite's variant) and 40; 41, the true best and 40's twin, is timed
  // right after that round, the ninth measurement, planned first among what follows.
  Replay r(400, 41);
  StrategyOptions o = budgeted_twins(r);
  o.model_order.erase(std::find(o.model_order.begin(), o.model_order.end(), 100));
  o.model_order.insert(o.model_order.begin(), 100);
  std::vector<std::vector<std::size_t>> plans;
  StrategyResult res = run_strategy(400, {}, o, recording_plans(r, plans));
  ASSERT_TRUE(res.best);
  EXPECT_EQ(*res.best, 41u);
  ASSERT_GE(r.calls.size(), 9u);
  EXPECT_EQ(r.calls[0].first, 100u);
  EXPECT_EQ(r.calls[1].first, 101u);
  EXPECT_EQ(r.calls[8].first, 41u);
  ASSERT_GE(plans.size(), 2u);
  EXPECT_EQ(plans[1].front(), 41u);
}

// The best held for model_patience measurements counts from the measurement that improved it:
// here the first step's best (40) has a twin (41, 9% faster, timed right after the step) that
// improves it as the last measurement before the settle check, so the search widens further
// instead of settling at once.
TEST(Strategy, ModelWidensAfterAVariantImprovesTheBestAtTheEndOfAStep) {
  Replay r(200, 41);
  r.truth[40] = 1.1;  // second only to its twin; every other candidate is 1.2 or slower
  StrategyOptions o;
  o.kind = StrategyKind::model;
  o.model_order = true_order(r);
  std::swap(o.model_order[0], o.model_order[1]);  // 40 ranked first, 41 behind it
  o.model_family.resize(200);
  o.model_variant.resize(200);
  for (std::size_t i = 0; i < 200; ++i) o.model_family[i] = o.model_variant[i] = i / 2;
  StrategyResult res = run_strategy(200, {}, o, r.hooks());
  ASSERT_TRUE(res.best);
  EXPECT_EQ(*res.best, 41u);
  ASSERT_GE(r.calls.size(), o.model_first + 1);
  EXPECT_EQ(r.calls[o.model_first].first, 41u);  // the best's twin, right after the first step
  EXPECT_GE(res.new_candidates, o.model_first + 1 + o.model_step);  // and a further step
}

// first_measured() names what a run measures first, so that the sweep can compile it before the
// run starts: the model's first model_first leaders, in the order run_model measures them.
TEST(Strategy, FirstMeasuredIsWhatTheModelMeasuresFirst) {
  const auto first_calls = [](const Replay& r, std::size_t n) {
    std::vector<std::size_t> out;
    for (std::size_t j = 0; j < std::min(n, r.calls.size()); ++j) out.push_back(r.calls[j].first);
    return out;
  };
  // Family heads only, with results known from earlier sweeps left out.
  Replay r(400, 41);
  StrategyOptions o = model_ranks_40_first(r);
  const std::map<std::size_t, double> known{{o.model_order[1], 2.0}, {o.model_order[7], 3.0}};
  const std::vector<std::size_t> first = first_measured(400, known, o);
  run_strategy(400, known, o, r.hooks());
  EXPECT_EQ(first.size(), o.model_first);
  EXPECT_EQ(first, first_calls(r, o.model_first));
  EXPECT_EQ(std::count(first.begin(), first.end(), o.model_order[1]), 0);
  // With a budget the favourite's variants are hoisted behind it (41 behind 40) as run_model
  // does; a first round of model_first compiles leaves no variants of the best in between.
  Replay twins(400, 41);
  o = budgeted_twins(twins);
  o.min_measurements = o.model_first;
  const std::vector<std::size_t> hoisted = first_measured(400, {}, o);
  run_strategy(400, {}, o, twins.hooks());
  ASSERT_EQ(hoisted.size(), o.model_first);
  EXPECT_EQ(hoisted[1], 41u);
  EXPECT_EQ(hoisted, first_calls(twins, o.model_first));
  // Fewer candidates than model_first: all of them. Other strategies: none promised.
  o = StrategyOptions{};
  o.kind = StrategyKind::model;
  EXPECT_EQ(first_measured(5, {}, o), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  for (auto kind : {StrategyKind::exhaustive, StrategyKind::random, StrategyKind::halving}) {
    o.kind = kind;
    EXPECT_TRUE(first_measured(400, {}, o).empty()) << strategy_name(kind);
  }
}
