// The model strategy's plan without a GPU: which configs it times on the cost model's predicted
// times, which it asks the compile pool for ahead, and (with GEMMTUNE_REHEARSE=1) what the real
// compile pool and NVRTC do with that plan on this machine.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <set>
#include <thread>

#include "gemmtune/sgemm/tuning/calibration.hpp"
#include "gemmtune/tuner/rehearsal.hpp"
#include "gemmtune/tuner/shard.hpp"
#include "gemmtune/tuner/sweep.hpp"

using namespace gemmtune;
using namespace gemmtune::tuner;

namespace {

// The problems of docs/PERFORMANCE.md's entry on compiles per problem (2026-12-02).
std::vector<ProblemSpec> planning_problems() {
  std::vector<ProblemSpec> out;
  for (const char* shape : {"2048x2048x2048", "127x257x1023", "4096x4096x4096"})
    out.push_back(problems_from_shapes({shape}, "nn", 1).front());
  out.push_back(problems_from_shapes({"1x4096x4096"}, "nt", 1).front());
  for (auto& p : out) p = kernel_spec(p);
  return out;
}

// An H200 as a dry run plans it: sm_90 limits, 132 SMs.
DeviceInfo h200() {
  DeviceInfo d;
  d.limits = DeviceLimits::for_arch("sm_90");
  d.sm_count = 132;
  d.name = "planned sm_90";
  return d;
}

RehearsalOptions model_options(const DeviceInfo& dev, unsigned compile_threads) {
  RehearsalOptions o;
  o.strategy.kind = StrategyKind::model;
  // As the sweep sets it: the first round of compiles is one per compile thread.
  o.strategy.min_measurements = compile_threads;
  o.gpu = planning_ceilings(dev);
  return o;
}

std::vector<GemmConfig> candidates_of(const ProblemSpec& spec, const DeviceInfo& dev) {
  SweepOptions so;
  SearchSpaces spaces(so, dev.limits);
  return sweep_candidates(so, dev, spaces.of(spec.op_a, spec.op_b), spec.problem());
}

}  // namespace

// The plan only says what to compile: the configs timed are those the strategy times without
// any plan hook, every timed config was asked for before it was measured, and (so that no
// compile goes to waste) nothing is asked for that is not timed.
TEST(Planning, TheModelStrategyCompilesWhatItTimesAndTimesTheSame) {
  const DeviceInfo dev = h200();
  for (const ProblemSpec& spec : planning_problems()) {
    SCOPED_TRACE(problem_label(spec));
    const auto candidates = candidates_of(spec, dev);
    ASSERT_FALSE(candidates.empty());
    for (unsigned threads : {2u, 16u}) {
      const RehearsalOptions o = model_options(dev, threads);
      const Rehearsal r = rehearse(spec, candidates, o, nullptr);
      // The same search with no plan hook at all.
      const ModelRanking ranking = rank_candidates(candidates, spec.problem(), o.gpu);
      StrategyOptions so = o.strategy;
      use_ranking(so, ranking);
      so.seed = 1;
      std::vector<std::size_t> timed;
      std::set<std::size_t> seen;
      StrategyHooks hooks;
      hooks.measure = [&](std::size_t i, Effort) -> std::optional<double> {
        if (seen.insert(i).second) timed.push_back(i);
        return ranking.predicted_ms[i];
      };
      hooks.elapsed_s = [] { return 0.0; };
      run_strategy(candidates.size(), {}, so, hooks);
      EXPECT_EQ(r.timed, timed);
      EXPECT_EQ(r.timed_unplanned, 0u);
      std::set<std::size_t> planned(r.planned.begin(), r.planned.end());
      std::size_t unused = 0;
      for (std::size_t i : planned) unused += !seen.count(i);
      EXPECT_EQ(unused, 0u) << r.planned.size() << " planned, " << timed.size() << " timed";
    }
  }
}

// Figures for docs/PERFORMANCE.md: the real compile pool (an empty binary cache) and NVRTC on
// this machine over the plan of each problem, one compile thread per core or
// GEMMTUNE_REHEARSE_THREADS (16: as many as a sweep on an H200 machine runs). Minutes on 2 cores:
// run with GEMMTUNE_REHEARSE=1 (and GEMMTUNE_REHEARSE_AHEAD=1 to compile each next problem's
// first round ahead).
TEST(Planning, CompilesOfTheRehearsedSweep) {
  if (!std::getenv("GEMMTUNE_REHEARSE")) GTEST_SKIP() << "set GEMMTUNE_REHEARSE=1 to run it";
  const DeviceInfo dev = h200();
  const char* wanted = std::getenv("GEMMTUNE_REHEARSE_THREADS");
  const unsigned threads =
      wanted ? unsigned(std::atoi(wanted)) : std::max(1u, std::thread::hardware_concurrency());
  ASSERT_GT(threads, 0u) << "GEMMTUNE_REHEARSE_THREADS must be a number of threads";
  CompilePool pool("sm_90", "", threads);
  // NVRTC runs in this process: its CPU seconds per compile, apart from other loads on the machine.
  const auto cpu_s = [] {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
  };
  const double cpu_started = cpu_s();
  double wait = 0, wall = 0, nvrtc = 0;
  std::size_t compiles = 0, timed = 0, measurements = 0;
  // GEMMTUNE_REHEARSE_AHEAD=1: the idle compile threads compile the next problem's first round,
  // as a sweep has them do.
  const bool ahead = std::getenv("GEMMTUNE_REHEARSE_AHEAD") != nullptr;
  const std::vector<ProblemSpec> problems = planning_problems();
  for (std::size_t n = 0; n < problems.size(); ++n) {
    const ProblemSpec& spec = problems[n];
    RehearsalOptions o = model_options(dev, threads);
    if (ahead && n + 1 < problems.size())
      o.next_round = rehearsed_first_round(problems[n + 1], candidates_of(problems[n + 1], dev), o);
    const Rehearsal r = rehearse(spec, candidates_of(spec, dev), o, &pool);
    std::printf(
        "%-20s timed %3zu (%3zu measurements), planned %4zu; takes %zu compiled %zu reused %zu "
        "cached; NVRTC %3zu compiles %6.1f s; wait %6.1f s of %6.1f s\n",
        problem_label(spec).c_str(), r.timed.size(), r.measurements, r.planned.size(),
        r.takes.compiled, r.takes.reused, r.takes.cached, r.pool.compiles, r.pool.compile_s,
        r.compile_wait_s, r.wall_s);
    wait += r.compile_wait_s, wall += r.wall_s, nvrtc += r.pool.compile_s;
    compiles += r.pool.compiles, timed += r.timed.size(), measurements += r.measurements;
  }
  const double per = 1.0 / double(std::max<std::size_t>(1, compiles));
  std::printf(
      "all: timed %zu (%zu measurements), NVRTC %zu compiles, %.2f s each on %u threads "
      "(%.2f CPU s each); wait %.1f s of %.1f s\n",
      timed, measurements, compiles, nvrtc * per, threads, (cpu_s() - cpu_started) * per, wait,
      wall);
}
