#pragma once
// What a kernel family's tuning code (families/<family>/tuning: its space, candidates and model
// ranking; today the sgemm family's) and the tuner that drives it share: which part of the space a
// sweep searches, the tuned neighbours that calibrate a ranking, and the ranking the model
// strategy follows.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/tuner/strategy.hpp"

namespace gemmtune::tuner {

/// Which part of the valid space a sweep searches.
enum class SpaceKind {
  full,     ///< every valid config (tens of thousands per layout)
  reduced,  ///< a small, well-chosen subset: a sweep of a few problems finishes in minutes
};

/// Parses "full" or "reduced"; throws Error(kInvalidArgument) otherwise.
SpaceKind parse_space(const std::string& text);

/// A problem tuned before, with the fastest configs measured on it.
struct TunedNeighbour {
  db::ProblemKey problem;
  std::vector<std::pair<std::string, double>> configs;  ///< config name, median ms
};

/// How strongly neighbours count.
struct CalibrationOptions {
  std::size_t neighbours = 3;  ///< nearest tuned problems consulted
  double max_boost = 0.5;      ///< a neighbour's best at distance 0 halves the predicted time
};

/// The top `per_problem` configs of every problem tuned on `gpu_model_id`.
std::vector<TunedNeighbour> tuned_neighbours(const db::Database& db, db::Id gpu_model_id,
                                             int per_problem = 32);

/// The model's ranking of a problem's candidates: predicted (calibrated) times and the candidate
/// indices in the order to measure them: the best-ranked of each kernel path (reduction, streamed
/// B, warpgroup, mma.sync, FMA tiles) first, then fastest first, configs predicted within 5% of
/// each other taken one block tile shape (and split) at a time (reductions one lane
/// arrangement at a time: one output per lane or several, warps along K or not).
struct ModelRanking {
  std::vector<double> predicted_ms;
  std::vector<std::size_t> order;
  /// Per candidate, its family: candidates that differ only where the model cannot tell them
  /// apart (the warp arrangement and register budget, and the ways of `variant`).
  std::vector<std::size_t> family;
  /// Per candidate, its variant group: the same kernel reading a misaligned A or B narrowed or
  /// copied first, writing a narrowed C directly, staged or in windows, and streaming B with one
  /// register set or two (a subset of a family).
  std::vector<std::size_t> variant;
  /// Place (0-based) of candidate `index` in `order`.
  std::size_t rank_of(std::size_t index) const;
};

/// Hands `ranking` to the model strategy: its order, families, variant groups and predictions.
void use_ranking(StrategyOptions& options, const ModelRanking& ranking);

}  // namespace gemmtune::tuner
