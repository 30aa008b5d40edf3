#pragma once
// Replays a search strategy on recorded results, without a GPU: measure() returns the recorded
// median of a config (with small deterministic noise) and a fake clock advances by what the
// measurement would have cost. It tells in milliseconds how many measurements a strategy makes
// and how close it gets to the best recorded config.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/tuner/cost_model.hpp"
#include "gemmtune/tuner/family_tuning.hpp"
#include "gemmtune/tuner/strategy.hpp"

namespace gemmtune::tuner {

/// One problem's ok results as recorded: config name -> median ms.
struct RecordedProblem {
  db::ProblemKey key;
  std::vector<GemmConfig> configs;  ///< those whose names parse
  std::vector<double> median_ms;    ///< per config, its best recorded median
};

/// What a simulated measurement costs and how noisy it is.
struct ReplayCost {
  double overhead_s = 0.03;  ///< per measurement: verification, launch, bookkeeping
  int quick_reps = 3, normal_reps = 20, careful_reps = 50;  ///< timed runs per effort
  double quick_noise = 0.03, normal_noise = 0.01,
         careful_noise = 0.003;  ///< at most this share slower
};

/// How to replay.
struct ReplayOptions {
  StrategyOptions strategy;  ///< model_order is filled in from the model's ranking
  ReplayCost cost;
  GpuCeilings gpu;                    ///< the recorded GPU's ceilings
  std::vector<TunedNeighbour> tuned;  ///< calibration: the other recorded problems
  std::uint64_t seed = 1;             ///< noise
};

/// What a replay found for one problem.
struct ReplayOutcome {
  std::size_t candidates = 0;        ///< configs recorded ok
  std::size_t measurements = 0;      ///< measure() calls the strategy made
  double simulated_s = 0;            ///< the fake clock at the end
  std::optional<std::string> found;  ///< the config the strategy picked
  double found_ms = 0;               ///< its recorded median
  double recorded_best_ms = 0;       ///< the best recorded median
  std::size_t found_model_rank = 0;  ///< place of the found config in the model's ranking (0 first)
  std::size_t best_model_rank = 0;   ///< place of the recorded best there
  /// How well the model orders the recorded candidates: Spearman's rank correlation between its
  /// predicted times (calibrated as the strategy's) and the recorded medians (1: the same order,
  /// 0: none, -1: reversed).
  double model_rank_correlation = 0;
  /// found / recorded best: 1 when the strategy found the best recorded config.
  double ratio() const { return recorded_best_ms > 0 && found ? found_ms / recorded_best_ms : 0; }
};

/// The ceilings of a recorded GPU model: SMs, FMA peak from its clock, its architecture's limits.
/// Throws Error (invalid argument) for a model with fewer than 1 SM or a clock below 1 kHz, or of
/// an architecture this build does not know.
GpuCeilings ceilings_of(const db::GpuModel& gpu, double dram_gbs = 4200);

/// Every problem with ok results on `gpu_model_id`, with each config's best median; only the
/// configs valid on that GPU model (none when ceilings_of() refuses it).
std::vector<RecordedProblem> load_recorded(const db::Database& db, db::Id gpu_model_id);

/// Spearman's rank correlation of `a` and `b` (the same length): the Pearson correlation of
/// their ranks, tied values sharing the mean of their ranks. 0 when either is constant or they
/// hold fewer than two values.
double rank_correlation(const std::vector<double>& a, const std::vector<double>& b);

/// Runs options.strategy over `recorded` on the fake clock.
ReplayOutcome replay_problem(const RecordedProblem& recorded, const ReplayOptions& options);

}  // namespace gemmtune::tuner
