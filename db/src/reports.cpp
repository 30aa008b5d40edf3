// The queries behind `gemmtune db`'s reports.
#include "gemmtune/db/reports.hpp"

#include "database_access.hpp"
#include "rows.hpp"

namespace gemmtune::db {
namespace {

Connection& connection(const Database& db) { return detail::DatabaseAccess::connection(db); }

std::int64_t count_rows(const Database& db, const char* table) {
  Statement st(connection(db), std::string("SELECT count(*) FROM ") + table);
  return st.step() ? st.get_int(0) : 0;
}

}  // namespace

RowCounts row_counts(const Database& db) {
  RowCounts c;
  c.gpu_models = count_rows(db, "gpu_models");
  c.sweeps = count_rows(db, "sweeps");
  c.problems = count_rows(db, "problems");
  c.configs = count_rows(db, "configs");
  c.results = count_rows(db, "results");
  c.binaries = count_rows(db, "binaries");
  return c;
}

bool has_results(const Database& db) {
  Statement st(connection(db), "SELECT EXISTS (SELECT 1 FROM results)");
  return st.step() && st.get_int(0) != 0;
}

GpuModelSummary gpu_model_summary(const Database& db, Id gpu_model_id) {
  Statement st(connection(db),
               "SELECT (SELECT count(*) FROM sweeps WHERE gpu_model_id = ?1), "
               "count(DISTINCT r.problem_id), count(r.id), "
               "coalesce(sum(r.status <> 'ok'), 0), "
               "(SELECT max(started_at) FROM sweeps WHERE gpu_model_id = ?1) "
               "FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id WHERE s.gpu_model_id = ?1");
  st.bind_int(1, gpu_model_id);
  GpuModelSummary s;
  if (!st.step()) return s;  // an aggregate always has a row; kept for safety
  s.sweeps = st.get_int(0);
  s.problems = st.get_int(1);
  s.results = st.get_int(2);
  s.failed = st.get_int(3);
  s.last_sweep_started_at = st.get_text(4);
  return s;
}

std::optional<double> runner_up_ms(const Database& db, const BestRow& best) {
  Statement st(connection(db),
               "SELECT min(r.median_ms) FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id "
               "WHERE r.status = 'ok' AND s.gpu_model_id = ?1 AND r.problem_id = ?2 AND "
               "r.config_id <> ?3");
  st.bind_int(1, best.gpu_model_id).bind_int(2, best.problem_id).bind_int(3, best.config_id);
  return st.step() ? st.get_opt_real(0) : std::nullopt;
}

std::vector<ProblemKey> problems_of_shape(const Database& db, std::int64_t m, std::int64_t n,
                                          std::int64_t k) {
  Statement st(connection(db), "SELECT " + detail::problem_columns("") +
                                   " FROM problems WHERE m = ?1 AND n = ?2 AND k = ?3 "
                                   "ORDER BY op_a, op_b, batch, alignment, dtype");
  st.bind_int(1, m).bind_int(2, n).bind_int(3, k);
  std::vector<ProblemKey> out;
  while (st.step()) out.push_back(detail::read_problem(st, 0));
  return out;
}

std::vector<ProblemShape> largest_shapes(const Database& db, int limit) {
  Statement st(connection(db),
               "SELECT DISTINCT m, n, k FROM problems ORDER BY m * n * k DESC LIMIT ?1");
  st.bind_int(1, limit);
  std::vector<ProblemShape> out;
  while (st.step()) out.push_back({st.get_int(0), st.get_int(1), st.get_int(2)});
  return out;
}

}  // namespace gemmtune::db
