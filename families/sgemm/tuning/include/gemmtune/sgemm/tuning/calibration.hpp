#pragma once
// Calibrates the cost model with what the database already holds for this GPU model: configs
// that ran fast on the nearest tuned problems of the same layout (matched by their knobs, whatever
// widths each problem's data narrowed them to) are raised in the ranking of a new problem. The model knows waves and bytes; the neighbours know what the
// compiler and the memory system actually did with a config.
#include <vector>

#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/tuner/cost_model.hpp"
#include "gemmtune/tuner/family_tuning.hpp"

namespace gemmtune::tuner {

/// Per candidate, the factor (in (0, 1]) its predicted time is multiplied by: 1 minus max_boost
/// x the strongest support among the nearest neighbours of p's layout (not p itself), where support = (neighbour's best / this config's time there) / (1 + log distance),
/// halved when only the config with another split_k ran there.
std::vector<double> calibration_factors(const std::vector<GemmConfig>& candidates, const Problem& p,
                                        const std::vector<TunedNeighbour>& tuned,
                                        const CalibrationOptions& options = {});

/// Ranks `candidates` for `p` by the cost model times calibration_factors().
ModelRanking rank_candidates(const std::vector<GemmConfig>& candidates, const Problem& p,
                             const GpuCeilings& gpu, const std::vector<TunedNeighbour>& tuned = {},
                             const CalibrationOptions& options = {});

}  // namespace gemmtune::tuner
