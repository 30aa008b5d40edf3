#pragma once
// The queries behind `gemmtune db`'s reports (check, devices, best, results, export): counts,
// summaries and lookups that only the tools need, so that no SQL lives outside db/.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/db/database.hpp"

namespace gemmtune::db {

/// How many rows each table of a tuning database holds.
struct RowCounts {
  std::int64_t gpu_models = 0, sweeps = 0, problems = 0, configs = 0, results = 0, binaries = 0;
};

/// The rows of every table.
RowCounts row_counts(const Database& db);

/// Whether any result (ok or failed) is stored: a database without one has nothing to report.
bool has_results(const Database& db);

/// What one GPU model's sweeps hold.
struct GpuModelSummary {
  std::int64_t sweeps = 0;
  std::int64_t problems = 0;          ///< distinct problems with a result
  std::int64_t results = 0;           ///< ok and failed
  std::int64_t failed = 0;            ///< results whose status is not ok
  std::string last_sweep_started_at;  ///< as stored; empty without sweeps
};

/// The sweeps, problems and results of the GPU model `gpu_model_id`.
GpuModelSummary gpu_model_summary(const Database& db, Id gpu_model_id);

/// The median of the fastest ok result of any config other than `best`'s for its (GPU model,
/// problem), over all sweeps: how far behind the best the runner-up is. Empty when none ran.
std::optional<double> runner_up_ms(const Database& db, const BestRow& best);

/// Every stored problem of shape m x n x k (any dtype, layout, batch and alignment), ordered by
/// op_a, op_b, batch, alignment, dtype.
std::vector<ProblemKey> problems_of_shape(const Database& db, std::int64_t m, std::int64_t n,
                                          std::int64_t k);

/// An M x N x K problem shape.
struct ProblemShape {
  std::int64_t m = 0, n = 0, k = 0;
};

/// The distinct shapes of the stored problems, largest M * N * K first, at most `limit`: what a
/// tool lists when a shape it was asked for is not there.
std::vector<ProblemShape> largest_shapes(const Database& db, int limit);

}  // namespace gemmtune::db
