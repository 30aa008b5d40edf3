// Reading what the database knows about one GPU model into a TuningSnapshot.
#include <cstdio>

#include "gemmtune/db/error.hpp"
#include "gemmtune/db_rows.hpp"
#include "store.hpp"

namespace gemmtune {

namespace detail {

namespace {
std::string describe(const db::GpuModel& g) {
  return g.name + " (sm_" + std::to_string(g.cc_major) + std::to_string(g.cc_minor) + ", " +
         std::to_string(g.sm_count) + " SMs)";
}

bool matches(const db::GpuModel& g, const GpuIdentity& want) {
  return g.cc_major == want.cc_major && g.cc_minor == want.cc_minor &&
         (want.sm_count == 0 || g.sm_count == want.sm_count) &&
         (want.name.empty() || g.name == want.name);
}
}  // namespace

TunedBest to_tuned_best(const db::BestRow& row) {
  TunedBest b;
  b.problem.op_a = op_from_char(row.problem.op_a).value_or(Op::N);
  b.problem.op_b = op_from_char(row.problem.op_b).value_or(Op::N);
  b.problem.m = row.problem.m, b.problem.n = row.problem.n, b.problem.k = row.problem.k;
  b.problem.batch = row.problem.batch;
  b.problem.alignment = row.problem.alignment;
  // The procedural name encodes every parameter and the layout: the chooser parses it and
  // validates the result, so a row from an older family version is skipped, never misread.
  b.config_name = row.config.name;
  b.config_id = row.config_id;
  b.sweep_id = row.sweep_id;
  b.median_ms = row.median_ms;
  b.tflops = row.tflops;
  b.cublas_median_ms = row.cublas_median_ms;
  b.rel_error = row.rel_error;
  b.wide_error = row.wide_error;
  return b;
}

TuningSnapshot load_tuning_snapshot(const db::Database& database, const GpuIdentity& gpu) {
  TuningSnapshot s;
  s.database = database.path();
  std::vector<db::GpuModelRow> found, all = database.gpu_models();
  for (const auto& row : all)
    if (matches(row.model, gpu)) found.push_back(row);
  std::string wanted =
      (gpu.name.empty() ? std::string("any GPU") : "'" + gpu.name + "'") + " of sm_" +
      std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor) +
      (gpu.sm_count ? " with " + std::to_string(gpu.sm_count) + " SMs" : std::string());
  auto list_models = [&] {
    std::string names;
    for (const auto& row : all) names += (names.empty() ? "" : "; ") + describe(row.model);
    return names.empty() ? std::string("none") : names;
  };
  if (found.empty()) {
    s.notes.push_back("database '" + s.database + "' has no GPU model " + wanted +
                      " (it has: " + list_models() + ")");
    return s;
  }
  if (found.size() > 1) {
    s.notes.push_back("database '" + s.database + "' has several GPU models matching " + wanted +
                      "; name one (" + list_models() + ")");
    return s;
  }
  s.gpu_model = describe(found.front().model);
  s.sm_count = found.front().model.sm_count;
  for (const auto& row : database.bests(found.front().id)) s.bests.push_back(to_tuned_best(row));
  for (const auto& row : database.top_configs(found.front().id, kTopConfigsPerProblem))
    s.top_configs.push_back(to_tuned_best(row));
  if (s.bests.empty())
    s.notes.push_back("no tuned results for " + s.gpu_model + " in '" + s.database + "'");
  return s;
}

}  // namespace detail

TuningSnapshot load_tuning_snapshot(const std::string& path, const GpuIdentity& gpu) {
  try {
    db::Database database(path, db::OpenMode::read_only, kernel_families());
    return detail::load_tuning_snapshot(database, gpu);
  } catch (const std::exception& e) {  // db::DatabaseError, or a bad_alloc reading a damaged file
    TuningSnapshot s;
    s.notes.push_back(std::string("cannot read the tuning database: ") + e.what());
    return s;
  }
}

}  // namespace gemmtune
