#include "gemmtune/tuner/resume.hpp"

#include <string>

#include "gemmtune/db_rows.hpp"

namespace gemmtune::tuner {

EarlierResults::EarlierResults(const std::vector<db::ResultRow>& prior) {
  for (const auto& row : prior) {
    const auto& r = row.result;
    if (r.status == db::Status::ok && r.median_ms) {
      auto it = best_ms.find(row.config.name);
      if (it == best_ms.end() || *r.median_ms < it->second) best_ms[row.config.name] = *r.median_ms;
    } else {
      failed.insert(row.config.name);
    }
  }
}

std::vector<db::ResultRow> earlier_results(const db::Database& db, db::Id gpu_model_id,
                                           const Problem& problem, bool force) {
  const db::ProblemKey key = to_db(problem);
  if (force || !db.find_problem(key)) return {};
  return db.results_for(key, gpu_model_id);
}

ResumeState resume_state(const std::vector<GemmConfig>& candidates,
                         const std::vector<db::ResultRow>& prior) {
  const EarlierResults earlier(prior);
  ResumeState s;
  for (const auto& c : candidates) earlier.sort_into(s, c, config_name(c));
  return s;
}

ResumeState load_resume_state(const db::Database& db, db::Id gpu_model_id, const Problem& problem,
                              const std::vector<GemmConfig>& candidates, bool force) {
  return resume_state(candidates, earlier_results(db, gpu_model_id, problem, force));
}

}  // namespace gemmtune::tuner
