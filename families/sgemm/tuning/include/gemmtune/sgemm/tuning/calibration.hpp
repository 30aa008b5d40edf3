#pragma once
// Calibrates the cost model with what the database already holds for this GPU model: configs
// that ran fast on the nearest tuned problems of the same layout (matched by their knobs, whatever
// widths each problem's data narrowed them to) are raised in the ranking of a new problem. The model knows waves and bytes; the neighbours know what the
// compiler and the memory system actually did with a config.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/tuner/cost_model.hpp"
#include "gemmtune/tuner/strategy.hpp"

namespace gemmtune::tuner {

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

/// Per candidate, the factor (in (0, 1]) its predicted time is multiplied by: 1 minus max_boost
/// x the strongest support among the nearest neighbours of p's layout (not p itself), where support = (neighbour's best / this config's time there) / (1 + log distance),
/// halved when only the config with another split_k ran there.
std::vector<double> calibration_factors(const std::vector<GemmConfig>& candidates, const Problem& p,
                                        const std::vector<TunedNeighbour>& tuned,
                                        const CalibrationOptions& options = {});

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

/// Ranks `candidates` for `p` by the cost model times calibration_factors().
ModelRanking rank_candidates(const std::vector<GemmConfig>& candidates, const Problem& p,
                             const GpuCeilings& gpu, const std::vector<TunedNeighbour>& tuned = {},
                             const CalibrationOptions& options = {});

/// Hands `ranking` to the model strategy: its order, families, variant groups and predictions.
void use_ranking(StrategyOptions& options, const ModelRanking& ranking);

}  // namespace gemmtune::tuner
