#pragma once
// What the sweep tests on a GPU share: two small problems and a few configs that run both, so that
// a whole sweep takes seconds, and what a database holds of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/sgemm/tuning/candidates.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gemmtune/tuner/sweep.hpp"

namespace gemmtune::tuner::test {

/// Two small shapes, aligned to 4 floats.
inline std::vector<ProblemSpec> tiny_problems() {
  return {{Op::N, Op::N, 256, 256, 256, 1}, {Op::N, Op::N, 192, 128, 320, 1}};
}

/// Problems whose sweep over tiny_space(8) lasts long enough to be interrupted part-way: the
/// tiny problems first, then larger ones of the same layout. The sweep compiles the eight configs
/// once for every problem, and the two tiny problems are then timed in milliseconds: a test that
/// polled the database for them sent its signal to a sweep that had already finished (an H200,
/// 2026-12-02). The large problems take about a second each to verify and time.
inline std::vector<ProblemSpec> interruptible_problems() {
  std::vector<ProblemSpec> problems = tiny_problems();
  for (int size : {2048, 2304, 2560, 3072})
    problems.push_back({Op::N, Op::N, size, 2048, size - 512, 1});
  return problems;
}

/// `--shape MxNxK` arguments of `problems`, for the CLI.
inline std::vector<std::string> shape_args(const std::vector<ProblemSpec>& problems) {
  std::vector<std::string> args;
  for (const ProblemSpec& p : problems) {
    std::ostringstream shape;
    shape << p.m << 'x' << p.n << 'x' << p.k;
    args.insert(args.end(), {"--shape", shape.str()});
  }
  return args;
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

/// The results of `problems` in the file as "problem label: config name" (with `ok_only`, those
/// with status ok), of every sweep and GPU model; empty while the file or its schema is not there.
inline std::set<std::string> recorded_results(
    const std::string& db_path, bool ok_only,
    const std::vector<ProblemSpec>& problems = tiny_problems()) {
  std::set<std::string> out;
  if (!std::filesystem::exists(db_path)) return out;
  try {
    db::Database db(db_path, db::OpenMode::read_only, kernel_families());
    for (const auto& gpu : db.gpu_models())
      for (const ProblemSpec& p : problems)
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
