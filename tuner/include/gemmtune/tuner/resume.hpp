#pragma once
// Resuming a sweep: what earlier sweeps on the same GPU model already measured for a problem.
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"

namespace gemmtune::tuner {

/// The candidates of a problem as a resumed sweep sees them: sgemm configs (ResumeState) or
/// another family's config names.
template <class Candidate>
struct Resumed {
  std::vector<Candidate> candidates;    ///< those still in the race: new ones and earlier ok ones
  std::map<std::size_t, double> known;  ///< index in candidates -> best earlier median (ms)
  std::size_t failed_before = 0;        ///< dropped: an earlier sweep recorded a failure
  /// Candidates never measured on this GPU model.
  std::size_t fresh() const { return candidates.size() - known.size(); }
};
using ResumeState = Resumed<GemmConfig>;

/// What the earlier results `prior` (of one problem and GPU model) say of each config name: its
/// best ok median, or that it failed (a failure in any sweep rules a config out for good: a
/// kernel does not get right by retrying).
struct EarlierResults {
  std::map<std::string, double> best_ms;
  std::set<std::string> failed;
  explicit EarlierResults(const std::vector<db::ResultRow>& prior);
  /// Adds `candidate`, named `name`, to `s` unless it failed before.
  template <class Candidate>
  void sort_into(Resumed<Candidate>& s, const Candidate& candidate, const std::string& name) const {
    if (failed.count(name)) {
      ++s.failed_before;
      return;
    }
    if (auto it = best_ms.find(name); it != best_ms.end())
      s.known[s.candidates.size()] = it->second;
    s.candidates.push_back(candidate);
  }
};

/// The earlier results of `problem` on GPU model `gpu_model_id` in `db`; none with `force`.
std::vector<db::ResultRow> earlier_results(const db::Database& db, db::Id gpu_model_id,
                                           const Problem& problem, bool force);

/// Splits `candidates` by the earlier results `prior` (of the same problem and GPU model): a
/// config with an earlier failure is dropped; one with earlier ok results keeps its best median.
ResumeState resume_state(const std::vector<GemmConfig>& candidates,
                         const std::vector<db::ResultRow>& prior);

/// resume_state() with earlier_results(); with `force` nothing counts as measured.
ResumeState load_resume_state(const db::Database& db, db::Id gpu_model_id, const Problem& problem,
                              const std::vector<GemmConfig>& candidates, bool force);

}  // namespace gemmtune::tuner
