// Reads: lookups by natural key, bests, ranked results, resume checks.
#include "gemmtune/db/database.hpp"
#include "gemmtune/db/error.hpp"
#include "rows.hpp"

namespace gemmtune::db {
namespace {

// Columns of a BestRow, read by read_best(); configs come from their table, with knob columns
// `knobs`.
std::string best_select(std::span<const std::string> knobs) {
  return "SELECT b.gpu_model_id, b.problem_id, b.config_id, b.result_id, b.sweep_id, b.median_ms, "
         "b.min_ms, b.max_ms, b.tflops, b.cublas_median_ms, b.rel_error, b.wide_error, " +
         detail::problem_columns("b") + ", " + detail::config_columns(knobs, "c") +
         " FROM best_results AS b JOIN configs AS c ON c.id = b.config_id ";
}

BestRow read_best(const Statement& st, std::span<const std::string> knobs) {
  BestRow b;
  b.gpu_model_id = st.get_int(0);
  b.problem_id = st.get_int(1);
  b.config_id = st.get_int(2);
  b.result_id = st.get_int(3);
  b.sweep_id = st.get_int(4);
  b.median_ms = st.get_real(5);
  b.min_ms = st.get_opt_real(6);
  b.max_ms = st.get_opt_real(7);
  b.tflops = st.get_opt_real(8);
  b.cublas_median_ms = st.get_opt_real(9);
  b.rel_error = st.get_opt_real(10);
  b.wide_error = st.get_opt_real(11);
  b.problem = detail::read_problem(st, 12);
  b.config = detail::read_config(st, 12 + detail::kProblemColumnCount, knobs);
  return b;
}

Status read_status(const Connection& conn, const Statement& st, int col) {
  const std::string s = st.get_text(col);
  if (auto status = parse_status(s)) return *status;
  throw DatabaseError("tuning database '" + conn.path() + "' holds an unknown result status '" + s +
                      "'; run `gemmtune db check`");
}

}  // namespace

std::optional<Id> Database::find_gpu_model(const GpuModel& gpu) const {
  Statement st(conn_,
               "SELECT id FROM gpu_models WHERE name = ?1 AND cc_major = ?2 AND cc_minor = ?3 AND "
               "sm_count = ?4");
  st.bind_text(1, gpu.name).bind_int(2, gpu.cc_major).bind_int(3, gpu.cc_minor);
  st.bind_int(4, gpu.sm_count);
  if (!st.step()) return std::nullopt;
  return st.get_int(0);
}

std::optional<MeasuredCeilingsRow> Database::ceilings(Id gpu_model_id) const {
  Statement st(conn_,
               "SELECT fp32_tflops, copy_gbs, measured_at, gemmtune_version FROM gpu_ceilings "
               "WHERE gpu_model_id = ?1");
  st.bind_int(1, gpu_model_id);
  if (!st.step()) return std::nullopt;
  MeasuredCeilingsRow c;
  c.fp32_tflops = st.get_real(0);
  c.copy_gbs = st.get_real(1);
  c.measured_at = st.get_text(2);
  c.gemmtune_version = st.get_text(3);
  return c;
}

std::vector<GpuModelRow> Database::gpu_models() const {
  Statement st(conn_,
               "SELECT id, name, cc_major, cc_minor, sm_count, memory_bytes, l2_bytes, "
               "smem_per_block_optin, clock_khz FROM gpu_models ORDER BY id");
  std::vector<GpuModelRow> rows;
  while (st.step()) {
    GpuModelRow r;
    r.id = st.get_int(0);
    r.model.name = st.get_text(1);
    r.model.cc_major = static_cast<int>(st.get_int(2));
    r.model.cc_minor = static_cast<int>(st.get_int(3));
    r.model.sm_count = static_cast<int>(st.get_int(4));
    r.model.memory_bytes = st.get_int(5);
    r.model.l2_bytes = st.get_int(6);
    r.model.smem_per_block_optin = st.get_int(7);
    r.model.clock_khz = st.get_int(8);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<SweepRow> Database::sweeps(std::optional<Id> gpu_model_id) const {
  Statement st(conn_,
               "SELECT id, uid, gpu_model_id, started_at, finished_at, hostname, command_line, "
               "strategy, gemmtune_version, driver_version, runtime_version, nvrtc_version, "
               "template_hash FROM sweeps WHERE ?1 IS NULL OR gpu_model_id = ?1 ORDER BY id");
  st.bind_int(1, gpu_model_id);
  std::vector<SweepRow> rows;
  while (st.step()) {
    SweepRow r;
    r.id = st.get_int(0);
    r.uid = st.get_text(1);
    r.info.gpu_model_id = st.get_int(2);
    r.started_at = st.get_text(3);
    if (!st.is_null(4)) r.finished_at = st.get_text(4);
    r.info.hostname = st.get_text(5);
    r.info.command_line = st.get_text(6);
    r.info.strategy = st.get_text(7);
    r.info.gemmtune_version = st.get_text(8);
    r.info.driver_version = st.get_text(9);
    r.info.runtime_version = st.get_text(10);
    r.info.nvrtc_version = st.get_text(11);
    r.info.template_hash = st.get_text(12);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::optional<Id> Database::find_problem(const ProblemKey& p) const {
  Statement st(
      conn_,
      "SELECT id FROM problems WHERE dtype = ?1 AND op_a = ?2 AND op_b = ?3 AND m = ?4 AND "
      "n = ?5 AND k = ?6 AND batch = ?7 AND alignment = ?8");
  detail::bind_problem(st, 1, p);
  if (!st.step()) return std::nullopt;
  return st.get_int(0);
}

std::optional<KernelConfig> Database::config(Id config_id) const {
  Statement st(
      conn_, "SELECT " + detail::config_columns(knob_columns_, "") + " FROM configs WHERE id = ?1");
  st.bind_int(1, config_id);
  if (!st.step()) return std::nullopt;
  return detail::read_config(st, 0, knob_columns_);
}

std::optional<BestRow> Database::best_for(Id gpu_model_id, const ProblemKey& problem) const {
  const auto problem_id = find_problem(problem);
  if (!problem_id) return std::nullopt;
  Statement st(conn_,
               best_select(knob_columns_) + "WHERE b.gpu_model_id = ?1 AND b.problem_id = ?2");
  st.bind_int(1, gpu_model_id).bind_int(2, *problem_id);
  if (!st.step()) return std::nullopt;
  return read_best(st, knob_columns_);
}

std::vector<BestRow> Database::bests(std::optional<Id> gpu_model_id) const {
  Statement st(conn_, best_select(knob_columns_) +
                          "WHERE ?1 IS NULL OR b.gpu_model_id = ?1 ORDER BY b.gpu_model_id, "
                          "b.problem_id");
  st.bind_int(1, gpu_model_id);
  std::vector<BestRow> rows;
  while (st.step()) rows.push_back(read_best(st, knob_columns_));
  return rows;
}

std::vector<BestRow> Database::top_configs(Id gpu_model_id, int per_problem) const {
  Statement st(
      conn_,
      "WITH " + detail::ranked_configs_cte("s.gpu_model_id = ?1", families_) +
          " SELECT b.gpu_model_id, b.problem_id, b.config_id, b.result_id, b.sweep_id, b.median_ms,"
          " b.min_ms, b.max_ms, b.tflops, NULL, b.rel_error, b.wide_error, " +
          detail::problem_columns("p") + ", " + detail::config_columns(knob_columns_, "c") +
          " FROM ranked AS b JOIN problems AS p ON p.id = b.problem_id"
          " JOIN configs AS c ON c.id = b.config_id"
          " WHERE b.place <= ?2 ORDER BY b.problem_id, b.median_ms, b.result_id");
  st.bind_int(1, gpu_model_id).bind_int(2, per_problem);
  std::vector<BestRow> rows;
  while (st.step()) rows.push_back(read_best(st, knob_columns_));
  return rows;
}

std::vector<ResultRow> Database::results_for(const ProblemKey& problem, Id gpu_model_id) const {
  const auto problem_id = find_problem(problem);
  if (!problem_id) return {};
  Statement st(conn_,
               "SELECT r.id, r.sweep_id, r.problem_id, r.config_id, r.status, r.median_ms, "
               "r.min_ms, r.max_ms, r.repetitions, r.tflops, r.rel_error, r.registers, "
               "r.spill_bytes, r.smem_bytes, r.error, r.recorded_at, r.wide_error, " +
                   detail::config_columns(knob_columns_, "c") +
                   " FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id "
                   "JOIN configs AS c ON c.id = r.config_id "
                   "WHERE r.problem_id = ?1 AND s.gpu_model_id = ?2 "
                   "ORDER BY r.status <> 'ok', r.median_ms, r.id");
  st.bind_int(1, *problem_id).bind_int(2, gpu_model_id);
  std::vector<ResultRow> rows;
  while (st.step()) {
    ResultRow row;
    row.id = st.get_int(0);
    row.sweep_id = st.get_int(1);
    Result& r = row.result;
    r.problem_id = st.get_int(2);
    r.config_id = st.get_int(3);
    r.status = read_status(conn_, st, 4);
    r.median_ms = st.get_opt_real(5);
    r.min_ms = st.get_opt_real(6);
    r.max_ms = st.get_opt_real(7);
    r.repetitions = static_cast<int>(st.get_int(8));
    r.tflops = st.get_opt_real(9);
    r.rel_error = st.get_opt_real(10);
    r.registers = st.get_opt_int(11);
    r.spill_bytes = st.get_opt_int(12);
    r.smem_bytes = st.get_opt_int(13);
    r.error = st.get_text(14);
    row.recorded_at = st.get_text(15);
    r.wide_error = st.get_opt_real(16);
    row.config = detail::read_config(st, 17, knob_columns_);
    rows.push_back(std::move(row));
  }
  return rows;
}

bool Database::measured(Id gpu_model_id, Id problem_id, Id config_id) const {
  Statement st(conn_,
               "SELECT EXISTS (SELECT 1 FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id "
               "WHERE r.problem_id = ?1 AND r.config_id = ?2 AND s.gpu_model_id = ?3)");
  st.bind_int(1, problem_id).bind_int(2, config_id).bind_int(3, gpu_model_id);
  return st.step() && st.get_int(0) != 0;
}

std::optional<CommonBest> Database::most_common_best(Id gpu_model_id) const {
  Statement st(conn_, "SELECT b.config_id, count(*) AS wins, " +
                          detail::config_columns(knob_columns_, "c") +
                          " FROM best_results AS b JOIN configs AS c ON c.id = b.config_id "
                          "WHERE b.gpu_model_id = ?1 GROUP BY b.config_id "
                          "ORDER BY wins DESC, b.config_id LIMIT 1");
  st.bind_int(1, gpu_model_id);
  if (!st.step()) return std::nullopt;
  return CommonBest{st.get_int(0), detail::read_config(st, 2, knob_columns_), st.get_int(1)};
}

}  // namespace gemmtune::db
