#pragma once
// Resuming a sweep: what earlier sweeps on the same GPU model already measured for a problem.
#include <cstddef>
#include <map>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"

namespace gemmtune::tuner {

/// The candidates of a problem as a resumed sweep sees them.
struct ResumeState {
  std::vector<GemmConfig> candidates;   ///< those still in the race: new ones and earlier ok ones
  std::map<std::size_t, double> known;  ///< index in candidates -> best earlier median (ms)
  std::size_t failed_before = 0;        ///< dropped: an earlier sweep recorded a failure
  /// Candidates never measured on this GPU model.
  std::size_t fresh() const { return candidates.size() - known.size(); }
};

/// Splits `candidates` by the earlier results `prior` (of the same problem and GPU model): a
/// config with an earlier failure is dropped; one with earlier ok results keeps its best median.
ResumeState resume_state(const std::vector<GemmConfig>& candidates,
                         const std::vector<db::ResultRow>& prior);

/// resume_state() with the earlier results of `problem` on GPU model `gpu_model_id` read from
/// `db`; with `force` nothing counts as measured.
ResumeState load_resume_state(const db::Database& db, db::Id gpu_model_id, const Problem& problem,
                              const std::vector<GemmConfig>& candidates, bool force);

}  // namespace gemmtune::tuner
