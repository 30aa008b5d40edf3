#pragma once
// Search strategies over one problem's candidates. They see candidates only as indices and time
// only through a measure(index, effort) callback, so that tests can replay a recorded table of
// timings and the sweep can plug in compile + verify + time on a GPU.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gemmtune::tuner {

/// How candidates are chosen and how much time each gets.
enum class StrategyKind {
  exhaustive,  ///< every candidate, timed normally; the leaders re-timed carefully
  random,      ///< a random subset of max_configs candidates, then like exhaustive
  halving,     ///< successive halving: all quickly, the best third again with more care, ...
  model,       ///< the cost model's favourites first, widening while the measurements disagree
};

/// Parses "exhaustive", "random", "halving" or "model"; throws Error(kInvalidArgument) otherwise.
StrategyKind parse_strategy(const std::string& text);

/// "exhaustive", "random", "halving" or "model".
const char* strategy_name(StrategyKind kind);

/// How much care one measurement takes (the sweep maps these to timer options).
enum class Effort {
  quick,    ///< a few repetitions, no adaptive stopping: good enough to drop the clear losers
  normal,   ///< adaptive repetitions until the spread is small
  careful,  ///< the leaders against each other: more repetitions, tighter spread
};

/// What a strategy is told to do.
struct StrategyOptions {
  StrategyKind kind = StrategyKind::halving;
  std::size_t max_configs = 0;  ///< random: candidates to try (0: all)
  double budget_s = 0;          ///< seconds for this problem; 0: unlimited
  /// Measurements the budget always allows: those whose compiles were started at once (the
  /// sweep sets its compile threads), since their cost is paid already.
  std::size_t min_measurements = 1;
  std::size_t finalists = 3;       ///< leaders re-timed carefully at the end
  double keep_fraction = 1.0 / 3;  ///< halving: share of a round that goes on to the next
  std::size_t min_keep = 4;        ///< halving: a round keeps at least this many
  std::uint64_t seed = 1;          ///< random: sampling seed
  /// model: candidate indices in the order the cost model ranks them, its favourite first (the
  /// sweep computes it from the configs; indices it leaves out come last, in index order).
  std::vector<std::size_t> model_order;
  /// model: a family id per candidate index (empty: each its own family). Members of a family
  /// differ only where the model cannot tell them apart (the warp arrangement, the register
  /// budget, staged C): the search measures the best-ranked member of each family first, and
  /// the other members of the leading families once the search has settled.
  std::vector<std::size_t> model_family;
  /// model: a variant group per candidate (empty: none). After the first round, and after each
  /// later round of leaders, the search times the untimed members of the best one's group.
  std::vector<std::size_t> model_variant;
  /// model: the model's predicted time per candidate index (empty: not known). With a budget,
  /// the search does not stop for patience while the next leader is predicted within
  /// model_flat of the favourite: the model cannot tell those apart, only measuring can.
  std::vector<double> model_predicted_ms;
  double model_flat = 0.05;  ///< model: "alike": predicted within this share of the favourite
  std::size_t model_family_leaders = 3;  ///< model: families whose other members are measured
  std::size_t model_first = 24;          ///< model: leaders measured quickly before any widening
  std::size_t model_step = 16;           ///< model: further ranks measured per widening
  std::size_t model_patience = 32;       ///< model: stop once this many measurements in a row...
  double model_improvement = 0.01;       ///< ...improved the best by no more than this share
  std::size_t model_retime = 6;          ///< model: leaders re-timed normally before the finalists
};

/// How a strategy acts on the world. measure and elapsed_s are required, the rest optional.
struct StrategyHooks {
  /// Measures candidate `index`; its median in ms, or nullopt when it failed (never asked again).
  std::function<std::optional<double>(std::size_t index, Effort effort)> measure;
  /// Seconds spent on this problem so far (the budget's clock).
  std::function<double()> elapsed_s;
  /// Called with the order the next measurements will follow, so compilation can run ahead;
  /// again when the strategy turns to other candidates (each list replaces the last). The model
  /// strategy lists only candidates it will measure, so that nothing is compiled in vain.
  std::function<void(const std::vector<std::size_t>& order)> plan;
  /// True when the sweep must stop after the current candidate (Ctrl-C).
  std::function<bool()> stop_requested;
  /// Measurements done out of those planned, and the best median so far.
  std::function<void(std::size_t done, std::size_t total, std::optional<double> best_ms)> progress;
};

/// What a strategy found.
struct StrategyResult {
  std::optional<std::size_t> best;  ///< index of the fastest candidate, if any succeeded
  std::optional<double> best_ms;    ///< its latest median
  std::size_t measurements = 0;     ///< measure() calls
  std::size_t new_candidates = 0;   ///< distinct candidates measured for the first time
  bool budget_exhausted = false;    ///< stopped because the budget was spent
  bool stopped = false;             ///< stopped because stop_requested() said so
  /// model: stopped widening because the best held (model_patience), before the budget ran out
  bool settled = false;
};

/// Runs `options.kind` over candidates 0..count-1. `known` holds medians measured by earlier
/// sweeps (resume): those are not measured in the first round but compete (and are re-timed) as
/// leaders. No measurement starts once the budget is spent (the first always may) or a stop is
/// requested.
StrategyResult run_strategy(std::size_t count, const std::map<std::size_t, double>& known,
                            const StrategyOptions& options, const StrategyHooks& hooks);

/// The candidates run_strategy measures first, whatever the measurements say, in its order (so
/// that they can be compiled before it starts; a budget or a stop may end it sooner): for the
/// model strategy the first model_first of its leaders, the favourite's variants hoisted as it
/// does (where its first round is shorter, the best's variants are timed between them); empty for
/// the other strategies.
std::vector<std::size_t> first_measured(std::size_t count,
                                        const std::map<std::size_t, double>& known,
                                        const StrategyOptions& options);

}  // namespace gemmtune::tuner
