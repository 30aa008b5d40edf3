#include "gemmtune/tuner/resume.hpp"

#include <set>
#include <string>

#include "gemmtune/db_rows.hpp"

namespace gemmtune::tuner {

ResumeState resume_state(const std::vector<GemmConfig>& candidates,
                         const std::vector<db::ResultRow>& prior) {
  std::map<std::string, double> ok;
  std::set<std::string> failed;
  for (const auto& row : prior) {
    const auto& r = row.result;
    if (r.status == db::Status::ok && r.median_ms) {
      auto it = ok.find(row.config.name);
      if (it == ok.end() || *r.median_ms < it->second) ok[row.config.name] = *r.median_ms;
    } else {
      failed.insert(row.config.name);
    }
  }
  ResumeState s;
  for (const auto& c : candidates) {
    std::string name = config_name(c);
    // A failure in any sweep rules a config out for good (a kernel does not get right by retrying).
    if (failed.count(name)) {
      ++s.failed_before;
      continue;
    }
    if (auto it = ok.find(name); it != ok.end()) s.known[s.candidates.size()] = it->second;
    s.candidates.push_back(c);
  }
  return s;
}

ResumeState load_resume_state(const db::Database& db, db::Id gpu_model_id, const Problem& problem,
                              const std::vector<GemmConfig>& candidates, bool force) {
  if (force) return resume_state(candidates, {});
  db::ProblemKey key = to_db(problem);
  if (!db.find_problem(key)) return resume_state(candidates, {});
  return resume_state(candidates, db.results_for(key, gpu_model_id));
}

}  // namespace gemmtune::tuner
