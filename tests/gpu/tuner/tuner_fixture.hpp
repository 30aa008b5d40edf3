#pragma once
// What the sweep tests on a GPU share: two small problems and a few configs that run both, so that
// a whole sweep takes seconds, and what a database holds of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/tuner/space.hpp"
#include "gemmtune/tuner/sweep.hpp"

namespace gemmtune::tuner::test {

/// Two small shapes, aligned to 4 floats.
inline std::vector<ProblemSpec> tiny_problems() {
  return {{Op::N, Op::N, 256, 256, 256, 1}, {Op::N, Op::N, 192, 128, 320, 1}};
}

/// `n` configs of the reduced space that can run both tiny problems (split_k 1, vec 4).
inline std::vector<std::string> tiny_space(std::size_t n) {
  const auto problems = tiny_problems();
  DeviceInfo dev = device_info(0);
  auto valid = valid_space(dev.limits, Op::N, Op::N);
  std::vector<std::string> names;
  for (const auto& c :
       candidate_configs(valid, problems[0].problem(), dev.sm_count, SpaceKind::reduced))
    if (c.split_k == 1 && !c.can_implement(problems[1].problem()) && names.size() < n)
      names.push_back(config_name(c));
  return names;
}

/// The id of GPU 0's model in `db`.
inline db::Id gpu_id(const db::Database& db) {
  auto id = db.find_gpu_model(to_db(device_info(0)));
  EXPECT_TRUE(id);
  return id.value_or(0);
}

/// The tiny problems' results in the file as "problem label: config name" (with `ok_only`, those
/// with status ok), of every sweep and GPU model; empty while the file or its schema is not there.
inline std::set<std::string> recorded_results(const std::string& db_path, bool ok_only) {
  std::set<std::string> out;
  if (!std::filesystem::exists(db_path)) return out;
  try {
    db::Database db(db_path, db::OpenMode::read_only, kernel_families());
    for (const auto& gpu : db.gpu_models())
      for (const ProblemSpec& p : tiny_problems())
        if (db.find_problem(to_db(p.problem())))
          for (const auto& r : db.results_for(to_db(p.problem()), gpu.id))
            if (!ok_only || r.result.status == db::Status::ok)
              out.insert(problem_label(p) + ": " + r.config.name);
  } catch (const std::exception&) {
    out.clear();  // the schema may still be being created
  }
  return out;
}

}  // namespace gemmtune::tuner::test
