// Writes: GPU models, sweeps, problems, configs, results, baselines. Each call is one immediate
// transaction, so a reader or a killed process never sees half of it.
#include <algorithm>
#include <cmath>
#include <random>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db/error.hpp"
#include "rows.hpp"

namespace gemmtune::db {
namespace {

// 128 random bits as hex: a sweep's uid, unique across hosts and merged files.
std::string random_uid() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string uid;
  for (int i = 0; i < 4; ++i) {
    std::uint32_t v = rd();
    for (int j = 0; j < 8; ++j, v >>= 4) uid += kHex[v & 15];
  }
  return uid;
}

// Whether a stored config has the parameters of `given`, of its family and name: the same layout,
// and each of its knobs' values where the row holds one (NULL: a knob the row's writer did not
// know yet, whose default its config ran with; the name, which encodes every parameter, is the
// same). Knob columns `given` does not have are not its family's, or not known to its writer.
bool same_parameters(const KernelConfig& stored, const KernelConfig& given) {
  if (stored.op_a != given.op_a || stored.op_b != given.op_b) return false;
  for (const auto& [column, value] : given.knobs) {
    const auto it = stored.knobs.find(column);
    if (it != stored.knobs.end() && it->second != value) return false;
  }
  return true;
}

void check_result(const Connection& conn, const Result& r) {
  if (r.status == Status::ok && !r.median_ms) {
    throw DatabaseError("cannot record a result in tuning database '" + conn.path() +
                        "': status ok needs median_ms (config id " + std::to_string(r.config_id) +
                        ")");
  }
}

}  // namespace

Id Database::upsert_gpu_model(const GpuModel& gpu) {
  require_writable("record a GPU model");
  if (auto id = find_gpu_model(gpu)) return *id;
  Transaction tx(conn_);
  Statement ins(
      conn_,
      "INSERT INTO gpu_models (name, cc_major, cc_minor, sm_count, memory_bytes, "
      "l2_bytes, smem_per_block_optin, clock_khz) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) "
      "ON CONFLICT (name, cc_major, cc_minor, sm_count) DO NOTHING");
  ins.bind_text(1, gpu.name).bind_int(2, gpu.cc_major).bind_int(3, gpu.cc_minor);
  ins.bind_int(4, gpu.sm_count).bind_int(5, gpu.memory_bytes).bind_int(6, gpu.l2_bytes);
  ins.bind_int(7, gpu.smem_per_block_optin).bind_int(8, gpu.clock_khz).run();
  const auto id = find_gpu_model(gpu);
  tx.commit();
  return id.value();
}

Id Database::begin_sweep(const SweepInfo& s) {
  require_writable("begin a sweep");
  Transaction tx(conn_);
  Statement ins(conn_,
                "INSERT INTO sweeps (uid, gpu_model_id, hostname, command_line, strategy, "
                "gemmtune_version, driver_version, runtime_version, nvrtc_version, template_hash) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  ins.bind_text(1, random_uid()).bind_int(2, s.gpu_model_id).bind_text(3, s.hostname);
  ins.bind_text(4, s.command_line).bind_text(5, s.strategy).bind_text(6, s.gemmtune_version);
  ins.bind_text(7, s.driver_version).bind_text(8, s.runtime_version).bind_text(9, s.nvrtc_version);
  ins.bind_text(10, s.template_hash).run();
  const Id id = conn_.last_insert_id();
  tx.commit();
  return id;
}

void Database::finish_sweep(Id sweep_id) {
  require_writable("finish a sweep");
  Transaction tx(conn_);
  Statement up(
      conn_, "UPDATE sweeps SET finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1");
  up.bind_int(1, sweep_id).run();
  if (conn_.changes() != 1) {
    throw DatabaseError("cannot finish sweep " + std::to_string(sweep_id) +
                        " in tuning database '" + conn_.path() + "': no such sweep");
  }
  tx.commit();
}

Id Database::upsert_problem(const ProblemKey& p) {
  require_writable("record a problem");
  if (auto id = find_problem(p)) return *id;
  Transaction tx(conn_);
  Statement ins(conn_, "INSERT INTO problems (" + detail::problem_columns("") +
                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING");
  detail::bind_problem(ins, 1, p);
  ins.run();
  const auto id = find_problem(p);
  tx.commit();
  return id.value();
}

Id Database::upsert_config(const KernelConfig& c) {
  require_writable("record a config");
  const auto refuse = [&](const std::string& why) {
    throw DatabaseError("cannot record config '" + c.name + "' of family '" + c.family +
                        "' in tuning database '" + conn_.path() + "': " + why);
  };
  if (c.family.empty()) refuse("it names no kernel family");
  for (const auto& [column, value] : c.knobs) {
    if (std::find(knob_columns_.begin(), knob_columns_.end(), column) == knob_columns_.end()) {
      refuse("the file has no column for its knob '" + column +
             "'; open it with the family's description (FamilySchema)");
    }
  }
  // Read first: most configs are known, and a read takes no write lock.
  Statement find(conn_, "SELECT id, " + detail::config_columns(knob_columns_, "") +
                            " FROM configs WHERE family = ?1 AND name = ?2");
  auto lookup = [&]() -> std::optional<Id> {
    find.reset();
    find.bind_text(1, c.family).bind_text(2, c.name);
    if (!find.step()) return std::nullopt;
    if (!same_parameters(detail::read_config(find, 1, knob_columns_), c)) {
      refuse(
          "that name is stored with other parameters; the procedural name must encode every "
          "parameter");
    }
    return find.get_int(0);
  };
  if (auto id = lookup()) return *id;
  find.reset();  // release the read before taking the write lock
  Transaction tx(conn_);
  // Only the config's own knob columns: the others (other families' knobs) stay NULL.
  std::string columns = "family, name, op_a, op_b", values = "?1, ?2, ?3, ?4";
  int next = 5;
  for (const auto& [column, value] : c.knobs) {
    columns += ", " + detail::quoted(column);
    values += ", ?" + std::to_string(next++);
  }
  Statement ins(conn_, "INSERT INTO configs (" + columns + ") VALUES (" + values +
                           ") ON CONFLICT (family, name) DO NOTHING");
  ins.bind_text(1, c.family).bind_text(2, c.name);
  ins.bind_text(3, detail::op_text(c.op_a)).bind_text(4, detail::op_text(c.op_b));
  next = 5;
  for (const auto& [column, value] : c.knobs) ins.bind_int(next++, std::int64_t{value});
  ins.run();
  const auto id = lookup();
  find.reset();
  tx.commit();
  return id.value();
}

void Database::record_results(Id sweep_id, std::span<const Result> batch) {
  require_writable("record results");
  for (const Result& r : batch) check_result(conn_, r);
  Transaction tx(conn_);
  Statement ins(conn_,
                "INSERT INTO results (sweep_id, problem_id, config_id, status, median_ms, min_ms, "
                "max_ms, repetitions, tflops, rel_error, registers, spill_bytes, smem_bytes, "
                "error, wide_error) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
                "ON CONFLICT (sweep_id, problem_id, config_id) DO UPDATE SET "
                "status = excluded.status, median_ms = excluded.median_ms, "
                "min_ms = excluded.min_ms, max_ms = excluded.max_ms, "
                "repetitions = excluded.repetitions, tflops = excluded.tflops, "
                "rel_error = excluded.rel_error, wide_error = excluded.wide_error, registers = "
                "excluded.registers, "
                "spill_bytes = excluded.spill_bytes, smem_bytes = excluded.smem_bytes, "
                "error = excluded.error, recorded_at = excluded.recorded_at");
  for (const Result& r : batch) {
    ins.bind_int(1, sweep_id).bind_int(2, r.problem_id).bind_int(3, r.config_id);
    ins.bind_text(4, status_name(r.status)).bind_real(5, r.median_ms).bind_real(6, r.min_ms);
    ins.bind_real(7, r.max_ms).bind_int(8, r.repetitions).bind_real(9, r.tflops);
    ins.bind_real(10, r.rel_error).bind_int(11, r.registers).bind_int(12, r.spill_bytes);
    ins.bind_int(13, r.smem_bytes).bind_text(14, r.error).bind_real(15, r.wide_error);
    ins.run();
    ins.reset();
  }
  tx.commit();
}

bool Database::record_wide_error(Id result_id, double wide_error) {
  require_writable("record a wide-range error");
  Transaction tx(conn_);
  Statement exists(conn_, "SELECT wide_error IS NULL FROM results WHERE id = ?1");
  exists.bind_int(1, result_id);
  if (!exists.step()) {
    throw DatabaseError("cannot record a wide-range error in tuning database '" + conn_.path() +
                        "': no result " + std::to_string(result_id));
  }
  const bool missing = exists.get_int(0) != 0;
  exists.reset();
  if (missing) {
    Statement up(conn_, "UPDATE results SET wide_error = ?2 WHERE id = ?1");
    up.bind_int(1, result_id).bind_real(2, wide_error).run();
  }
  tx.commit();
  return missing;
}

bool Database::record_ceilings(Id gpu_model_id, const MeasuredCeilingsRow& c) {
  require_writable("record measured ceilings");
  const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
  if (!positive(c.fp32_tflops) || !positive(c.copy_gbs)) {
    throw DatabaseError("cannot record ceilings in tuning database '" + conn_.path() +
                        "': FMA rate " + std::to_string(c.fp32_tflops) + " TFLOP/s and copy " +
                        std::to_string(c.copy_gbs) +
                        " GB/s must be positive finite numbers (a failed measurement)");
  }
  Transaction tx(conn_);
  Statement model(conn_, "SELECT 1 FROM gpu_models WHERE id = ?1");
  model.bind_int(1, gpu_model_id);
  if (!model.step()) {
    throw DatabaseError("cannot record ceilings in tuning database '" + conn_.path() +
                        "': no GPU model " + std::to_string(gpu_model_id));
  }
  model.reset();
  Statement ins(conn_,
                "INSERT INTO gpu_ceilings (gpu_model_id, fp32_tflops, copy_gbs, gemmtune_version) "
                "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (gpu_model_id) DO NOTHING");
  ins.bind_int(1, gpu_model_id).bind_real(2, c.fp32_tflops).bind_real(3, c.copy_gbs);
  ins.bind_text(4, c.gemmtune_version).run();
  const bool stored = conn_.changes() > 0;
  tx.commit();
  return stored;
}

void Database::record_baseline(Id sweep_id, const Baseline& b) {
  require_writable("record a baseline");
  Transaction tx(conn_);
  Statement ins(conn_,
                "INSERT INTO baselines (sweep_id, problem_id, library, median_ms, min_ms, max_ms, "
                "tflops) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                "ON CONFLICT (sweep_id, problem_id, library) DO UPDATE SET "
                "median_ms = excluded.median_ms, min_ms = excluded.min_ms, "
                "max_ms = excluded.max_ms, tflops = excluded.tflops, "
                "recorded_at = excluded.recorded_at");
  ins.bind_int(1, sweep_id).bind_int(2, b.problem_id).bind_text(3, b.library);
  ins.bind_real(4, b.median_ms).bind_real(5, b.min_ms).bind_real(6, b.max_ms);
  ins.bind_real(7, b.tflops).run();
  tx.commit();
}

}  // namespace gemmtune::db
