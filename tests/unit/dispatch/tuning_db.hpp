#pragma once
// Building tuning databases by hand for the dispatcher's tests: a real SQLite file with the rows a
// sweep would write (GPU model, sweep, problems, configs, ok results), in a scratch_dir().
#include <string>
#include <vector>

#include "gemmtune/choice.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "support/scratch.hpp"

namespace gemmtune::test {

/// A problem key of the database.
inline db::ProblemKey db_problem(Op op_a, Op op_b, long long m, long long n, long long k,
                                 long long batch = 1, int alignment = 4) {
  db::ProblemKey p;
  p.op_a = op_char(op_a), p.op_b = op_char(op_b);
  p.m = m, p.n = n, p.k = k, p.batch = batch, p.alignment = alignment;
  return p;
}

/// Writes hand-made sweeps into a database file.
class TuningDbBuilder {
 public:
  explicit TuningDbBuilder(const std::string& path)
      : db_(path, db::OpenMode::read_write, kernel_families()) {}

  /// Starts a sweep on a GPU model; later add() calls record into it.
  void gpu(const std::string& name, int cc_major, int cc_minor, int sm_count) {
    db::GpuModel g;
    g.name = name, g.cc_major = cc_major, g.cc_minor = cc_minor, g.sm_count = sm_count;
    db::SweepInfo info;
    info.gpu_model_id = db_.upsert_gpu_model(g);
    info.strategy = "hand-made";
    info.command_line = "tests";
    sweep_ = db_.begin_sweep(info);
  }
  /// Records an ok result of `config_name` (stored with `params`' columns) on `problem`, with its
  /// errors on the random and (when measured) the wide-range verification inputs.
  void add(const db::ProblemKey& problem, const std::string& config_name, const GemmConfig& params,
           double median_ms, double rel_error = 1e-7,
           std::optional<double> wide_error = std::nullopt) {
    db::KernelConfig k = to_db(params);
    k.name = config_name;
    db::Result r;
    r.problem_id = db_.upsert_problem(problem);
    r.config_id = db_.upsert_config(k);
    r.median_ms = r.min_ms = r.max_ms = median_ms;
    r.repetitions = 10;
    r.tflops = 2.0 * problem.m * problem.n * problem.k * problem.batch / (median_ms * 1e9);
    r.rel_error = rel_error;
    r.wide_error = wide_error;
    db_.record_results(sweep_, std::span<const db::Result>(&r, 1));
  }
  /// Records an ok result of `config`.
  void add(const db::ProblemKey& problem, const GemmConfig& config, double median_ms,
           double rel_error = 1e-7, std::optional<double> wide_error = std::nullopt) {
    add(problem, config_name(config), config, median_ms, rel_error, wide_error);
  }
  db::Database& database() { return db_; }

 private:
  db::Database db_;
  db::Id sweep_ = 0;
};

/// Distinct valid configs of a layout on `limits` with vec 4, one K slice: a tuned set to choose from.
inline std::vector<GemmConfig> tuned_pool(const DeviceLimits& limits, Op op_a, Op op_b,
                                          int split_k = 1) {
  return tuner::valid_space(limits, op_a, op_b, [&](const GemmConfig& c) {
    return c.vec == 4 && c.split_k == split_k && c.stages == 2 && c.pad == 4 && c.raster == 8 &&
           c.bm >= 64 && c.bn >= 64;
  });
}

}  // namespace gemmtune::test
